/**
 * One HTTP exchange with a Google endpoint: a deadline, a bounded body read, and
 * what Google's error answers mean for the sync. Everything read here is parsed
 * as untrusted (a proxy or a fault may answer anything); no token or key is ever
 * put into an error, only Google's own reason and message.
 */
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

/** Sends the request and reads its JSON answer, at most `maxBytes` of it; a network failure or a larger body is ProviderUnavailableError. */
export async function exchange(
  fetchImpl: typeof fetch,
  url: string,
  init: RequestInit,
  maxBytes: number = PROVIDER_LIMITS.responseBytes,
): Promise<GoogleAnswer> {
  let response: Response;
  try {
    response = await fetchImpl(url, { ...init, signal: AbortSignal.timeout(GOOGLE_REQUEST_TIMEOUT_MS) });
  } catch (error) {
    throw new ProviderUnavailableError(`Google could not be reached (${errorName(error)})`);
  }
  const text = await readBounded(response, maxBytes);
  let body: unknown;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: response.status, body, headers: response.headers };
}

async function readBounded(response: Response, maxBytes: number): Promise<string> {
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  if (declared > maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    throw new ProviderUnavailableError(`Google answered ${declared} bytes, over the ${maxBytes} read`);
  }
  if (response.body === null) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      bytes += value.byteLength;
      if (bytes > maxBytes) {
        await reader.cancel().catch(() => undefined);
        throw new ProviderUnavailableError(`Google answered over the ${maxBytes} bytes read`);
      }
      chunks.push(value);
    }
  } catch (error) {
    if (error instanceof ProviderUnavailableError) throw error;
    throw new ProviderUnavailableError(`Google's answer broke off (${errorName(error)})`);
  }
  return Buffer.concat(chunks).toString('utf8');
}

const errorName = (error: unknown): string =>
  error instanceof Error ? (error.name === 'Error' ? 'network error' : error.name) : 'network error';

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
