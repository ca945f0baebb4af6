/**
 * The lake's questions as functions (LakeSearchFunctions): validate the input (zod; a refusal is a
 * LakeInputError), run the question's one SQL text (lake-questions.ts) on whichever LakeEngine the
 * caller has, and shape the rows. Callers emit the metrics (they know their route or tool).
 *
 * Paging is keyset, not OFFSET: the cursor is the sort key of the page's last row (base64url JSON),
 * and the next page asks for rows after it. Athena and DuckDB both still read every matching line
 * either way, but OFFSET would make each later page sort and skip all earlier hits again (a top-N
 * of offset+limit rows), and, worse, a meeting archived between two pages would shift every later
 * hit by its count, showing some twice. After a keyset, a page is the same whatever was added
 * before it, so paging covers every hit exactly once.
 */
import { z } from 'zod';
import { type LakeEngine, type LakeResult, type LakeRunOptions, type LakeValue, resultObjects } from './lake-engine';
import {
  type DayBounds,
  type HitPosition,
  type MeetingPosition,
  meetingListQuery,
  meetingsPerDayQuery,
  meetingsPerParticipantQuery,
  searchQuery,
  talkTimeQuery,
} from './lake-questions';
import {
  type DayRange,
  LakeInputError,
  type LakeMeeting,
  type LakeSearchFunctions,
  type MeetingListInput,
  type MeetingListPage,
  type QueryCost,
  STATS_QUESTIONS,
  type StatsAnswer,
  type StatsInput,
  type TranscriptHit,
  type TranscriptSearchInput,
  type TranscriptSearchPage,
} from './lake-questions-contract';

/** About this many characters of a line are shown around its first match. */
export const SNIPPET_CHARS = 200;
const FIRST_DAY = '0000-01-01';
const LAST_DAY = '9999-12-31';

/** `HH:MM:SS` of a millisecond offset (hours grow past 99 rather than wrap; below zero reads 00:00:00). */
export function formatOffset(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  const two = (n: number) => String(n).padStart(2, '0');
  return `${two(Math.floor(seconds / 3600))}:${two(Math.floor(seconds / 60) % 60)}:${two(seconds % 60)}`;
}

/**
 * About SNIPPET_CHARS characters of `text` around the first case-insensitive occurrence of `words`
 * (the start of the text when it is not found), `…` where it was cut, whitespace runs as one space.
 */
export function snippetOf(text: string, words: string, textCutBefore = false): string {
  const match = new RegExp(words.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'iu').exec(text);
  const at = match?.index ?? 0;
  const length = match?.[0].length ?? 0;
  const room = Math.max(0, SNIPPET_CHARS - length);
  let start = Math.max(0, at - Math.floor(room / 2));
  const end = Math.min(text.length, start + length + room);
  start = Math.max(0, Math.min(start, end - SNIPPET_CHARS));
  // Never split a surrogate pair at either end.
  if (start > 0 && /[\uDC00-\uDFFF]/.test(text[start] ?? '')) start--;
  const stop = end < text.length && /[\uDC00-\uDFFF]/.test(text[end] ?? '') ? end + 1 : end;
  const body = text.slice(start, stop).replace(/\s+/g, ' ');
  return `${start > 0 || textCutBefore ? '…' : ''}${body}${stop < text.length ? '…' : ''}`;
}

const day = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date yyyy-MM-dd')
  .refine((value) => {
    const date = new Date(`${value}T00:00:00Z`);
    return !Number.isNaN(date.getTime()) && date.toISOString().startsWith(value);
  }, 'is not a calendar date');
const words = z.string().trim().min(1, 'must not be empty').max(200, 'must be at most 200 characters');
const pageLimit = z.number().int().min(1).max(100).default(20);
const rangeShape = { from: day.optional(), to: day.optional() };

const searchInput = z.object({
  ...rangeShape,
  words,
  speaker: words.optional(),
  limit: pageLimit,
  cursor: z.string().max(2000).optional(),
});
const statsInput = z.object({
  ...rangeShape,
  question: z.enum(STATS_QUESTIONS),
  limit: z.number().int().min(1).max(1000).default(100),
});
const listInput = z.object({
  ...rangeShape,
  words: words.optional(),
  limit: pageLimit,
  cursor: z.string().max(2000).optional(),
});

function parse<T>(schema: z.ZodType<T>, input: unknown): T {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const where = issue?.path.length ? `${issue.path.join('.')}: ` : '';
  throw new LakeInputError(`${where}${issue?.message ?? 'invalid input'}`);
}

/** The day bounds of a range (undefined for all time), refusing one that ends before it starts. */
function dayBounds(range: DayRange): DayBounds | undefined {
  if (range.from === undefined && range.to === undefined) return undefined;
  const bounds = { from: range.from ?? FIRST_DAY, to: range.to ?? LAST_DAY };
  if (bounds.from > bounds.to) throw new LakeInputError(`from (${bounds.from}) is after to (${bounds.to})`);
  return bounds;
}

const hitCursor = z.object({ k: z.literal('hit'), s: z.string(), b: z.string(), q: z.number().int().min(0) });
const meetingCursor = z.object({ k: z.literal('meeting'), s: z.string(), b: z.string() });

const encodeCursor = (value: object): string => Buffer.from(JSON.stringify(value)).toString('base64url');

function decodeCursor<T>(schema: z.ZodType<T>, cursor: string): T {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw new LakeInputError('cursor: not a cursor this search returned');
  }
  const result = schema.safeParse(value);
  if (!result.success) throw new LakeInputError('cursor: not a cursor this search returned');
  return result.data;
}

const cost = (result: LakeResult): QueryCost => ({
  engine: result.engine,
  bytes_scanned: result.bytesScanned,
  elapsed_ms: Math.round(result.elapsedMs),
  ...(result.queryId === undefined ? {} : { query_id: result.queryId }),
});

const text = (value: LakeValue | undefined): string => (value === null || value === undefined ? '' : String(value));
const textOrNull = (value: LakeValue | undefined): string | null =>
  value === null || value === undefined ? null : String(value);
const count = (value: LakeValue | undefined): number => (typeof value === 'number' ? value : Number(value ?? 0));
const countOrNull = (value: LakeValue | undefined): number | null =>
  value === null || value === undefined ? null : count(value);

export const searchTranscripts: LakeSearchFunctions['searchTranscripts'] = async (
  engine: LakeEngine,
  input: TranscriptSearchInput,
  options?: LakeRunOptions,
): Promise<TranscriptSearchPage> => {
  const valid = parse(searchInput, input);
  const cursor = valid.cursor === undefined ? undefined : decodeCursor(hitCursor, valid.cursor);
  const after: HitPosition | undefined =
    cursor === undefined ? undefined : { startedKey: cursor.s, botId: cursor.b, seq: cursor.q };
  const days = dayBounds(valid);
  const query = searchQuery({
    words: valid.words,
    ...(valid.speaker === undefined ? {} : { speaker: valid.speaker }),
    ...(days === undefined ? {} : { days }),
    ...(after === undefined ? {} : { after }),
    limit: valid.limit + 1,
  });
  const result = await engine.run(query, options);
  const rows = resultObjects(result);
  const page = rows.slice(0, valid.limit);
  const hits: TranscriptHit[] = page.map((row) => ({
    bot_id: text(row.bot_id),
    day: text(row.day),
    started_at: textOrNull(row.started_at),
    offset_ms: count(row.offset_ms),
    offset: formatOffset(count(row.offset_ms)),
    speaker: text(row.speaker),
    snippet: snippetOf(text(row.text_window), valid.words, count(row.text_from) > 1),
  }));
  const last = page.at(-1);
  const next_cursor =
    rows.length > valid.limit && last !== undefined
      ? encodeCursor({ k: 'hit', s: text(last.started_key), b: text(last.bot_id), q: count(last.seq) })
      : null;
  return { hits, next_cursor, ...cost(result) };
};

export const lakeStats: LakeSearchFunctions['lakeStats'] = async (
  engine: LakeEngine,
  input: StatsInput,
  options?: LakeRunOptions,
): Promise<StatsAnswer> => {
  const valid = parse(statsInput, input);
  const days = dayBounds(valid);
  const shape = { ...(days === undefined ? {} : { days }), limit: valid.limit };
  switch (valid.question) {
    case 'talk-time': {
      const result = await engine.run(talkTimeQuery(shape), options);
      const rows = resultObjects(result).map((row) => ({
        speaker: text(row.speaker),
        talk_ms: count(row.talk_ms),
        utterances: count(row.utterances),
        meetings: count(row.meetings),
      }));
      return { question: 'talk-time', rows, ...cost(result) };
    }
    case 'meetings-per-participant': {
      const result = await engine.run(meetingsPerParticipantQuery(shape), options);
      const rows = resultObjects(result).map((row) => ({ name: text(row.name), meetings: count(row.meetings) }));
      return { question: 'meetings-per-participant', rows, ...cost(result) };
    }
    case 'meetings-per-day': {
      const result = await engine.run(meetingsPerDayQuery(shape), options);
      const rows = resultObjects(result).map((row) => ({
        day: text(row.day),
        meetings: count(row.meetings),
        duration_ms: count(row.duration_ms),
      }));
      return { question: 'meetings-per-day', rows, ...cost(result) };
    }
  }
};

export const listLakeMeetings: LakeSearchFunctions['listLakeMeetings'] = async (
  engine: LakeEngine,
  input: MeetingListInput,
  options?: LakeRunOptions,
): Promise<MeetingListPage> => {
  const valid = parse(listInput, input);
  const cursor = valid.cursor === undefined ? undefined : decodeCursor(meetingCursor, valid.cursor);
  const after: MeetingPosition | undefined =
    cursor === undefined ? undefined : { startedKey: cursor.s, botId: cursor.b };
  const days = dayBounds(valid);
  const query = meetingListQuery({
    ...(valid.words === undefined ? {} : { words: valid.words }),
    ...(days === undefined ? {} : { days }),
    ...(after === undefined ? {} : { after }),
    limit: valid.limit + 1,
  });
  const result = await engine.run(query, options);
  const rows = resultObjects(result);
  const page = rows.slice(0, valid.limit);
  const meetings: LakeMeeting[] = page.map((row) => ({
    bot_id: text(row.bot_id),
    day: text(row.day),
    started_at: textOrNull(row.started_at),
    ended_at: textOrNull(row.ended_at),
    state: textOrNull(row.state),
    duration_ms: countOrNull(row.duration_ms),
    utterance_count: count(row.utterance_count),
    participant_count: count(row.participant_count),
    summary: textOrNull(row.summary),
  }));
  const last = page.at(-1);
  const next_cursor =
    rows.length > valid.limit && last !== undefined
      ? encodeCursor({ k: 'meeting', s: text(last.started_key), b: text(last.bot_id) })
      : null;
  return { meetings, next_cursor, ...cost(result) };
};

/** The module as the contract's interface (a type check that every function is here). */
export const lakeSearch: LakeSearchFunctions = { searchTranscripts, lakeStats, listLakeMeetings };
