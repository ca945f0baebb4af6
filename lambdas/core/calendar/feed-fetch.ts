/**
 * Fetching a calendar feed under the recordings' download guard (https only in
 * AWS, no private addresses, size cap, deadline and minimum rate), conditionally:
 * the validators of the copy we hold go along, and a 304 means that copy is current.
 */
import {
  type DownloadNetwork,
  type DownloadPolicy,
  DownloadRefusedError,
  openDownload,
  type TransferLimits,
} from '../archive/download-guard';

/** Feeds past this are refused: a year of a busy calendar is a few MB. */
export const MAX_FEED_BYTES = 8 * 1024 * 1024;
/**
 * The whole fetch, connect to last byte, within 10 s: well inside the API's 29 s
 * with the sync still to run. A feed server may think for a few seconds before its
 * first byte, so the rate is judged over 5 s windows, and 1 KiB/s is far below any
 * real server while a drip of a byte every few seconds is cut off at the first window.
 */
export const FEED_TRANSFER: TransferLimits = { deadlineMs: 10_000, minBytesPerSecond: 1024, rateWindowMs: 5_000 };

export interface FeedValidators {
  etag?: string;
  lastModified?: string;
}

export type FetchedFeed = { changed: false } | { changed: true; body: string; validators: FeedValidators };

export type FeedFetcher = (url: string, held: FeedValidators | undefined) => Promise<FetchedFeed>;

export function guardedFeedFetcher(
  policy: Pick<DownloadPolicy, 'allowLoopback'> & { transfer?: TransferLimits },
  network?: DownloadNetwork,
): FeedFetcher {
  const transfer = policy.transfer ?? FEED_TRANSFER;
  return async (url, held) => {
    const headers: Record<string, string> = { accept: 'text/calendar, */*;q=0.5' };
    if (held?.etag !== undefined) headers['if-none-match'] = held.etag;
    if (held?.lastModified !== undefined) headers['if-modified-since'] = held.lastModified;
    const opened = await openDownload(
      url,
      { allowLoopback: policy.allowLoopback, maxBytes: MAX_FEED_BYTES, transfer },
      network,
      { headers, subject: 'calendar feed' },
    );
    if (opened.notModified === true && held !== undefined) return { changed: false };
    const chunks: Buffer[] = [];
    let bytes = 0;
    for await (const chunk of opened.stream) {
      bytes += (chunk as Buffer).length;
      // A feed without Content-Length is counted as it comes.
      if (bytes > MAX_FEED_BYTES) {
        opened.stream.destroy();
        throw new DownloadRefusedError(`the calendar feed is over ${MAX_FEED_BYTES} bytes`);
      }
      chunks.push(chunk as Buffer);
    }
    const etag = opened.stream.headers.etag;
    const lastModified = opened.stream.headers['last-modified'];
    return {
      changed: true,
      body: Buffer.concat(chunks).toString('utf8'),
      validators: { ...(etag !== undefined && { etag }), ...(lastModified !== undefined && { lastModified }) },
    };
  };
}
