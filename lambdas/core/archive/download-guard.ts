/**
 * Opens a recording download link safely: https only (plain http only to
 * loopback, and only in local mode), never to private, loopback, link-local or
 * otherwise internal addresses (checked on the address actually connected to, so
 * DNS rebinding cannot slip past), no redirects, and a size cap.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { type Agent, request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import {
  bareAddress,
  isLoopbackAddress,
  isLoopbackHost,
  refusedAddress as publicAddressRefusal,
} from './address-policy';

export class DownloadRefusedError extends Error {
  override name = 'DownloadRefusedError';
}

/** The link expired (the service's links last 30 minutes) or was refused: fetch a fresh one. */
export class LinkExpiredError extends Error {
  override name = 'LinkExpiredError';
}

export class DownloadFailedError extends Error {
  override name = 'DownloadFailedError';
}

export interface DownloadPolicy {
  /** Local mode: allow plain http to 127.0.0.1/::1 (the simulated service). */
  allowLoopback: boolean;
  maxBytes: number;
  timeoutMs: number;
}

export interface OpenedDownload {
  /** A conditional request (DownloadRequest.headers) answered 304: the caller's copy is current. */
  notModified?: true;
  stream: IncomingMessage;
  contentType: string;
  contentLength: number | undefined;
}

/**
 * How names are resolved and connections made. Production uses the system
 * resolver and Node's default agent; a test may supply its own resolver and
 * routes, but the policy still judges every address the resolver returns.
 */
export interface DownloadNetwork {
  lookup: typeof dnsLookup;
  agent?: Agent;
}

const SYSTEM_NETWORK: DownloadNetwork = { lookup: dnsLookup };

/** What else a caller sends: a calendar feed is fetched conditionally (If-None-Match, If-Modified-Since). */
export interface DownloadRequest {
  headers?: Record<string, string>;
  /** What the link is, in error messages. */
  subject?: string;
}

/** Why an address may not be connected to, or undefined when it may. */
export function refusedAddress(address: string, policy: Pick<DownloadPolicy, 'allowLoopback'>): string | undefined {
  if (policy.allowLoopback && isLoopbackAddress(address)) return undefined;
  return publicAddressRefusal(address);
}

export function openDownload(
  link: string,
  policy: DownloadPolicy,
  network: DownloadNetwork = SYSTEM_NETWORK,
  options: DownloadRequest = {},
): Promise<OpenedDownload> {
  const subject = options.subject ?? 'recording';
  let url: URL;
  try {
    url = new URL(link);
  } catch {
    return Promise.reject(new DownloadRefusedError(`the ${subject} link is not a URL`));
  }
  const host = bareAddress(url.hostname);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && policy.allowLoopback && isLoopbackHost(host))) {
    return Promise.reject(
      new DownloadRefusedError(`refusing ${url.protocol}// link: the ${subject} is fetched over https only`),
    );
  }
  if (isIP(host) !== 0) {
    const reason = refusedAddress(host, policy);
    if (reason !== undefined) return Promise.reject(new DownloadRefusedError(`refusing ${url.origin}: ${reason}`));
  }

  // Checked where the socket connects, after DNS: a name that resolves inward is refused too.
  const guardedLookup = (
    hostname: string,
    options: object,
    callback: (error: Error | null, address: string | LookupAddress[], family?: number) => void,
  ) => {
    network.lookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, []);
      const list = addresses as LookupAddress[];
      const refused = list.map((a) => refusedAddress(a.address, policy)).find((reason) => reason !== undefined);
      if (refused !== undefined) return callback(new DownloadRefusedError(`refusing ${hostname}: ${refused}`), []);
      const wantsAll = (options as { all?: boolean }).all === true;
      if (wantsAll) return callback(null, list);
      const first = list[0];
      if (first === undefined) return callback(new DownloadRefusedError(`${hostname} did not resolve`), []);
      return callback(null, first.address, first.family);
    });
  };

  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<OpenedDownload>((resolve, reject) => {
    const outgoing = request(
      url,
      {
        method: 'GET',
        ...(options.headers !== undefined && { headers: options.headers }),
        lookup: guardedLookup as never,
        timeout: policy.timeoutMs,
        ...(network.agent === undefined || url.protocol !== 'https:' ? {} : { agent: network.agent }),
      },
      (response) => {
        const status = response.statusCode ?? 0;
        if (status === 304 && options.headers !== undefined) {
          response.resume();
          return resolve({ notModified: true, stream: response, contentType: '', contentLength: 0 });
        }
        if (status === 403 || status === 401 || status === 410) {
          response.resume();
          return reject(new LinkExpiredError(`the ${subject} link answered ${status} (expired or revoked)`));
        }
        if (status !== 200) {
          response.resume();
          return reject(new DownloadFailedError(`the ${subject} link answered ${status}`));
        }
        const length =
          response.headers['content-length'] === undefined ? undefined : Number(response.headers['content-length']);
        if (length !== undefined && length > policy.maxBytes) {
          response.destroy();
          return reject(
            new DownloadRefusedError(`the ${subject} has ${length} bytes; the limit is ${policy.maxBytes}`),
          );
        }
        resolve({
          stream: response,
          contentType: response.headers['content-type'] ?? 'application/octet-stream',
          contentLength: length,
        });
      },
    );
    outgoing.on('timeout', () =>
      outgoing.destroy(new DownloadFailedError(`no answer from the ${subject} link within ${policy.timeoutMs} ms`)),
    );
    outgoing.on('error', (error) =>
      reject(
        error instanceof DownloadRefusedError || error instanceof DownloadFailedError
          ? error
          : new DownloadFailedError(error.message),
      ),
    );
    outgoing.end();
  });
}
