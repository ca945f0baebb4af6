/**
 * The questions the lake answers for people (CLI), assistants (MCP) and other systems (the read
 * API's search routes), pinned as types: lake-questions.ts holds one SQL text per question and
 * lake-search.ts the functions below, which run it on any LakeEngine and shape the answer.
 * Inputs are validated there (zod): dates `yyyy-MM-dd`, words 1–200 characters, limits 1–100.
 */
import type { LakeEngine, LakeRunOptions } from './lake-engine';

/** A day range, both ends included; unset ends mean all time (from the lake's first day to today). */
export interface DayRange {
  from?: string;
  to?: string;
}

/**
 * How a search over words walks the days: newest first, one window of `windowDays` days a query,
 * at most `maxWindows` queries a page (so one page never scans more than that many days' text).
 */
export interface SearchWindows {
  /** "Today" for an unset `to` (UTC day of the caller's clock; default: new Date()). */
  now?: Date;
  /** Days per query (1–366, default 31). */
  windowDays?: number;
  /** Queries per page at most (1–100, default 24: about two years); then the page ends with a cursor to go on. */
  maxWindows?: number;
}

export interface TranscriptSearchInput extends DayRange, SearchWindows {
  /** Words to find (case-insensitive, as one phrase). */
  words: string;
  /** Only lines of speakers whose name contains this (case-insensitive). */
  speaker?: string;
  /** Hits per page (1–100, default 20). */
  limit?: number;
  /** The previous page's `next_cursor`. */
  cursor?: string;
}

export interface TranscriptHit {
  bot_id: string;
  day: string;
  /** When the meeting started (ISO), for "newest first". */
  started_at: string | null;
  offset_ms: number;
  /** `HH:MM:SS` of offset_ms, as the CLI prints it in brackets. */
  offset: string;
  speaker: string;
  /** The matched line, cut to about 200 characters around the first match. */
  snippet: string;
}

export interface QueryCost {
  engine: 'athena' | 'duckdb';
  bytes_scanned: number;
  /** Summed over the queries the answer ran. */
  elapsed_ms: number;
  /** Queries run (a search runs one per window of days, plus one for the lake's first day). */
  queries: number;
  /** The last query's id. */
  query_id?: string;
}

/** Where a windowed search stopped. */
export interface SearchedThrough {
  /**
   * The oldest day this page covered: every hit of the range on a later day (and on this day, up
   * to the page's last hit) is on this page or an earlier one. A page may hold fewer than `limit`
   * hits and still have a next_cursor when it stopped at maxWindows: "searched back to DAY".
   * null when the range holds no day.
   */
  searched_through: string | null;
}

export interface TranscriptSearchPage extends QueryCost, SearchedThrough {
  hits: TranscriptHit[];
  /** Pass as `cursor` for the next page; null on the last. */
  next_cursor: string | null;
}

export interface SpeakerTalkTime {
  speaker: string;
  talk_ms: number;
  utterances: number;
  meetings: number;
}

export interface ParticipantMeetings {
  name: string;
  meetings: number;
}

export interface MeetingsOnDay {
  day: string;
  meetings: number;
  duration_ms: number;
}

export interface LakeMeeting {
  bot_id: string;
  day: string;
  started_at: string | null;
  ended_at: string | null;
  state: string | null;
  duration_ms: number | null;
  utterance_count: number;
  participant_count: number;
  summary: string | null;
}

export interface MeetingListInput extends DayRange, SearchWindows {
  /** Only meetings whose summary or transcript mentions these words (then windowed like a search; without, one query). */
  words?: string;
  limit?: number;
  cursor?: string;
}

export const STATS_QUESTIONS = ['talk-time', 'meetings-per-participant', 'meetings-per-day'] as const;
export type StatsQuestion = (typeof STATS_QUESTIONS)[number];

export interface StatsInput extends DayRange {
  question: StatsQuestion;
  /** Rows at most (1–1000, default 100), largest first. */
  limit?: number;
}

export type StatsAnswer =
  | ({ question: 'talk-time'; rows: SpeakerTalkTime[] } & QueryCost)
  | ({ question: 'meetings-per-participant'; rows: ParticipantMeetings[] } & QueryCost)
  | ({ question: 'meetings-per-day'; rows: MeetingsOnDay[] } & QueryCost);

export interface MeetingListPage extends QueryCost, SearchedThrough {
  meetings: LakeMeeting[];
  next_cursor: string | null;
}

/** A caller's input was refused (a 400 at the route, a one-line error in the CLI). */
export class LakeInputError extends Error {
  override name = 'LakeInputError';
}

/** The functions lake-search.ts exports (each validates its input and throws LakeInputError). */
export interface LakeSearchFunctions {
  searchTranscripts(
    engine: LakeEngine,
    input: TranscriptSearchInput,
    options?: LakeRunOptions,
  ): Promise<TranscriptSearchPage>;
  lakeStats(engine: LakeEngine, input: StatsInput, options?: LakeRunOptions): Promise<StatsAnswer>;
  listLakeMeetings(engine: LakeEngine, input: MeetingListInput, options?: LakeRunOptions): Promise<MeetingListPage>;
}
