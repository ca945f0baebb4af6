/**
 * The limits that keep one hostile calendar invite (or feed) from becoming
 * thousands of paid bots or from exhausting the sync function: what each limit
 * is, and how a hit is reported. Anyone can put an event into a calendar, so
 * every count that grows with the feed's content is bounded before it is paid for.
 */

/** Every limit a sync or preview can reach; one metric dimension each (METRICS.calendarLimitReached). */
export const CALENDAR_LIMITS = [
  /** The feed holds more current events (or lines) than are read. */
  'events-per-feed',
  /** One event repeats more often in the window than is expanded. */
  'occurrences-per-event',
  /** The feed's occurrences in the window are more than are expanded. */
  'occurrences-per-feed',
  /** Expanding the feed took longer than its budget; the rest was left unexpanded. */
  'expansion-time',
  /** An RRULE repeats more often than hourly, or is written longer than any real rule: never read. */
  'recurrence-rule',
  /** An event repeats more often than daily and the calendar's owner does not organize it. */
  'sub-daily-recurrence',
  /** More new schedules were wanted in one sync than a sync makes. */
  'schedules-per-sync',
  /** More new schedules were wanted in a day (UTC) than a calendar gets. */
  'schedules-per-day',
] as const;

/**
 * The limits only a company calendar's user sync reaches (company/company-sync.ts), besides the
 * schedule limits above; one metric dimension each too.
 */
export const COMPANY_CALENDAR_LIMITS = [
  /** More new schedules were wanted in a day (UTC) than all the users of a company calendar get together. */
  'schedules-per-source-day',
  /** A user's listing held more instances than are kept (PROVIDER_LIMITS.itemsPerUser). */
  'items-per-user',
  /** A Graph listing named more series to fetch the master of than one listing fetches (PROVIDER_LIMITS.seriesMastersPerListing). */
  'series-masters-per-listing',
] as const;
export type CalendarLimit = (typeof CALENDAR_LIMITS)[number] | (typeof COMPANY_CALENDAR_LIMITS)[number];

/** One limit reached, as the preview and the sync result list it. */
export interface LimitReached {
  limit: CalendarLimit;
  /** The event it is about, when it is about one. */
  uid?: string;
  reason: string;
}

/**
 * What reading and expanding one feed may cost. Sized so that the worst feed
 * of MAX_FEED_BYTES stays within about a second and a hundred MiB (`npm run bench`),
 * while a busy calendar (dozens of meetings a week over the longest lookahead) is
 * far from every one of them.
 */
export const EXPANSION_LIMITS = {
  /** Events read from one feed (those outside the window are passed over unread and do not count). */
  eventsPerFeed: 1_000,
  /** Lines read from one feed, over all the events read. */
  linesPerFeed: 50_000,
  /** Occurrences of one event in the window: a daily meeting over the longest lookahead (180 days) fits. */
  occurrencesPerEvent: 200,
  /** Occurrences of the whole feed in the window. */
  occurrencesPerFeed: 5_000,
  /** RDATE values read for one event. */
  rdatesPerEvent: 1_000,
  /** Wall-clock budget for expanding one feed once it is parsed. */
  expansionBudgetMs: 500,
} as const;
export type ExpansionLimits = { [K in keyof typeof EXPANSION_LIMITS]: number };

/** A uid as it may be shown in a reason: an attacker chooses it, so only its start. */
export const shownUid = (uid: string): string => (uid.length > 120 ? `${uid.slice(0, 120)}…` : uid);

/** Limits listed one by one at most per kind; a feed can reach one per event. */
const MAX_LISTED_PER_LIMIT = 20;

/**
 * The limits one feed reached: the first few of each kind listed with their
 * reason, the rest only counted (a hostile feed reaches one per event).
 */
export class LimitLog {
  private readonly listed: LimitReached[] = [];
  private readonly counts = new Map<CalendarLimit, number>();

  /** Records a hit; `reason` is only worked out for the ones listed. */
  add(limit: CalendarLimit, uid: string | undefined, reason: () => string): void {
    const count = (this.counts.get(limit) ?? 0) + 1;
    this.counts.set(limit, count);
    if (count <= MAX_LISTED_PER_LIMIT)
      this.listed.push({ limit, ...(uid !== undefined && { uid: shownUid(uid) }), reason: reason() });
  }

  /** Each hit listed, then one line per kind for those only counted. */
  list(): LimitReached[] {
    const more = [...this.counts]
      .filter(([, count]) => count > MAX_LISTED_PER_LIMIT)
      .map(([limit, count]) => ({ limit, reason: `and ${count - MAX_LISTED_PER_LIMIT} more the same way` }));
    return [...this.listed, ...more];
  }
}
