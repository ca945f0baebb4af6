/**
 * One HTTP exchange with Entra or Graph, as every caller here needs it: counted
 * (each request costs provider quota), under a deadline, and with the answer's
 * body read only up to PROVIDER_LIMITS.responseBytes (a mailbox is filled by
 * outsiders' invitations, so a page may be anything). A transport failure is a
 * ProviderUnavailableError; the status is the caller's to judge (a redirect is not followed:
 * provider-answer.ts).
 */
import { NO_REDIRECTS, readBoundedText } from '../provider-answer';
import { PROVIDER_LIMITS, ProviderUnavailableError } from '../provider-contract';

/** Requests made in one provider operation (the ChangeSet's `calls`), and when it must have ended. */
export interface CallCount {
  calls: number;
  /** ms since the epoch (the provider's clock); no request starts after it. */
  deadline?: number;
}

/**
 * One listing (every page of a user's calendar view, every page of a group) ends
 * within this: 50 slow pages would otherwise hold a sync function for many minutes.
 * The function running it needs this plus one request's timeout.
 */
export const LISTING_DEADLINE_MS = PROVIDER_LIMITS.listingDeadlineMs;

/** A Graph page of 250 events answers within a few seconds; a request still open after 20 s is not coming back. */
export const GRAPH_REQUEST_TIMEOUT_MS = 20_000;

export interface HttpAnswer {
  status: number;
  headers: Headers;
  /** The body as JSON, or undefined when it is not JSON. */
  json: unknown;
}

export async function exchange(
  fetchFn: typeof fetch,
  url: string,
  init: RequestInit,
  count: CallCount,
  what: string,
): Promise<HttpAnswer> {
  count.calls += 1;
  let response: Response;
  let text: string;
  try {
    response = await fetchFn(url, {
      ...init,
      ...NO_REDIRECTS,
      signal: AbortSignal.timeout(GRAPH_REQUEST_TIMEOUT_MS),
    });
    text = await readBoundedText(response, what);
  } catch (error) {
    if (error instanceof ProviderUnavailableError) throw error;
    throw new ProviderUnavailableError(
      `${what} did not answer: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  let json: unknown;
  try {
    json = text === '' ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, json };
}

/** `Retry-After` in seconds (Graph's form) as milliseconds, or undefined when absent or not a number of seconds. */
export function retryAfterMs(headers: Headers): number | undefined {
  const value = headers.get('retry-after')?.trim();
  if (value === undefined || !/^\d{1,6}$/.test(value)) return undefined;
  return Number(value) * 1000;
}

/** Provider words shown on a calendar: one line, bounded. */
export function shownReason(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters from the provider are what is removed
  const line = text.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}
