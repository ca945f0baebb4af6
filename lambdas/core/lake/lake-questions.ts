/**
 * One SQL text per question the lake answers, run as is by Athena (Trino) and DuckDB: only the
 * subset both read alike (`strpos`, `lower`, `substr`, `coalesce`, `greatest`, `CAST`, `OFFSET`
 * before `LIMIT`, no `::`), checked by test/unit/lake-sql-trino.test.ts with Trino's grammar and
 * run on DuckDB by test/integration/lake-questions.test.ts.
 *
 * What a caller typed only ever travels as a `?` parameter. The texts differ only by which fixed
 * predicates a question needs (a day range, a speaker, a cursor) and by LIMIT, a validated integer
 * written into the text (Athena's execution parameters are for values, not for LIMIT).
 *
 * Words match literally and case-insensitively with `strpos(lower(x), lower(?)) > 0`: no LIKE, so
 * `%`, `_`, `'` and `\` in the words are just characters. A day range is `day BETWEEN ? AND ?` on
 * the partition column, which is what prunes partitions in Athena. Searches over words always get
 * one (lake-search.ts runs them one window of days at a time); stats over all time have none.
 */
import type { LakeQuery } from './lake-engine';

/** Characters of a line or summary returned at most: a 1 MB line does not travel for a 200-character snippet. */
export const TEXT_WINDOW_CHARS = 2000;
/** How many characters of the window come before the match (so the snippet finds it in the window). */
const WINDOW_LEAD_CHARS = 900;

export interface DayBounds {
  from: string;
  to: string;
}

/** Keyset position after the last row of a page (the sort keys of that row). */
export interface HitPosition {
  /** The row's day partition: hits sort by day first, so a search can run one window of days at a time. */
  day: string;
  /** `coalesce(started_at, '')`: within a day, meetings without a start time sort last. */
  startedKey: string;
  botId: string;
  seq: number;
}

export interface MeetingPosition {
  day: string;
  startedKey: string;
  botId: string;
}

/** The columns a search hit row has, in order. */
export const SEARCH_COLUMNS = [
  'bot_id',
  'day',
  'started_at',
  'started_key',
  'seq',
  'offset_ms',
  'speaker',
  'text_from',
  'text_window',
] as const;

const STARTED_KEY = "coalesce(m.started_at, '')";

const dayPredicate = (column: string, days: DayBounds | undefined, params: Array<string | number>): string[] => {
  if (days === undefined) return [];
  params.push(days.from, days.to);
  return [`${column} BETWEEN ? AND ?`];
};

const limitClause = (limit: number): string => {
  if (!Number.isSafeInteger(limit) || limit < 1) throw new RangeError(`LIMIT must be a positive integer, got ${limit}`);
  return `LIMIT ${limit}`;
};

/**
 * The lake's first and last day (NULL, NULL when it is empty): where an all-time search starts and
 * stops its windows. It reads only the day partition values of the meetings view.
 */
export function lakeDaysQuery(): LakeQuery {
  return { sql: 'SELECT min(day) AS first_day, max(day) AS last_day\nFROM meetings', params: [] };
}

/**
 * Lines that contain `words`, newest day first, then newest meeting, then by meeting and line (a
 * total order, so pages are stable, and one that windows of days cut exactly), from after `after`. The text comes back as a window of TEXT_WINDOW_CHARS
 * around the first match (`text_from` is the window's 1-based start in the line).
 */
export function searchQuery(input: {
  words: string;
  speaker?: string;
  days?: DayBounds;
  after?: HitPosition;
  limit: number;
}): LakeQuery {
  const params: Array<string | number> = [input.words];
  const where = ['strpos(lower(u.text), lower(?)) > 0'];
  if (input.speaker !== undefined) {
    where.push('strpos(lower(u.speaker), lower(?)) > 0');
    params.push(input.speaker);
  }
  where.push(...dayPredicate('u.day', input.days, params));
  if (input.after !== undefined) {
    const { day, startedKey, botId, seq } = input.after;
    where.push(
      [
        '(u.day < ? OR (u.day = ? AND (',
        `${STARTED_KEY} < ? OR (${STARTED_KEY} = ? AND (u.bot_id > ? OR (u.bot_id = ? AND u.seq > ?))))))`,
      ].join(''),
    );
    params.push(day, day, startedKey, startedKey, botId, botId, seq);
  }
  // The match's position is found again in the outer select: the inner one filters, the outer cuts.
  const sql = [
    'SELECT bot_id, day, started_at, started_key, seq, offset_ms, speaker,',
    `  greatest(1, match_at - ${WINDOW_LEAD_CHARS}) AS text_from,`,
    `  substr(text, greatest(1, match_at - ${WINDOW_LEAD_CHARS}), ${TEXT_WINDOW_CHARS}) AS text_window`,
    'FROM (',
    `  SELECT u.bot_id, u.day, m.started_at, ${STARTED_KEY} AS started_key, u.seq, u.offset_ms, u.speaker, u.text,`,
    '    strpos(lower(u.text), lower(?)) AS match_at',
    '  FROM utterances u',
    '  LEFT JOIN meetings m ON m.bot_id = u.bot_id AND m.day = u.day',
    `  WHERE ${where.join('\n    AND ')}`,
    ') hits',
    'ORDER BY day DESC, started_key DESC, bot_id, seq',
    limitClause(input.limit),
  ].join('\n');
  return { sql, params: [input.words, ...params] };
}

/** Talk time per speaker (sum of duration_ms, 0 where unknown), largest first. */
export function talkTimeQuery(input: { days?: DayBounds; limit: number }): LakeQuery {
  const params: Array<string | number> = [];
  const where = dayPredicate('day', input.days, params);
  const sql = [
    'SELECT speaker, CAST(sum(coalesce(duration_ms, 0)) AS BIGINT) AS talk_ms,',
    '  count(*) AS utterances, count(DISTINCT bot_id) AS meetings',
    'FROM utterances',
    ...(where.length > 0 ? [`WHERE ${where.join(' AND ')}`] : []),
    'GROUP BY speaker',
    'ORDER BY talk_ms DESC, speaker',
    limitClause(input.limit),
  ].join('\n');
  return { sql, params };
}

/** Meetings per participant, by display name (participants without one are left out), most first. */
export function meetingsPerParticipantQuery(input: { days?: DayBounds; limit: number }): LakeQuery {
  const params: Array<string | number> = [];
  const where = ['name IS NOT NULL', ...dayPredicate('day', input.days, params)];
  const sql = [
    'SELECT name, count(DISTINCT bot_id) AS meetings',
    'FROM participants',
    `WHERE ${where.join(' AND ')}`,
    'GROUP BY name',
    'ORDER BY meetings DESC, name',
    limitClause(input.limit),
  ].join('\n');
  return { sql, params };
}

/** Meetings and their summed duration per day, newest day first (a series reads by date, not by size). */
export function meetingsPerDayQuery(input: { days?: DayBounds; limit: number }): LakeQuery {
  const params: Array<string | number> = [];
  const where = dayPredicate('day', input.days, params);
  const sql = [
    'SELECT day, count(*) AS meetings, CAST(sum(coalesce(duration_ms, 0)) AS BIGINT) AS duration_ms',
    'FROM meetings',
    ...(where.length > 0 ? [`WHERE ${where.join(' AND ')}`] : []),
    'GROUP BY day',
    'ORDER BY day DESC',
    limitClause(input.limit),
  ].join('\n');
  return { sql, params };
}

/** The columns a meeting row has, in order. */
export const MEETING_COLUMNS = [
  'bot_id',
  'day',
  'started_at',
  'started_key',
  'ended_at',
  'state',
  'duration_ms',
  'utterance_count',
  'participant_count',
  'summary',
] as const;

/** Meetings newest first (by day, start, then bot id), optionally those whose summary or transcript has `words`. */
export function meetingListQuery(input: {
  words?: string;
  days?: DayBounds;
  after?: MeetingPosition;
  limit: number;
}): LakeQuery {
  const params: Array<string | number> = [];
  const where = dayPredicate('m.day', input.days, params);
  if (input.words !== undefined) {
    const inner: Array<string | number> = [];
    const innerWhere = ['strpos(lower(u.text), lower(?)) > 0', ...dayPredicate('u.day', input.days, inner)];
    where.push(
      [
        "(strpos(lower(coalesce(m.summary, '')), lower(?)) > 0",
        `  OR m.bot_id IN (SELECT u.bot_id FROM utterances u WHERE ${innerWhere.join(' AND ')}))`,
      ].join('\n'),
    );
    params.push(input.words, input.words, ...inner);
  }
  if (input.after !== undefined) {
    const { day, startedKey, botId } = input.after;
    where.push(`(m.day < ? OR (m.day = ? AND (${STARTED_KEY} < ? OR (${STARTED_KEY} = ? AND m.bot_id > ?))))`);
    params.push(day, day, startedKey, startedKey, botId);
  }
  const sql = [
    `SELECT m.bot_id, m.day, m.started_at, ${STARTED_KEY} AS started_key, m.ended_at, m.state, m.duration_ms,`,
    `  m.utterance_count, m.participant_count, substr(m.summary, 1, ${TEXT_WINDOW_CHARS}) AS summary`,
    'FROM meetings m',
    ...(where.length > 0 ? [`WHERE ${where.join('\n  AND ')}`] : []),
    'ORDER BY day DESC, started_key DESC, bot_id',
    limitClause(input.limit),
  ].join('\n');
  return { sql, params };
}
