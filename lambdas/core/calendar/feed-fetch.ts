/**
 * Fetching a calendar feed under the recordings' download guard (https only in
 * AWS, no private addresses, size cap, timeout), conditionally: the validators of
 * the copy we hold go along, and a 304 means that copy is current.
 */
import {
  type DownloadNetwork,
  type DownloadPolicy,
  DownloadRefusedError,
  openDownload,
} from '../archive/download-guard';

/** Feeds past this are refused: a year of a busy calendar is a few MB. */
export const MAX_FEED_BYTES = 8 * 1024 * 1024;
/** Well inside the API's 30 s, with the sync still to run. */
export const FEED_TIMEOUT_MS = 10_000;

export interface FeedValidators {
  etag?: string;
  lastModified?: string;
}

export type FetchedFeed = { changed: false } | { changed: true; body: string; validators: FeedValidators };

export type FeedFetcher = (url: string, held: FeedValidators | undefined) => Promise<FetchedFeed>;

export function guardedFeedFetcher(
  policy: Pick<DownloadPolicy, 'allowLoopback'>,
  network?: DownloadNetwork,
): FeedFetcher {
  return async (url, held) => {
    const headers: Record<string, string> = { accept: 'text/calendar, */*;q=0.5' };
    if (held?.etag !== undefined) headers['if-none-match'] = held.etag;
    if (held?.lastModified !== undefined) headers['if-modified-since'] = held.lastModified;
    const opened = await openDownload(
      url,
      { allowLoopback: policy.allowLoopback, maxBytes: MAX_FEED_BYTES, timeoutMs: FEED_TIMEOUT_MS },
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
