/**
 * Searching meetings over a date range: the read API lists one UTC day per call, so this
 * walks the days newest first, reads each candidate's details, and stops at bounds
 * (results, meetings examined) saying so, so one search never turns into thousands of calls.
 */
import { z } from 'zod';
import { MAX_PAGE_SIZE, type MeetingListEntry, meetingListEntry } from '../../lambdas/core/read/read-api-contract';
import { daysBefore, daysNewestFirst, utcDay } from './days';
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
} as const;

export interface SearchCriteria {
  from?: string;
  to?: string;
  state?: string;
  participant?: string;
  keywords?: string;
  limit?: number;
}

export const foundMeeting = meetingListEntry.extend({
  day: z.string().describe('The UTC day it is listed under.'),
  summary_excerpt: z.string().nullable(),
  utterance_count: z.number().int(),
  participant_count: z.number().int(),
  participant_names: z.array(z.string()).nullable().describe('Given when the search filtered by participant.'),
});
export type FoundMeeting = z.infer<typeof foundMeeting>;

export const searchResult = z.object({
  from: z.string(),
  to: z.string(),
  days_searched: z.number().int(),
  meetings_examined: z.number().int(),
  meetings: z.array(foundMeeting),
  truncated: z.boolean().describe('True when more meetings may match than are listed: see note.'),
  note: z.string(),
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

export async function searchMeetings(
  reader: MeetingReader,
  criteria: SearchCriteria,
  now: Date = new Date(),
): Promise<SearchResult> {
  const to = criteria.to ?? utcDay(now);
  const from = criteria.from ?? daysBefore(to, SEARCH_LIMITS.defaultDays - 1);
  const days = daysNewestFirst(from, to, SEARCH_LIMITS.maxDays);
  const limit = criteria.limit ?? SEARCH_LIMITS.defaultResults;
  const keywords = words(criteria.keywords);
  const participant = criteria.participant?.trim().toLowerCase();

  /** Reads a listed meeting's details; undefined when it does not match. */
  const examine = async (entry: MeetingListEntry, day: string): Promise<FoundMeeting | undefined> => {
    const meeting = await reader.meeting(entry.bot_id);
    // The meeting's name here is its schedule id (and link): the read API has no separate title.
    const haystack = [meeting.schedule_id, meeting.meeting_url, meeting.summary].join('\n').toLowerCase();
    if (!keywords.every((word) => haystack.includes(word))) return undefined;
    let names: string[] | null = null;
    if (participant !== undefined && participant !== '') {
      const { participants } = await reader.participants(entry.bot_id);
      names = participants.map((p) => p.name ?? p.participant_uuid);
      if (!names.some((name) => name.toLowerCase().includes(participant))) return undefined;
    }
    return {
      ...entry,
      day,
      summary_excerpt: excerpt(meeting.summary),
      utterance_count: meeting.utterance_count,
      participant_count: meeting.participant_count,
      participant_names: names,
    };
  };

  const found: FoundMeeting[] = [];
  let examined = 0;
  let daysSearched = 0;
  let stoppedAt: string | undefined;
  let moreMatches = false;
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
      const entries = page.meetings;
      for (let i = 0; i < entries.length; ) {
        const room = SEARCH_LIMITS.maxExamined - examined;
        if (room === 0) {
          stoppedAt = day;
          break search;
        }
        const batch = entries.slice(i, i + Math.min(SEARCH_LIMITS.concurrency, room));
        i += batch.length;
        examined += batch.length;
        const matches = await Promise.all(batch.map((entry) => examine(entry, day)));
        found.push(...matches.filter((m): m is FoundMeeting => m !== undefined));
        // One more than asked for tells that the answer is cut short.
        if (found.length > limit) {
          moreMatches = true;
          break search;
        }
      }
    } while (cursor !== undefined);
  }

  const range = from === to ? `${from} (UTC)` : `${from} to ${to} (UTC)`;
  const notes = [
    `${Math.min(found.length, limit)} meeting(s) found on ${range}, newest day first; ${daysSearched} of ${days.length} day(s) searched, one read API call per day, ${examined} meeting(s) examined.`,
  ];
  if (moreMatches)
    notes.push(
      `Truncated: more meetings match; narrow the date range or filters, or raise limit (at most ${SEARCH_LIMITS.maxResults}).`,
    );
  if (stoppedAt !== undefined)
    notes.push(
      `Truncated: stopped after examining ${SEARCH_LIMITS.maxExamined} meetings, on ${stoppedAt}; that day and those before it were not fully searched: narrow the date range or add a state filter.`,
    );
  return {
    from,
    to,
    days_searched: daysSearched,
    meetings_examined: examined,
    meetings: found.slice(0, limit),
    truncated: moreMatches || stoppedAt !== undefined,
    note: notes.join(' '),
  };
}
