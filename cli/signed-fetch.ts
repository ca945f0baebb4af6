/**
 * fetch with AWS Signature V4 (service `execute-api`): the stack's HTTP API routes
 * use IAM authorization. The signer and hash are the AWS SDK's own.
 */
import { Sha256 } from '@smithy/core/checksum';
import { SignatureV4 } from '@smithy/signature-v4';
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider } from '@smithy/types';

export type Fetch = (
  url: string,
  init?: { method?: string; headers?: Record<string, string>; body?: string },
) => Promise<Response>;

export interface SigningOptions {
  region: string;
  credentials: AwsCredentialIdentity | AwsCredentialIdentityProvider;
  /** For tests: a fixed signing time. */
  now?: () => Date;
}

export interface SignedRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  body?: string;
}

/** The request's headers with `authorization`, `x-amz-date` (and the session token) added. */
export async function signRequest(request: SignedRequest, options: SigningOptions): Promise<Record<string, string>> {
  const url = new URL(request.url);
  const query: Record<string, string | string[]> = {};
  for (const [key, value] of url.searchParams) {
    const seen = query[key];
    query[key] = seen === undefined ? value : [...(Array.isArray(seen) ? seen : [seen]), value];
  }
  const signer = new SignatureV4({
    service: 'execute-api',
    region: options.region,
    credentials: options.credentials,
    sha256: Sha256,
  });
  const signed = await signer.sign(
    {
      method: request.method,
      protocol: url.protocol,
      hostname: url.hostname,
      ...(url.port !== '' && { port: Number(url.port) }),
      // Already percent-encoded as sent; the signer encodes it once more, as SigV4 wants for execute-api.
      path: url.pathname,
      query,
      headers: { ...request.headers, host: url.host },
      ...(request.body !== undefined && { body: request.body }),
    },
    { ...(options.now !== undefined && { signingDate: options.now() }) },
  );
  return signed.headers;
}

export function signedFetch(options: SigningOptions, send: Fetch = fetch): Fetch {
  return async (url, init = {}) => {
    const method = init.method ?? 'GET';
    const headers = await signRequest(
      { url, method, headers: init.headers ?? {}, ...(init.body !== undefined && { body: init.body }) },
      options,
    );
    // fetch sets Host itself, from the same URL.
    const { host: _host, ...rest } = headers;
    return send(url, { method, headers: rest, ...(init.body !== undefined && { body: init.body }) });
  };
}
