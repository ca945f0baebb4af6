/**
 * Hostile calendars (issue 23, points 1 and 2): the worst feeds we can write at
 * the feed size limit, each read and expanded as a sync does (time and peak
 * memory, each feed in a fresh process so its peak is its own), and the meeting
 * link search over hostile 1 MiB fields.
 */
import { spawnSync } from 'node:child_process';
import { MAX_FEED_BYTES } from '../lambdas/core/calendar/feed-fetch';
import { expandFeed } from '../lambdas/core/calendar/ics-occurrences';
import { findMeetingLink } from '../lambdas/core/calendar/meeting-link';
import { HOSTILE_OWNER, hostileFeeds } from './hostile-feeds';
import { median } from './stats';

const FEED_GOAL_MS = 1_000;
const FEED_GOAL_MIB = 128;
const LINK_GOAL_MS = 50;
const MiB = 1024 * 1024;

/** The environment variable that makes the bench process expand one feed and report, as a child. */
export const FEED_CHILD = 'BENCH_CALENDAR_FEED';

/** In the child: expands the named feed three times over 180 days; prints time (median) and peak RSS growth. */
export function expandHostileFeedChild(name: string): void {
  const build = hostileFeeds(MAX_FEED_BYTES)[name];
  if (build === undefined) throw new Error(`no hostile feed ${name}`);
  const feed = build();
  (globalThis as { gc?: () => void }).gc?.();
  const before = process.memoryUsage().rss;
  const from = new Date('2027-03-01T00:00:00Z');
  const to = new Date(from.getTime() + 180 * 86_400_000);
  const times: number[] = [];
  let summary = '';
  for (let round = 0; round < 3; round++) {
    const start = performance.now();
    const expanded = expandFeed(feed, from, to, { ownerEmails: [HOSTILE_OWNER] });
    times.push(performance.now() - start);
    summary = `${expanded.occurrences.length} occurrences; ${[...new Set(expanded.limits.map((l) => l.limit))].join(', ')}`;
  }
  const peakMiB = (process.resourceUsage().maxRSS * 1024 - before) / MiB;
  console.log(JSON.stringify({ bytes: feed.length, ms: median(times), peakMiB, summary }));
}

function expandInChild(name: string): { bytes: number; ms: number; peakMiB: number; summary: string } {
  const child = spawnSync(process.execPath, ['--expose-gc', process.argv[1] ?? ''], {
    env: { ...process.env, [FEED_CHILD]: name },
    encoding: 'utf8',
    maxBuffer: 16 * MiB,
  });
  const line = child.stdout.trim().split('\n').at(-1) ?? '';
  if (child.status !== 0 || !line.startsWith('{')) throw new Error(`feed ${name}: ${child.stderr || line}`);
  return JSON.parse(line);
}

/** 1 MiB description fields built to be slow to search for a link, each with a real link somewhere. */
function hostileFields(): Record<string, string> {
  const link = 'https://meet.google.com/abc-defg-hij';
  const fill = (unit: string, tail = '') => unit.repeat(Math.floor((MiB - tail.length) / unit.length)) + tail;
  return {
    'unclosed tags after the link': `<p>${link}</p>${fill('<a href="')}`,
    'one 1 MiB link, percent-encoded': `https://zoom.us/j/1?tk=${fill('%2568ttps%253A%252F%252F')}`,
    'links the service refuses, back to back': fill('https://zoom.us/x?pwd=1 '),
    'entities and tags, link at the end': fill('&#99999999999;<b x="1">&amp;', ` ${link}`),
    'one anchor tag with many hrefs': `<a ${fill("href='")}>`,
  };
}

export async function benchCalendar(): Promise<string[]> {
  const feedRows = Object.keys(hostileFeeds(1024)).map((name) => ({ name, ...expandInChild(name) }));
  const slowest = feedRows.reduce((a, b) => (b.ms > a.ms ? b : a));
  const largest = feedRows.reduce((a, b) => (b.peakMiB > a.peakMiB ? b : a));
  const fields = hostileFields();
  const linkRows = Object.entries(fields).map(([name, description]) => {
    const times: number[] = [];
    let outcome = '';
    for (let round = 0; round < 5; round++) {
      // A fresh fields object each round: the search is remembered per event's fields.
      const start = performance.now();
      const found = findMeetingLink({
        conference: [],
        url: undefined,
        location: undefined,
        description,
        descriptionHtml: undefined,
      });
      times.push(performance.now() - start);
      outcome = found.found ? found.url : found.reason;
    }
    return { name, bytes: description.length, ms: median(times), outcome };
  });
  const worstLink = linkRows.reduce((a, b) => (b.ms > a.ms ? b : a));
  return [
    `hostile calendar feeds (issue 23.1): ${MAX_FEED_BYTES} bytes each (the feed limit), read and expanded over 180 days, every event claiming the owner as organizer; median of 3, each in its own process`,
    ...feedRows.map(
      (row) =>
        `  ${row.name.padEnd(44)} ${row.ms.toFixed(0).padStart(6)} ms  peak +${row.peakMiB.toFixed(0).padStart(4)} MiB  ${row.summary}`,
    ),
    `  slowest: ${slowest.ms.toFixed(0)} ms (${slowest.name}) — ${slowest.ms <= FEED_GOAL_MS ? 'meets' : 'MISSES'} goal ≤ ${FEED_GOAL_MS} ms`,
    `  most memory: +${largest.peakMiB.toFixed(0)} MiB (${largest.name}) — ${largest.peakMiB <= FEED_GOAL_MIB ? 'meets' : 'MISSES'} goal ≤ ${FEED_GOAL_MIB} MiB`,
    '',
    'meeting link search (issue 23.2): hostile 1 MiB description fields, median of 5',
    ...linkRows.map(
      (row) => `  ${row.name.padEnd(44)} ${row.ms.toFixed(1).padStart(7)} ms  ${row.outcome.slice(0, 60)}`,
    ),
    `  worst case: ${worstLink.ms.toFixed(1)} ms (${worstLink.name}) — ${worstLink.ms <= LINK_GOAL_MS ? 'meets' : 'MISSES'} goal ≤ ${LINK_GOAL_MS} ms`,
  ];
}
