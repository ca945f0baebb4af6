/**
 * The common questions as Athena named queries (saved in the workgroup by lib/, shown in the
 * Athena console under "Saved queries"): the same SQL texts the CLI, MCP and read API run
 * (lake-questions.ts), with sample values written in where the functions pass parameters, so a
 * person opens one, edits the literals and runs it.
 */
import type { LakeParam, LakeQuery } from './lake-engine';
import { meetingsPerDayQuery, searchQuery, talkTimeQuery } from './lake-questions';

export interface LakeNamedQuery {
  /** Unique in the workgroup; what the console lists. */
  name: string;
  description: string;
  /** Runnable as is (no `?`). */
  sql: string;
}

const SAMPLE_DAYS = { from: '2026-01-01', to: '2026-12-31' };

/** A parameter as a Trino literal: a string quoted (quotes doubled), an integer as digits. */
export function sqlLiteral(value: LakeParam): string {
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) throw new RangeError(`not an integer literal: ${value}`);
    return String(value);
  }
  return `'${value.replaceAll("'", "''")}'`;
}

/**
 * The query with each `?` replaced by its parameter's literal. The question texts hold no `?`
 * inside a literal or comment, so every `?` is a parameter (the count is checked).
 */
export function withLiterals(query: LakeQuery): string {
  const parts = query.sql.split('?');
  if (parts.length - 1 !== query.params.length)
    throw new RangeError(`${parts.length - 1} placeholders for ${query.params.length} parameters`);
  return parts.reduce((sql, part, i) => `${sql}${sqlLiteral(query.params[i - 1] as LakeParam)}${part}`);
}

export const LAKE_NAMED_QUERIES: readonly LakeNamedQuery[] = [
  {
    name: 'talk-time-per-speaker',
    description: 'Talk time (sum of line durations) per speaker in a day range, largest first.',
    sql: withLiterals(talkTimeQuery({ days: SAMPLE_DAYS, limit: 100 })),
  },
  {
    name: 'meetings-per-day',
    description: 'Meetings and their summed duration per day in a day range, newest day first.',
    sql: withLiterals(meetingsPerDayQuery({ days: SAMPLE_DAYS, limit: 366 })),
  },
  {
    name: 'keyword-search',
    description: 'Transcript lines containing a phrase (case-insensitive, literal), newest meeting first.',
    sql: withLiterals(searchQuery({ words: 'pricing', days: SAMPLE_DAYS, limit: 100 })),
  },
];
