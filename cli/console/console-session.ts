/**
 * Who may use the console: whoever opened the address it printed. The address carries a
 * random launch token; the first request with it gets a session cookie (HttpOnly, so page
 * scripts cannot read it; SameSite=Strict, so no other site's page sends it) and is
 * redirected to the same page without the token, which so leaves the address bar. Every
 * change also needs the session's CSRF token in a header, which only our own pages can read
 * (from /api/session: no CORS, so another origin's script cannot).
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';

export const SESSION_COOKIE = 'mp_console';
export const CSRF_HEADER = 'x-csrf-token';
export const LAUNCH_TOKEN_PARAMETER = 'token';

const randomToken = () => randomBytes(32).toString('base64url');

function sameSecret(given: string | undefined, expected: string): boolean {
  if (given === undefined) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The value of one cookie in a Cookie header. */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const [key, ...rest] = part.trim().split('=');
    if (key === name) return rest.join('=');
  }
  return undefined;
}

export interface ConsoleSessions {
  /** The token the printed address carries. */
  readonly launchToken: string;
  /** A new session when the launch token is right: its cookie header; undefined otherwise. */
  open(token: string | undefined): { setCookie: string } | undefined;
  /** The session's CSRF token when the Cookie header names a live session. */
  csrfFor(cookieHeader: string | undefined): string | undefined;
  /** Whether a change request carries its session's CSRF token. */
  changeAllowed(cookieHeader: string | undefined, csrfHeader: string | undefined): boolean;
}

/** Sessions live as long as the console process: a restart prints a new address. */
export function consoleSessions(): ConsoleSessions {
  const launchToken = randomToken();
  // session id → its CSRF token
  const sessions = new Map<string, string>();
  const csrfFor = (cookieHeader: string | undefined) => {
    const id = cookieValue(cookieHeader, SESSION_COOKIE);
    return id === undefined ? undefined : sessions.get(id);
  };
  return {
    launchToken,
    open(token) {
      if (!sameSecret(token, launchToken)) return undefined;
      const id = randomToken();
      sessions.set(id, randomToken());
      return { setCookie: `${SESSION_COOKIE}=${id}; HttpOnly; SameSite=Strict; Path=/` };
    },
    csrfFor,
    changeAllowed(cookieHeader, csrfHeader) {
      const csrf = csrfFor(cookieHeader);
      return csrf !== undefined && sameSecret(csrfHeader, csrf);
    },
  };
}
