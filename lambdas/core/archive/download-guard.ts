/**
 * Opens a recording download link safely: https only (plain http only to
 * loopback, and only in local mode), never to private, loopback, link-local or
 * otherwise internal addresses (checked on the address actually connected to, so
 * DNS rebinding cannot slip past), no redirects, a size cap, and a transfer
 * that must keep moving: an overall deadline from connect to the last byte and a
 * minimum rate over each window, so a server dripping bytes cannot hold the
 * function until its own timeout.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { type ClientRequest, request as httpRequest, type IncomingMessage } from 'node:http';
import { type Agent, request as httpsRequest } from 'node:https';
import { isIP, type Socket } from 'node:net';
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

/** Why a transfer was cut off: past its overall deadline, or slower than its minimum rate. */
export const CUT_OFF_REASONS = ['deadline', 'too-slow'] as const;
export type CutOffReason = (typeof CUT_OFF_REASONS)[number];

/**
 * The transfer was cut off by its deadline or minimum rate. Not worth a fresh link
 * in the same run (another try could not finish in the time left): the caller's
 * queue or next sync tries again later.
 */
export class DownloadCutOffError extends DownloadFailedError {
  override name = 'DownloadCutOffError';
  constructor(
    readonly reason: CutOffReason,
    message: string,
  ) {
    super(message);
  }
}

/** How long a transfer may take, and how fast it must keep moving. */
export interface TransferLimits {
  /** From the first connect to the last byte of the body. */
  deadlineMs: number;
  /** Each window (the first one included, so a slow start is its grace) must carry this rate on average. */
  minBytesPerSecond: number;
  rateWindowMs: number;
}

export interface DownloadPolicy {
  /** Local mode: allow plain http to 127.0.0.1/::1 (the simulated service). */
  allowLoopback: boolean;
  maxBytes: number;
  transfer: TransferLimits;
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
    let received: IncomingMessage | undefined;
    const outgoing = request(
      url,
      {
        method: 'GET',
        ...(options.headers !== undefined && { headers: options.headers }),
        lookup: guardedLookup as never,
        ...(network.agent === undefined || url.protocol !== 'https:' ? {} : { agent: network.agent }),
      },
      (response) => {
        received = response;
        response.once('close', () => limits.stop());
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
    // Either side is destroyed with the reason: before the answer the request fails
    // with it, after it the body stream the caller reads does.
    const limits = watchTransfer(policy.transfer, subject, outgoing, (error) =>
      received === undefined ? outgoing.destroy(error) : received.destroy(error),
    );
    outgoing.once('close', () => {
      if (received === undefined) limits.stop();
    });
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

/** Checks per window at most this often, so a short window in a test is as exact as a long one in production. */
const MAX_CHECKS_PER_WINDOW = 4;

/**
 * Cuts a transfer off at its deadline, or at the end of a window that carried too
 * few bytes. Bytes are those the socket read (headers and body), counted from the
 * moment the request got its socket (a kept-alive socket has read earlier bodies).
 */
function watchTransfer(
  limits: TransferLimits,
  subject: string,
  outgoing: ClientRequest,
  cutOff: (error: DownloadCutOffError) => void,
): { stop(): void } {
  const startedAt = Date.now();
  let socket: Socket | undefined;
  let baseline = 0;
  outgoing.once('socket', (assigned) => {
    socket = assigned;
    baseline = assigned.bytesRead;
  });
  const read = () => (socket === undefined ? 0 : socket.bytesRead - baseline);
  let windowStart = { at: startedAt, bytes: 0 };
  const deadline = setTimeout(() => {
    stop();
    cutOff(
      new DownloadCutOffError(
        'deadline',
        `the ${subject} did not arrive within ${limits.deadlineMs} ms (${read()} bytes received)`,
      ),
    );
  }, limits.deadlineMs);
  const rate = setInterval(
    () => {
      const now = Date.now();
      const elapsed = now - windowStart.at;
      if (elapsed < limits.rateWindowMs) return;
      const bytes = read() - windowStart.bytes;
      const bytesPerSecond = (bytes * 1000) / elapsed;
      if (bytesPerSecond < limits.minBytesPerSecond) {
        stop();
        cutOff(
          new DownloadCutOffError(
            'too-slow',
            `the ${subject} arrived at ${Math.floor(bytesPerSecond)} bytes/s over ${elapsed} ms; the minimum is ${limits.minBytesPerSecond}`,
          ),
        );
        return;
      }
      windowStart = { at: now, bytes: read() };
    },
    Math.max(1, Math.floor(limits.rateWindowMs / MAX_CHECKS_PER_WINDOW)),
  );
  // Neither timer keeps a process alive on its own.
  deadline.unref();
  rate.unref();
  function stop() {
    clearTimeout(deadline);
    clearInterval(rate);
  }
  return { stop };
}
