/**
 * One HTTP exchange with a Google endpoint: a deadline, a bounded body read, and
 * what Google's error answers mean for the sync. Everything read here is parsed
 * as untrusted (a proxy or a fault may answer anything); no token or key is ever
 * put into an error, only Google's own reason and message.
 */
import { errorName, NO_REDIRECTS, readBoundedText, refuseRedirect } from '../provider-answer';
import { PROVIDER_LIMITS, ProviderUnavailableError } from '../provider-contract';

/** One request, connect to last byte: far above Google's usual answer time, well inside a sync's run. */
export const GOOGLE_REQUEST_TIMEOUT_MS = 15_000;
/** Google's words quoted in a reason are cut here: a reason is shown, not a document. */
const MAX_QUOTED_CHARS = 200;

export interface GoogleAnswer {
  status: number;
  /** The parsed JSON body; undefined when the body was empty or not JSON. */
  body: unknown;
  headers: Headers;
}

/**
 * Sends the request and reads its JSON answer, at most `maxBytes` of it; a network failure, a redirect
 * (not followed: provider-answer.ts) or a larger body is ProviderUnavailableError.
 */
export async function exchange(
  fetchImpl: typeof fetch,
  url: string,
  init: RequestInit,
  maxBytes: number = PROVIDER_LIMITS.responseBytes,
): Promise<GoogleAnswer> {
  let response: Response;
  try {
    response = await fetchImpl(url, {
      ...init,
      ...NO_REDIRECTS,
      signal: AbortSignal.timeout(GOOGLE_REQUEST_TIMEOUT_MS),
    });
  } catch (error) {
    throw new ProviderUnavailableError(`Google could not be reached (${errorName(error)})`);
  }
  await refuseRedirect(response, 'Google');
  const text = await readBoundedText(response, 'Google', maxBytes);
  let body: unknown;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: response.status, body, headers: response.headers };
}

/** Google's API error shape: `{ error: { code, message, errors: [{ reason, message }] } }`. */
export interface ApiRefusal {
  /** `errors[0].reason`, what clients branch on (`fullSyncRequired`, `rateLimitExceeded`…). */
  reason: string | undefined;
  /** The answer in Google's words, cut short: `403 forbidden: …`. */
  text: string;
}

export function apiRefusal(answer: GoogleAnswer): ApiRefusal {
  const error = record(record(answer.body)?.error);
  const first = record(Array.isArray(error?.errors) ? error.errors[0] : undefined);
  const reason = typeof first?.reason === 'string' ? first.reason.slice(0, MAX_QUOTED_CHARS) : undefined;
  const message = typeof error?.message === 'string' ? error.message : undefined;
  return {
    reason,
    text: [`${answer.status}`, reason, message === undefined ? undefined : quoted(message)]
      .filter((part) => part !== undefined)
      .join(' '),
  };
}

/** Google's own words, cut to a shown length and kept on one line. */
export const quoted = (words: string): string => {
  const line = words.replace(/\s+/g, ' ');
  return line.length > MAX_QUOTED_CHARS ? `${line.slice(0, MAX_QUOTED_CHARS)}…` : line;
};

export function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}
