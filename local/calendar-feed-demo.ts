/**
 * `npm run dev -- --calendar <path, URL or "sample">`: registers a calendar in the local
 * stack through its own routes (a file, or the sample feed dated from today, is served
 * from 127.0.0.1 first), syncs it, and prints each occurrence's decision and reason in the
 * timeline, and what the sync made of them (with why, when it scheduled nothing).
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { listenOnLoopback } from './loopback-host';
import { SAMPLE_RULES, sampleCalendarFeed } from './sample-calendar';

export interface CalendarDemoOptions {
  source: string;
  /** The local HTTP API base (calendar routes). */
  apiUrl: string;
  print(line: string): void;
  stamp(): string;
}

/** Serves a feed at /calendar.ics on 127.0.0.1; read on every request, so a file's edits show on the next sync. */
export async function serveFeed(read: () => string | Buffer): Promise<{ url: string; stop(): Promise<void> }> {
  const { server, port } = await listenOnLoopback((_request, response) => {
    // Read before the head goes out: a file gone since (or unreadable) is a 404, not a second head.
    let feed: string | Buffer;
    try {
      feed = read();
    } catch {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'content-type': 'text/calendar; charset=utf-8' }).end(feed);
  });
  return {
    url: `http://127.0.0.1:${port}/calendar.ics`,
    stop: () => new Promise<void>((done) => server.close(() => done())),
  };
}

/** Calls a local route; a refusal throws with its status and answer. */
export async function call(method: string, url: string, body?: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(url, {
    method,
    ...(body !== undefined && { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  });
  const answer = (await response.json()) as Record<string, unknown>;
  if (!response.ok) throw new Error(`${method} ${new URL(url).pathname}: ${response.status} ${JSON.stringify(answer)}`);
  return answer;
}

interface PreviewRow {
  start: string;
  title: string;
  decision: string;
  reason: string;
  meeting_url: string | null;
}

export async function runCalendarDemo(options: CalendarDemoOptions): Promise<{ stop(): Promise<void> }> {
  const isUrl = /^https?:\/\//.test(options.source);
  const isSample = options.source === 'sample';
  const path = resolve(options.source);
  const served = isUrl
    ? undefined
    : await serveFeed(isSample ? () => sampleCalendarFeed(Date.now()) : () => readFileSync(path));
  const icsUrl = served?.url ?? options.source;
  const base = `${options.apiUrl}/calendars/dev`;
  // Your own file, on this machine: every meeting in it is joined (a deployment's default joins only what the owner organized or accepted).
  await call('PUT', base, { ics_url: icsUrl, lookahead_days: 14, rules: isSample ? SAMPLE_RULES : { join: 'all' } });
  options.print(
    `${options.stamp()}  calendar dev: registered ${isUrl ? 'the feed' : isSample ? 'the sample feed (dated from today)' : options.source}`,
  );
  const preview = await call('GET', `${base}/preview?days=14`);
  for (const row of preview.occurrences as PreviewRow[])
    options.print(
      `${options.stamp()}  calendar dev: ${row.start}  ${row.decision.padEnd(4)}  ${row.title}  ${row.meeting_url ?? ''}  (${row.reason})`,
    );
  const sync = await call('POST', `${base}/sync`);
  options.print(
    `${options.stamp()}  calendar dev: synced: created ${sync.created}, moved ${sync.moved}, cancelled ${sync.cancelled}, unchanged ${sync.unchanged}, skipped ${sync.skipped}${(sync.failed as unknown[]).length > 0 ? `, failed ${JSON.stringify(sync.failed)}` : ''}`,
  );
  options.print(`${options.stamp()}  calendar dev: ${sync.explain}`);
  options.print(
    `  sync again: curl -X POST ${base}/sync   schedules: curl '${options.apiUrl}/schedules?calendar_id=dev'`,
  );
  return { stop: async () => served?.stop() };
}
