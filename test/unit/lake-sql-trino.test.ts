/**
 * Every SQL text the lake runs is valid Athena (Trino) SQL by Trino's grammar (dt-sql-parser's
 * TrinoSQL), in each shape a question takes (range or all time, speaker, cursor); the integration
 * tests run the same texts on DuckDB. A negative control shows the validator does reject what
 * only DuckDB reads, so a pass means something.
 */
import { TrinoSQL } from 'dt-sql-parser';
import { describe, expect, it } from 'vitest';
import type { LakeQuery } from '../../lambdas/core/lake/lake-engine';
import { lakeViewSql } from '../../lambdas/core/lake/lake-layout';
import {
  lakeDaysQuery,
  meetingListQuery,
  meetingsPerDayQuery,
  meetingsPerParticipantQuery,
  searchQuery,
  talkTimeQuery,
} from '../../lambdas/core/lake/lake-questions';
import { LAKE_TABLE_NAMES } from '../../lambdas/core/lake/lake-tables';
import { LAKE_NAMED_QUERIES, withLiterals } from '../../lambdas/core/lake/named-queries';
import { assertReadOnlySql } from '../../lambdas/core/lake/read-only-sql';

const trino = new TrinoSQL();
const errors = (sql: string) => trino.validate(sql).map((error) => error.message);

const days = { from: '2026-11-01', to: '2026-11-30' };
const questions: Array<[string, LakeQuery]> = [["the lake's first and last day", lakeDaysQuery()]];
for (const range of [undefined, days]) {
  const r = range === undefined ? {} : { days: range };
  const label = range === undefined ? 'all time' : 'range';
  for (const speaker of [undefined, 'alice']) {
    for (const after of [
      undefined,
      { day: '2026-11-02', startedKey: '2026-11-02T00:00:00.000Z', botId: 'b', seq: 3 },
    ]) {
      questions.push([
        `search, ${label}${speaker ? ', speaker' : ''}${after ? ', cursor' : ''}`,
        searchQuery({
          words: 'pricing',
          ...r,
          ...(speaker ? { speaker } : {}),
          ...(after ? { after } : {}),
          limit: 21,
        }),
      ]);
    }
  }
  for (const words of [undefined, 'pricing']) {
    for (const after of [undefined, { day: '2026-11-02', startedKey: '', botId: 'b' }]) {
      questions.push([
        `meeting list, ${label}${words ? ', words' : ''}${after ? ', cursor' : ''}`,
        meetingListQuery({ ...r, ...(words ? { words } : {}), ...(after ? { after } : {}), limit: 21 }),
      ]);
    }
  }
  questions.push([`talk time, ${label}`, talkTimeQuery({ ...r, limit: 100 })]);
  questions.push([`meetings per participant, ${label}`, meetingsPerParticipantQuery({ ...r, limit: 100 })]);
  questions.push([`meetings per day, ${label}`, meetingsPerDayQuery({ ...r, limit: 100 })]);
}

describe('the questions are valid Trino SQL and read-only', () => {
  it.each(questions)('%s', async (_label, query) => {
    expect(errors(query.sql)).toEqual([]);
    // With the parameters written in as literals too (what Athena runs after substituting them).
    expect(errors(withLiterals(query))).toEqual([]);
    await expect(assertReadOnlySql(query.sql)).resolves.toBeUndefined();
    expect(query.sql.split('?')).toHaveLength(query.params.length + 1);
  });
});

describe('the views are valid Trino SQL', () => {
  it.each(LAKE_TABLE_NAMES)('%s', (table) => {
    expect(errors(lakeViewSql(table))).toEqual([]);
  });
});

describe('the named queries are valid Trino SQL, with literals in place of parameters', () => {
  it.each(LAKE_NAMED_QUERIES.map((query) => [query.name, query] as const))('%s', async (_name, query) => {
    expect(errors(query.sql)).toEqual([]);
    expect(query.sql).not.toContain('?');
    await expect(assertReadOnlySql(query.sql)).resolves.toBeUndefined();
  });

  it('quotes literals so a quote in a value stays inside it', () => {
    expect(withLiterals({ sql: 'SELECT ? AS a, ? AS b', params: ["it's", 3] })).toBe("SELECT 'it''s' AS a, 3 AS b");
    expect(() => withLiterals({ sql: 'SELECT ?', params: [] })).toThrow(RangeError);
  });

  it('names each query once', () => {
    const names = LAKE_NAMED_QUERIES.map((query) => query.name);
    expect(new Set(names).size).toBe(names.length);
    expect(names).toEqual(expect.arrayContaining(['talk-time-per-speaker', 'meetings-per-day', 'keyword-search']));
  });
});

describe('negative control: the validator rejects what only DuckDB reads', () => {
  it.each([
    ['a :: cast', 'SELECT day::DATE FROM meetings'],
    ['LIMIT before OFFSET', 'SELECT bot_id FROM meetings LIMIT 10 OFFSET 20'],
    ['ILIKE', "SELECT bot_id FROM utterances WHERE text ILIKE '%x%'"],
    ['a DuckDB list literal', 'SELECT [1, 2, 3] AS xs'],
    ['a trailing comma in the select list', 'SELECT bot_id, FROM meetings'],
  ])('%s', (_label, sql) => {
    expect(errors(sql).length).toBeGreaterThan(0);
  });
});
