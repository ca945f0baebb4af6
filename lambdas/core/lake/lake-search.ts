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
 *
 * A search over words reads the text column of every day it covers, so all time in one query
 * outgrows Athena's bytes-scanned cutoff within months. It therefore walks the days newest first,
 * one window of SEARCH_WINDOW_DAYS a query, until the page is full or the range is done, and stops
 * after SEARCH_MAX_WINDOWS windows (or once the caller's waitMs is spent) with a cursor to go on. Rows sort by day first, so the windows
 * cut that order exactly; the cursor carries the range's first day, the day to go on from and the
 * keyset within it (none when a page stopped between windows).
 */
import * as z from 'zod/mini';
import {
  type LakeEngine,
  type LakeQuery,
  LakeQueryPendingError,
  type LakeResult,
  type LakeRunOptions,
  type LakeValue,
  resultObjects,
} from './lake-engine';
import {
  type DayBounds,
  type HitPosition,
  lakeDaysQuery,
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
/** Days one query of a search over words reads (newest first); a month of text at 2,000 meetings a day is ~2 GiB. */
export const SEARCH_WINDOW_DAYS = 31;
/** Windows one page runs at most (about two years), then it ends with a cursor to go on. */
export const SEARCH_MAX_WINDOWS = 24;

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

// zod/mini carries no messages of its own (no locale is loaded in Lambda code): each check names its rule.
const day = z.string().check(
  z.regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date yyyy-MM-dd'),
  z.refine((value) => {
    const date = new Date(`${value}T00:00:00Z`);
    return !Number.isNaN(date.getTime()) && date.toISOString().startsWith(value);
  }, 'is not a calendar date'),
);
const words = z
  .string()
  .check(z.trim(), z.minLength(1, 'must not be empty'), z.maxLength(200, 'must be at most 200 characters'));
/** A whole number in [min, max], `fallback` when absent. */
const wholeNumber = (min: number, max: number, fallback: number) =>
  z._default(
    z
      .int(`must be a whole number from ${min} to ${max}`)
      .check(
        z.gte(min, `must be a whole number from ${min} to ${max}`),
        z.lte(max, `must be a whole number from ${min} to ${max}`),
      ),
    fallback,
  );
const pageLimit = wholeNumber(1, 100, 20);
const cursorText = z.optional(z.string().check(z.maxLength(2000, 'is not a cursor this search returned')));
const rangeShape = { from: z.optional(day), to: z.optional(day) };
const windowShape = {
  now: z.optional(z.date()),
  windowDays: wholeNumber(1, 366, SEARCH_WINDOW_DAYS),
  maxWindows: wholeNumber(1, 100, SEARCH_MAX_WINDOWS),
};

const searchInput = z.object({
  ...rangeShape,
  ...windowShape,
  words,
  speaker: z.optional(words),
  limit: pageLimit,
  cursor: cursorText,
});
const statsInput = z.object({
  ...rangeShape,
  question: z.enum(STATS_QUESTIONS, `must be one of ${STATS_QUESTIONS.join(', ')}`),
  limit: wholeNumber(1, 1000, 100),
});
const listInput = z.object({
  ...rangeShape,
  ...windowShape,
  words: z.optional(words),
  limit: pageLimit,
  cursor: cursorText,
});

function parse<T>(schema: z.ZodMiniType<T>, input: unknown): T {
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

const hitKeyset = z.object({ s: z.string(), b: z.string(), q: z.int().check(z.gte(0)) });
const meetingKeyset = z.object({ s: z.string(), b: z.string() });
/** f: the range's first day; t: the day to go on from; a: the keyset within t (null: all of t). */
const hitCursor = z.object({ k: z.literal('hit'), f: day, t: day, a: z.nullable(hitKeyset) });
const meetingCursor = z.object({ k: z.literal('meeting'), f: day, t: day, a: z.nullable(meetingKeyset) });

const encodeCursor = (value: object): string => Buffer.from(JSON.stringify(value)).toString('base64url');

function decodeCursor<T>(schema: z.ZodMiniType<T>, cursor: string): T {
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

const cost = (results: readonly LakeResult[]): QueryCost => {
  const queryId = results.findLast((result) => result.queryId !== undefined)?.queryId;
  return {
    engine: results[0]?.engine ?? 'duckdb',
    bytes_scanned: results.reduce((sum, result) => sum + result.bytesScanned, 0),
    elapsed_ms: Math.round(results.reduce((sum, result) => sum + result.elapsedMs, 0)),
    queries: results.length,
    ...(queryId === undefined ? {} : { query_id: queryId }),
  };
};

const text = (value: LakeValue | undefined): string => (value === null || value === undefined ? '' : String(value));
const textOrNull = (value: LakeValue | undefined): string | null =>
  value === null || value === undefined ? null : String(value);
const count = (value: LakeValue | undefined): number => (typeof value === 'number' ? value : Number(value ?? 0));
const countOrNull = (value: LakeValue | undefined): number | null =>
  value === null || value === undefined ? null : count(value);

const DAY_MS = 86_400_000;
const addDays = (value: string, days: number): string =>
  new Date(Date.parse(`${value}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);
const later = (a: string, b: string): string => (a > b ? a : b);
const earlier = (a: string, b: string): string => (a < b ? a : b);

type Row = Record<string, LakeValue>;

interface WindowedWalk<K> {
  range: DayRange;
  now: Date | undefined;
  cursor: { f: string; t: string; a: K | null } | undefined;
  /** Days per query; null: the whole range in one query. */
  windowDays: number | null;
  maxWindows: number;
  limit: number;
  query(days: DayBounds, after: (K & { day: string }) | undefined, limit: number): LakeQuery;
  keysetOf(row: Row): K;
}

interface WalkedPage<K> {
  rows: Row[];
  results: LakeResult[];
  searched_through: string | null;
  next: { f: string; t: string; a: K | null } | null;
}

/**
 * The days to search: the caller's range, its unset `from` the lake's first day and its unset `to`
 * today (or the lake's last day if that is later: a clock behind the writer's loses nothing), both
 * asked once per search (the cursor carries `from` on). null when the lake holds no day.
 */
async function searchRange(
  engine: LakeEngine,
  options: LakeRunOptions | undefined,
  walk: WindowedWalk<unknown>,
  results: LakeResult[],
): Promise<DayBounds | null> {
  dayBounds(walk.range);
  const { from, to } = walk.range;
  if (walk.cursor !== undefined) {
    const start = from ?? walk.cursor.f;
    return { from: start, to: to === undefined ? walk.cursor.t : earlier(to, walk.cursor.t) };
  }
  if (from !== undefined && to !== undefined) return { from, to };
  const result = await engine.run(lakeDaysQuery(), options);
  results.push(result);
  const [row] = resultObjects(result);
  const first = textOrNull(row?.first_day);
  const last = textOrNull(row?.last_day);
  if (first === null || last === null) return null;
  const today = (walk.now ?? new Date()).toISOString().slice(0, 10);
  return { from: from ?? first, to: to ?? later(today, last) };
}

/** Runs a question over its range one window of days at a time, newest first (see the header). */
async function walkDays<K>(
  engine: LakeEngine,
  options: LakeRunOptions | undefined,
  walk: WindowedWalk<K>,
): Promise<WalkedPage<K>> {
  const results: LakeResult[] = [];
  const range = await searchRange(engine, options, walk as WindowedWalk<unknown>, results);
  if (range === null) return { rows: [], results, searched_through: null, next: null };
  const need = walk.limit + 1;
  const rows: Row[] = [];
  let end = range.to;
  let after = walk.cursor?.a ?? undefined;
  // A caller's waitMs (the read API's time budget) is the page's, not each query's: the wall time
  // spent so far (starting, polling and reading results included) is taken off it, and once it is
  // spent the page ends between windows.
  const startedAt = performance.now();
  const spent = () =>
    Math.max(
      performance.now() - startedAt,
      results.reduce((sum, result) => sum + result.elapsedMs, 0),
    );
  for (let windows = 1; ; windows++) {
    const start = walk.windowDays === null ? range.from : later(range.from, addDays(end, 1 - walk.windowDays));
    const keyset = after === undefined || after === null ? undefined : { ...after, day: walk.cursor?.t ?? end };
    const waitMs = options?.waitMs === undefined ? undefined : Math.max(1, options.waitMs - spent());
    let result: LakeResult;
    try {
      result = await engine.run(
        walk.query({ from: start, to: end }, keyset, need - rows.length),
        waitMs === undefined ? options : { ...options, waitMs },
      );
    } catch (error) {
      // A window that outlasts the budget after others finished: the page ends before it, and the
      // cursor starts the next page there (a page is several queries: no one query id can resume it).
      if (!(error instanceof LakeQueryPendingError) || windows === 1) throw error;
      return {
        rows,
        results,
        searched_through: addDays(end, 1),
        next: { f: range.from, t: end, a: after ?? null },
      };
    }
    results.push(result);
    rows.push(...resultObjects(result));
    after = undefined;
    if (rows.length >= need) {
      const last = rows[walk.limit - 1] as Row;
      const lastDay = text(last.day);
      return {
        rows: rows.slice(0, walk.limit),
        results,
        searched_through: lastDay,
        next: { f: range.from, t: lastDay, a: walk.keysetOf(last) },
      };
    }
    const exhausted = start <= range.from;
    const outOfTime = options?.waitMs !== undefined && spent() >= options.waitMs;
    if (exhausted || windows >= walk.maxWindows || outOfTime) {
      return {
        rows,
        results,
        searched_through: range.from > range.to ? null : start,
        next: exhausted ? null : { f: range.from, t: addDays(start, -1), a: null },
      };
    }
    end = addDays(start, -1);
  }
}

export const searchTranscripts: LakeSearchFunctions['searchTranscripts'] = async (
  engine: LakeEngine,
  input: TranscriptSearchInput,
  options?: LakeRunOptions,
): Promise<TranscriptSearchPage> => {
  const valid = parse(searchInput, input);
  const cursor = valid.cursor === undefined ? undefined : decodeCursor(hitCursor, valid.cursor);
  const walked = await walkDays(engine, options, {
    range: valid,
    now: valid.now,
    cursor,
    windowDays: valid.windowDays,
    maxWindows: valid.maxWindows,
    limit: valid.limit,
    query: (days, keyset, limit) => {
      const after: HitPosition | undefined =
        keyset === undefined ? undefined : { day: keyset.day, startedKey: keyset.s, botId: keyset.b, seq: keyset.q };
      return searchQuery({
        words: valid.words,
        ...(valid.speaker === undefined ? {} : { speaker: valid.speaker }),
        days,
        ...(after === undefined ? {} : { after }),
        limit,
      });
    },
    keysetOf: (row) => ({ s: text(row.started_key), b: text(row.bot_id), q: count(row.seq) }),
  });
  const hits: TranscriptHit[] = walked.rows.map((row) => ({
    bot_id: text(row.bot_id),
    day: text(row.day),
    started_at: textOrNull(row.started_at),
    offset_ms: count(row.offset_ms),
    offset: formatOffset(count(row.offset_ms)),
    speaker: text(row.speaker),
    snippet: snippetOf(text(row.text_window), valid.words, count(row.text_from) > 1),
  }));
  const next_cursor = walked.next === null ? null : encodeCursor({ k: 'hit', ...walked.next });
  return { hits, next_cursor, searched_through: walked.searched_through, ...cost(walked.results) };
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
      return { question: 'talk-time', rows, ...cost([result]) };
    }
    case 'meetings-per-participant': {
      const result = await engine.run(meetingsPerParticipantQuery(shape), options);
      const rows = resultObjects(result).map((row) => ({ name: text(row.name), meetings: count(row.meetings) }));
      return { question: 'meetings-per-participant', rows, ...cost([result]) };
    }
    case 'meetings-per-day': {
      const result = await engine.run(meetingsPerDayQuery(shape), options);
      const rows = resultObjects(result).map((row) => ({
        day: text(row.day),
        meetings: count(row.meetings),
        duration_ms: count(row.duration_ms),
      }));
      return { question: 'meetings-per-day', rows, ...cost([result]) };
    }
  }
};

/** Meetings newest first; with words windowed like a search (they read the text), without in one query. */
export const listLakeMeetings: LakeSearchFunctions['listLakeMeetings'] = async (
  engine: LakeEngine,
  input: MeetingListInput,
  options?: LakeRunOptions,
): Promise<MeetingListPage> => {
  const valid = parse(listInput, input);
  const cursor = valid.cursor === undefined ? undefined : decodeCursor(meetingCursor, valid.cursor);
  const walked = await walkDays(engine, options, {
    range: valid,
    now: valid.now,
    cursor,
    windowDays: valid.words === undefined ? null : valid.windowDays,
    maxWindows: valid.maxWindows,
    limit: valid.limit,
    query: (days, keyset, limit) => {
      const after: MeetingPosition | undefined =
        keyset === undefined ? undefined : { day: keyset.day, startedKey: keyset.s, botId: keyset.b };
      return meetingListQuery({
        ...(valid.words === undefined ? {} : { words: valid.words }),
        days,
        ...(after === undefined ? {} : { after }),
        limit,
      });
    },
    keysetOf: (row) => ({ s: text(row.started_key), b: text(row.bot_id) }),
  });
  const meetings: LakeMeeting[] = walked.rows.map((row) => ({
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
  const next_cursor = walked.next === null ? null : encodeCursor({ k: 'meeting', ...walked.next });
  return { meetings, next_cursor, searched_through: walked.searched_through, ...cost(walked.results) };
};

/** The module as the contract's interface (a type check that every function is here). */
export const lakeSearch: LakeSearchFunctions = { searchTranscripts, lakeStats, listLakeMeetings };
