/**
 * Authenticated GETs on the configured Graph endpoint. Graph hands back the next
 * page's URL (`@odata.nextLink`, `@odata.deltaLink`) and we send our bearer token
 * to it, so a link on another origin is refused, never followed: whoever can put
 * a URL into a page must not steer the tenant-wide token elsewhere. A 401 is
 * retried once with a fresh token (it may have been revoked early); a second
 * one means Entra's grant no longer holds for Graph.
 */
import * as z from 'zod/mini';
import { AccessRevokedError, ProviderUnavailableError, ThrottledError } from '../provider-contract';
import type { EntraTokenSource } from './entra-token';
import {
  type CallCount,
  exchange,
  type HttpAnswer,
  LISTING_DEADLINE_MS,
  retryAfterMs,
  shownReason,
} from './graph-http';

/** When Graph throttles without a Retry-After, ask again after this. */
const DEFAULT_THROTTLE_MS = 60_000;

const GraphErrorBody = z.object({
  error: z.object({
    code: z.optional(z.string().check(z.maxLength(200))),
    message: z.optional(z.string().check(z.maxLength(4_000))),
  }),
});

/** Graph's error code and message (`ErrorAccessDenied: Access is denied…`), bounded. */
export function graphError(answer: HttpAnswer): { code: string; message: string; words: string } {
  const parsed = GraphErrorBody.safeParse(answer.json);
  const code = parsed.success ? (parsed.data.error.code ?? '') : '';
  const message = parsed.success ? (parsed.data.error.message ?? '') : '';
  const words = shownReason(code === '' && message === '' ? `HTTP ${answer.status}` : `${code}: ${message}`);
  return { code, message, words };
}

export class GraphClient {
  readonly origin: string;

  constructor(
    /** Graph base with its version, e.g. `https://graph.microsoft.com/v1.0`. */
    readonly base: string,
    private readonly tokens: EntraTokenSource,
    private readonly fetchFn: typeof fetch,
    private readonly now: () => number,
  ) {
    this.origin = new URL(base).origin;
  }

  /** The app's bearer token (push subscriptions are made with it). */
  token(count: CallCount): Promise<string> {
    return this.tokens.token(count);
  }

  /** `path` under the Graph base (`/users/…`), with its query. */
  url(path: string, query: Record<string, string> = {}): string {
    const url = new URL(`${this.base.replace(/\/+$/, '')}${path}`);
    for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
    return url.toString();
  }

  /** Whether a link Graph handed out may be followed with our token. */
  isOwnLink(link: string): boolean {
    try {
      return new URL(link).origin === this.origin;
    } catch {
      return false;
    }
  }

  /** A page link from an answer: refused unless it is on the Graph origin. */
  followable(link: string, what: string): string {
    if (!this.isOwnLink(link)) {
      let shown = 'an unreadable URL';
      try {
        shown = new URL(link).origin;
      } catch {
        // left as described
      }
      throw new ProviderUnavailableError(`Graph's ${what} points at ${shown}, not at ${this.origin}: not followed`);
    }
    return link;
  }

  /**
   * GET with the app's token. Answers any status but 401, 429 and 5xx, which are
   * settled here (retry, ThrottledError, ProviderUnavailableError).
   */
  async get(url: string, headers: Record<string, string>, count: CallCount, what: string): Promise<HttpAnswer> {
    if (!this.isOwnLink(url))
      throw new ProviderUnavailableError(`refused to send the Graph token outside ${this.origin}`);
    if (count.deadline !== undefined && this.now() >= count.deadline)
      throw new ProviderUnavailableError(`reading ${what} took longer than ${LISTING_DEADLINE_MS / 1000} s; stopped`);
    let answer: HttpAnswer | undefined;
    for (let attempt = 0; attempt < 2; attempt += 1) {
      const token = await this.tokens.token(count);
      answer = await exchange(
        this.fetchFn,
        url,
        { headers: { ...headers, accept: 'application/json', authorization: `Bearer ${token}` } },
        count,
        what,
      );
      if (answer.status !== 401) break;
      this.tokens.invalidate(token);
    }
    if (answer === undefined) throw new ProviderUnavailableError(`${what}: no answer`);
    if (answer.status === 401)
      throw new AccessRevokedError('source', `Graph refused the app's token twice: ${graphError(answer).words}`);
    if (answer.status === 429 || answer.status === 503) {
      const wait = retryAfterMs(answer.headers);
      if (answer.status === 429 || wait !== undefined)
        throw new ThrottledError(wait ?? DEFAULT_THROTTLE_MS, `Graph throttled ${what}: ${graphError(answer).words}`);
    }
    if (answer.status >= 500 || (answer.status >= 300 && answer.status < 400))
      throw new ProviderUnavailableError(
        `Graph answered ${what} with HTTP ${answer.status}: ${graphError(answer).words}`,
      );
    return answer;
  }
}
