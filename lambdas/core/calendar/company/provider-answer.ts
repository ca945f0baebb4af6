/**
 * What every call to a provider (Google, Entra, Graph, their push endpoints) does with the answer
 * before judging it. Each request carries a credential: a bearer token, the service account's signed
 * assertion, an app secret, a channel secret. fetch's default follows a 307/308 by sending the same
 * body to wherever `Location` points, so redirects are never followed (`redirect: 'manual'`) and a
 * 3xx is an unusable answer. The body is read up to PROVIDER_LIMITS.responseBytes and no further:
 * what a provider (or a proxy, or a fault) answers is not ours to size.
 */
import { PROVIDER_LIMITS, ProviderUnavailableError } from './provider-contract';

/** The fetch option every provider call is made with. */
export const NO_REDIRECTS = { redirect: 'manual' } as const satisfies RequestInit;

export const isRedirect = (status: number): boolean => status >= 300 && status < 400;

/** A 3xx answer as the error it is: nothing is sent on to its `Location`. */
export async function refuseRedirect(response: Response, who: string): Promise<void> {
  if (!isRedirect(response.status)) return;
  await response.body?.cancel().catch(() => undefined);
  throw new ProviderUnavailableError(
    `${who} answered HTTP ${response.status} (a redirect); it is not followed, as the request carries a credential`,
  );
}

/** The body as text, read up to `maxBytes`; a larger or broken-off body is ProviderUnavailableError. */
export async function readBoundedText(
  response: Response,
  who: string,
  maxBytes: number = PROVIDER_LIMITS.responseBytes,
): Promise<string> {
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  if (declared > maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    throw new ProviderUnavailableError(`${who} answered ${declared} bytes, over the ${maxBytes}-byte limit`);
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
        throw new ProviderUnavailableError(`${who} answered more than the ${maxBytes}-byte limit`);
      }
      chunks.push(value);
    }
  } catch (error) {
    if (error instanceof ProviderUnavailableError) throw error;
    throw new ProviderUnavailableError(`${who}'s answer broke off (${errorName(error)})`);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** A transport error named by its kind only, as the callers show it. */
export const errorName = (error: unknown): string =>
  error instanceof Error ? (error.name === 'Error' ? 'network error' : error.name) : 'network error';
