/**
 * The console server's /api, as the pages call it: the API's own routes (the server signs
 * them), answers typed by the API contracts. A change carries the session's CSRF token.
 */

/** An answer other than 2xx: the API's reason when it gave one. */
export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export interface ConsoleSession {
  csrf_token: string;
  read_only: boolean;
  target: string;
}

async function reasonOf(response: Response): Promise<string> {
  const text = await response.text();
  try {
    const body = JSON.parse(text) as { error?: { message?: unknown } | string };
    if (typeof body.error === 'string') return body.error;
    if (typeof body.error?.message === 'string') return body.error.message;
  } catch {
    // Not JSON: the text is the reason.
  }
  return text.trim() === '' ? `HTTP ${response.status}` : text.trim().slice(0, 300);
}

async function answered<T>(response: Response): Promise<T> {
  if (!response.ok) throw new ApiFailure(response.status, await reasonOf(response));
  return (await response.json()) as T;
}

export const getJson = async <T>(path: string): Promise<T> =>
  answered<T>(await fetch(`/api${path}`, { credentials: 'same-origin' }));

let session: Promise<ConsoleSession> | undefined;
export function consoleSession(): Promise<ConsoleSession> {
  session ??= getJson<ConsoleSession>('/session');
  return session;
}

/** A change (DELETE, POST): refused by the server without the CSRF token, and in --read-only. */
export async function change<T>(method: 'DELETE' | 'POST', path: string, body?: unknown): Promise<T> {
  const { csrf_token } = await consoleSession();
  return answered<T>(
    await fetch(`/api${path}`, {
      method,
      credentials: 'same-origin',
      headers: {
        'x-csrf-token': csrf_token,
        ...(body !== undefined && { 'content-type': 'application/json' }),
      },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    }),
  );
}

/** `/meetings/{id}`-style paths with their parts escaped. */
export const path = (strings: TemplateStringsArray, ...parts: string[]): string =>
  strings.reduce((whole, piece, i) => whole + piece + (i < parts.length ? encodeURIComponent(parts[i] ?? '') : ''), '');
