/**
 * A calendar's occurrences now: the feed fetched conditionally (a 304 reuses the
 * copy kept from the last fetch) and expanded over the window asked for. The
 * window slides with time, so even an unchanged feed is expanded again.
 */
import type { ExpansionLimits } from './calendar-limits';
import type { CalendarSource } from './calendar-source';
import type { CalendarStore } from './calendar-store';
import type { FeedFetcher } from './feed-fetch';
import { type ExpandedFeed, expandFeed, type Occurrence } from './ics-occurrences';
import type { UrlSealer } from './url-sealer';

export interface FeedDependencies {
  store: CalendarStore;
  sealer: UrlSealer;
  fetchFeed: FeedFetcher;
  /** What reading and expanding one feed may cost; EXPANSION_LIMITS unless given. */
  expansionLimits?: ExpansionLimits;
  now(): number;
}

export interface LoadedFeed extends ExpandedFeed {
  occurrences: Occurrence[];
  /** The server answered 304: the kept copy was expanded. */
  notModified: boolean;
  /** Events in the feed, in the window or not: a sync that finds no occurrence can say why. */
  events: number;
}

const DAY_MS = 86_400_000;

export async function loadOccurrences(
  source: CalendarSource,
  days: number,
  deps: FeedDependencies,
): Promise<LoadedFeed> {
  const url = await deps.sealer.open(source.sealedIcsUrl, source.calendarId);
  const kept = await deps.store.getFeed(source.calendarId);
  const fetched = await deps.fetchFeed(url, kept?.validators);
  let body: string;
  if (fetched.changed || kept === undefined) {
    if (!fetched.changed) throw new Error('the feed answered 304 to a request without validators');
    body = fetched.body;
    await deps.store.putFeed(source.calendarId, body, fetched.validators);
  } else {
    body = kept.body;
  }
  const now = deps.now();
  const expanded = expandFeed(body, new Date(now), new Date(now + days * DAY_MS), {
    ownerEmails: source.rules.owner_emails,
    ...(deps.expansionLimits !== undefined && { limits: deps.expansionLimits }),
  });
  return { ...expanded, notModified: !fetched.changed, events: body.match(/^BEGIN:VEVENT\r?$/gm)?.length ?? 0 };
}
