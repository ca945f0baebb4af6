/**
 * Searching meetings over a date range. Inside the recent window (the last `maxDays` UTC days) the
 * read API lists one day per call, so this walks the days newest first; a range longer than that,
 * or reaching before it, is listed by the meetings lake instead (no cap on days), when the server
 * has one. Either way each candidate's details come from the read API, and the search stops at
 * bounds (results, meetings examined) saying so, so one search never turns into thousands of calls.
 */
import { z } from 'zod';
import type { MeetingListInput, MeetingListPage } from '../../lambdas/core/lake/lake-questions-contract';
import { MAX_PAGE_SIZE, type MeetingListEntry, meetingListEntry } from '../../lambdas/core/read/read-api-contract';
import { ApiError } from '../api';
import { daySpan, daysBefore, daysNewestFirst, utcDay } from './days';
import { costOf } from './lake-calls';
import type { MeetingReader } from './meeting-reader';

export const SEARCH_LIMITS = {
  maxDays: 31,
  /** Days searched when no `from` is given: the week up to `to`. */
  defaultDays: 7,
  defaultResults: 20,
  maxResults: 50,
  /** Meetings whose details are read, at most, in one search. */
  maxExamined: 200,
  /** Detail reads in flight at once. */
  concurrency: 6,
  summaryExcerptChars: 300,
  /** Meetings asked of the lake per page. */
  lakePage: 100,
} as const;

/** Lists archived meetings from the lake (listLakeMeetings on the server's engine). */
export type LakeMeetingLister = (input: MeetingListInput) => Promise<MeetingListPage>;

export interface SearchCriteria {
  from?: string;
  to?: string;
  state?: string;
  participant?: string;
  keywords?: string;
  limit?: number;
}

export const foundMeeting = z.object({
  ...meetingListEntry.shape,
  day: z.string().describe('The UTC day it is listed under.'),
  summary_excerpt: z.string().nullable(),
  utterance_count: z.number().int(),
  participant_count: z.number().int(),
  participant_names: z.array(z.string()).nullable().describe('Given when the search filtered by participant.'),
});
export type FoundMeeting = z.infer<typeof foundMeeting>;

export const searchResult = z.object({
  source: z
    .enum(['read_api', 'lake'])
    .describe(
      'read_api: the recent window, listed day by day from the meeting table; lake: the meetings lake (archived meetings, all time).',
    ),
  from: z.string(),
  to: z.string(),
  days_searched: z.number().int(),
  meetings_examined: z.number().int(),
  meetings: z.array(foundMeeting),
  truncated: z.boolean().describe('True when more meetings may match than are listed: see note.'),
  note: z.string(),
  lake: z
    .object({ engine: z.enum(['athena', 'duckdb']), bytes_scanned: z.number(), elapsed_ms: z.number() })
    .nullable()
    .describe('What the lake queries cost, when the lake answered.'),
});
export type SearchResult = z.infer<typeof searchResult>;

const words = (text: string | undefined): string[] =>
  (text ?? '')
    .toLowerCase()
    .split(/\s+/)
    .filter((w) => w !== '');

const excerpt = (summary: string | null): string | null =>
  summary === null || summary.length <= SEARCH_LIMITS.summaryExcerptChars
    ? summary
    : `${summary.slice(0, SEARCH_LIMITS.summaryExcerptChars)}…`;

/** The range a search asks for: `to` defaults to today, `from` to the week before it. */
export function searchRange(criteria: SearchCriteria, now: Date): { from: string; to: string } {
  const to = criteria.to ?? utcDay(now);
  return { from: criteria.from ?? daysBefore(to, SEARCH_LIMITS.defaultDays - 1), to };
}

/** Whether the range goes past the recent window (longer than it, or starting before it): the lake's to answer. */
export function beyondRecentWindow(criteria: SearchCriteria, now: Date): boolean {
  const { from, to } = searchRange(criteria, now);
  const windowStart = daysBefore(utcDay(now), SEARCH_LIMITS.maxDays - 1);
  return from < windowStart || daySpan(from, to) > SEARCH_LIMITS.maxDays;
}

/** Reads a candidate's details and checks the filters the list did not apply; undefined when it does not match. */
type Examine = (botId: string, day: string) => Promise<FoundMeeting | undefined>;

function examiner(
  reader: MeetingReader,
  criteria: SearchCriteria,
  checks: { keywords: boolean; state: boolean },
): Examine {
  const keywords = checks.keywords ? words(criteria.keywords) : [];
  const participant = criteria.participant?.trim().toLowerCase();
  return async (botId, day) => {
    const meeting = await reader.meeting(botId);
    if (checks.state && criteria.state !== undefined && meeting.state !== criteria.state) return undefined;
    // The meeting's name here is its schedule id (and link): the read API has no separate title.
    const haystack = [meeting.schedule_id, meeting.meeting_url, meeting.summary].join('\n').toLowerCase();
    if (!keywords.every((word) => haystack.includes(word))) return undefined;
    let names: string[] | null = null;
    if (participant !== undefined && participant !== '') {
      const { participants } = await reader.participants(botId);
      names = participants.map((p) => p.name ?? p.participant_uuid);
      if (!names.some((name) => name.toLowerCase().includes(participant))) return undefined;
    }
    return {
      ...meetingListEntry.parse(meeting),
      day,
      summary_excerpt: excerpt(meeting.summary),
      utterance_count: meeting.utterance_count,
      participant_count: meeting.participant_count,
      participant_names: names,
    };
  };
}

/**
 * Finds meetings: the recent window through the read API, a range past it through the lake when
 * `lake` is given (otherwise refused past `maxDays` days, as before).
 */
export async function searchMeetings(
  reader: MeetingReader,
  criteria: SearchCriteria,
  now: Date = new Date(),
  lake?: LakeMeetingLister,
): Promise<SearchResult> {
  if (lake !== undefined && beyondRecentWindow(criteria, now)) return searchLake(reader, lake, criteria, now);
  return searchRecent(reader, criteria, now);
}

/** Candidates examined in batches until `limit` + 1 match (which tells the answer is cut) or the bound. */
class Collector {
  readonly found: FoundMeeting[] = [];
  examined = 0;
  moreMatches = false;
  stoppedAt: string | undefined;

  constructor(
    private readonly examine: Examine,
    private readonly limit: number,
  ) {}

  /** False once the search must stop. */
  async take(candidates: ReadonlyArray<{ botId: string; day: string }>): Promise<boolean> {
    for (let i = 0; i < candidates.length; ) {
      const room = SEARCH_LIMITS.maxExamined - this.examined;
      if (room === 0) {
        this.stoppedAt = candidates[i]?.day;
        return false;
      }
      const batch = candidates.slice(i, i + Math.min(SEARCH_LIMITS.concurrency, room));
      i += batch.length;
      this.examined += batch.length;
      const matches = await Promise.all(batch.map((c) => this.examine(c.botId, c.day)));
      this.found.push(...matches.filter((m): m is FoundMeeting => m !== undefined));
      if (this.found.length > this.limit) {
        this.moreMatches = true;
        return false;
      }
    }
    return true;
  }

  truncationNotes(narrow: string): string[] {
    const notes: string[] = [];
    if (this.moreMatches)
      notes.push(
        `Truncated: more meetings match; narrow the date range or filters, or raise limit (at most ${SEARCH_LIMITS.maxResults}).`,
      );
    if (this.stoppedAt !== undefined)
      notes.push(
        `Truncated: stopped after examining ${SEARCH_LIMITS.maxExamined} meetings, on ${this.stoppedAt}; that day and those before it were not fully searched: ${narrow}.`,
      );
    return notes;
  }
}

async function searchRecent(reader: MeetingReader, criteria: SearchCriteria, now: Date): Promise<SearchResult> {
  const { from, to } = searchRange(criteria, now);
  const days = daysNewestFirst(from, to, SEARCH_LIMITS.maxDays);
  const limit = criteria.limit ?? SEARCH_LIMITS.defaultResults;
  // The list call filters by state already.
  const collector = new Collector(examiner(reader, criteria, { keywords: true, state: false }), limit);
  let daysSearched = 0;
  search: for (const day of days) {
    daysSearched += 1;
    let cursor: string | undefined;
    do {
      const page = await reader.listDay({
        day,
        limit: MAX_PAGE_SIZE,
        ...(criteria.state !== undefined && { state: criteria.state }),
        ...(cursor !== undefined && { cursor }),
      });
      cursor = page.next_cursor ?? undefined;
      if (!(await collector.take(page.meetings.map((m: MeetingListEntry) => ({ botId: m.bot_id, day }))))) break search;
    } while (cursor !== undefined);
  }

  const range = from === to ? `${from} (UTC)` : `${from} to ${to} (UTC)`;
  const notes = [
    `${Math.min(collector.found.length, limit)} meeting(s) found on ${range}, newest day first, from the read API (the recent window); ${daysSearched} of ${days.length} day(s) searched, one read API call per day, ${collector.examined} meeting(s) examined.`,
    ...collector.truncationNotes('narrow the date range or add a state filter'),
  ];
  return {
    source: 'read_api',
    from,
    to,
    days_searched: daysSearched,
    meetings_examined: collector.examined,
    meetings: collector.found.slice(0, limit),
    truncated: collector.moreMatches || collector.stoppedAt !== undefined,
    note: notes.join(' '),
    lake: null,
  };
}

async function searchLake(
  reader: MeetingReader,
  list: LakeMeetingLister,
  criteria: SearchCriteria,
  now: Date,
): Promise<SearchResult> {
  const { from, to } = searchRange(criteria, now);
  const span = daySpan(from, to);
  const limit = criteria.limit ?? SEARCH_LIMITS.defaultResults;
  const examine = examiner(reader, criteria, { keywords: false, state: true });
  let gone = 0;
  // A meeting the lake still lists but the table no longer holds (erased or expired between the two) is skipped, and counted.
  const collector = new Collector(async (botId, day) => {
    try {
      return await examine(botId, day);
    } catch (error) {
      if (!(error instanceof ApiError && error.status === 404)) throw error;
      gone += 1;
      return undefined;
    }
  }, limit);
  const cost = { engine: 'duckdb' as 'athena' | 'duckdb', bytes_scanned: 0, elapsed_ms: 0, queries: 0 };
  let cursor: string | undefined;
  do {
    const page = await list({
      from,
      to,
      limit: SEARCH_LIMITS.lakePage,
      ...(criteria.keywords !== undefined && { words: criteria.keywords }),
      ...(cursor !== undefined && { cursor }),
    });
    cost.engine = page.engine;
    cost.bytes_scanned += page.bytes_scanned;
    cost.elapsed_ms += page.elapsed_ms;
    cost.queries += page.queries;
    cursor = page.next_cursor ?? undefined;
    if (!(await collector.take(page.meetings.map((m) => ({ botId: m.bot_id, day: m.day }))))) break;
  } while (cursor !== undefined);

  const range = from === to ? `${from} (UTC)` : `${from} to ${to} (UTC)`;
  const matched = criteria.keywords === undefined ? '' : ` whose summary or transcript says "${criteria.keywords}"`;
  const notes = [
    `${Math.min(collector.found.length, limit)} meeting(s)${matched} found on ${range}, newest first, from the meetings lake (archived meetings; the range goes past the recent ${SEARCH_LIMITS.maxDays} days; ${costOf(cost)}); details from the read API, ${collector.examined} meeting(s) examined.`,
    ...(gone === 0
      ? []
      : [`${gone} meeting(s) the lake lists are no longer in the meeting table (erased or expired) and were skipped.`]),
    ...collector.truncationNotes('narrow the date range, or add keywords'),
  ];
  return {
    source: 'lake',
    from,
    to,
    days_searched: span,
    meetings_examined: collector.examined,
    meetings: collector.found.slice(0, limit),
    truncated: collector.moreMatches || collector.stoppedAt !== undefined,
    note: notes.join(' '),
    lake: cost,
  };
}
