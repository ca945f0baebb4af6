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

export interface TranscriptSearchInput extends DayRange {
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
  elapsed_ms: number;
  query_id?: string;
}

export interface TranscriptSearchPage extends QueryCost {
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

export interface MeetingListInput extends DayRange {
  /** Only meetings whose summary or transcript mentions these words. */
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

export interface MeetingListPage extends QueryCost {
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
