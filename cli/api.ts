/** Calls to the HTTP API: answers checked against their contract, errors turned into exit codes. */
import * as z from 'zod/mini';
import type { $ZodType } from 'zod/v4/core';
import { apiErrorMessage } from '../lambdas/core/api-error';
import { describeIssues } from '../lambdas/core/validation';
import { CliError, exitCodeForStatus, localModeDownMessage, refusedLoopback } from './exit-codes';
import type { Target } from './target';

/** The API's reason: `{ "error": { "code", "message" } }` (every route), or an older stack's `{ "error": "..." }`. */
function reasonOf(status: number, text: string): string {
  try {
    const body = JSON.parse(text) as { error?: unknown; message?: unknown };
    const message = apiErrorMessage(body);
    if (message !== undefined) return message;
    if (typeof body.error === 'string') return body.error;
    if (typeof body.message === 'string') return body.message;
  } catch {
    // Not JSON: the text itself is the best reason there is.
  }
  return text.trim() === '' ? `HTTP ${status}` : text.trim().slice(0, 300);
}

export class ApiError extends CliError {
  override name = 'ApiError';
  constructor(
    readonly status: number,
    reason: string,
  ) {
    super(`${status}: ${reason}`, exitCodeForStatus(status));
  }
}

export interface ApiRequest {
  method?: string;
  body?: unknown;
}

/** The raw answer of a successful request; anything else throws an ApiError. */
export async function request(target: Target, url: string, init: ApiRequest = {}): Promise<Response> {
  let response: Response;
  try {
    response = await target.fetch(url, {
      method: init.method ?? 'GET',
      ...(init.body !== undefined && {
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(init.body),
      }),
    });
  } catch (error) {
    const refused = refusedLoopback(error);
    if (refused !== undefined) throw new CliError(localModeDownMessage(refused));
    const { message, cause } = error as Error & { cause?: { code?: string; message?: string } };
    // fetch says only "fetch failed"; the reason (ECONNREFUSED, ENOTFOUND…) is in its cause.
    const reason = cause === undefined ? message : `${message}: ${cause.code ?? cause.message ?? ''}`;
    throw new CliError(`Could not reach ${target.label} (${url}): ${reason}`);
  }
  if (!response.ok) throw new ApiError(response.status, reasonOf(response.status, await response.text()));
  return response;
}

/** The answer as received (for `--json`) and as checked against the contract. */
export interface Checked<T> {
  raw: unknown;
  value: T;
}

export async function requestJson<S extends $ZodType>(
  target: Target,
  url: string,
  schema: S,
  init: ApiRequest = {},
): Promise<Checked<z.output<S>>> {
  const response = await request(target, url, init);
  const text = await response.text();
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new CliError(`${url} answered with something that is not JSON: ${text.slice(0, 200)}`);
  }
  const parsed = z.safeParse(schema, raw);
  if (!parsed.success)
    throw new CliError(
      `${url} answered in an unexpected shape (CLI and API versions differ? deploy this version): ${describeIssues(parsed.error).slice(0, 3).join('; ')}`,
    );
  return { raw, value: parsed.data };
}

/**
 * The URL of a contract route (`GET /meetings/{bot_id}`) under the API base, its
 * path parameters filled in and its query parameters (undefined ones left out) added.
 */
export function routeUrl(
  target: Pick<Target, 'apiBaseUrl'>,
  route: string,
  params: Record<string, string> = {},
  query: Record<string, string | number | undefined> = {},
): string {
  const path = (route.split(' ')[1] ?? '').replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`${route}: no value for {${name}}`);
    return encodeURIComponent(value);
  });
  const url = new URL(`${target.apiBaseUrl}${path}`);
  for (const [key, value] of Object.entries(query)) if (value !== undefined) url.searchParams.set(key, String(value));
  return url.href;
}
