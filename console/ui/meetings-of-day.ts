/** A UTC day's meetings from the read API, page by page up to a bound: the overview's and the chart's reading. */
import { getJson } from './api';
import type { MeetingList, MeetingListEntry } from './contracts';

export const DAY_MS = 86_400_000;

export interface DayMeetings {
  meetings: MeetingListEntry[];
  /** The day had more pages than `maxPages`: its counts are "at least". */
  truncated: boolean;
}

export async function meetingsOfDay(day: string, maxPages: number): Promise<DayMeetings> {
  const meetings: MeetingListEntry[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const query = new URLSearchParams({ day, limit: '200' });
    if (cursor !== null) query.set('cursor', cursor);
    const page: MeetingList = await getJson<MeetingList>(`/meetings?${query}`);
    meetings.push(...page.meetings);
    cursor = page.next_cursor;
    pages += 1;
  } while (cursor !== null && pages < maxPages);
  return { meetings, truncated: cursor !== null };
}
