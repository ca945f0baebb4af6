/**
 * The read-only guard (lambdas/core/lake/read-only-sql.ts): what it lets through is one query, by
 * its own tokens and by Trino's parser too; what it refuses names the reason; comments, literals and
 * quoted names neither hide a statement from it nor make it refuse a harmless query.
 */
import { TrinoSQL } from 'dt-sql-parser';
import { describe, expect, it } from 'vitest';
import { LakeQueryRefusedError } from '../../lambdas/core/lake/lake-engine';
import { assertReadOnlySql, MAX_SQL_CHARS, MAX_SQL_NESTING } from '../../lambdas/core/lake/read-only-sql';

const refusal = async (sql: string): Promise<string> => {
  try {
    await assertReadOnlySql(sql);
  } catch (error) {
    expect(error).toBeInstanceOf(LakeQueryRefusedError);
    return (error as Error).message;
  }
  throw new Error(`accepted: ${sql}`);
};

describe('assertReadOnlySql accepts one query', () => {
  const accepted = [
    'SELECT 1',
    'select count(*) from utterances;',
    'SELECT 1;  -- the end\n',
    '  /* why */ SELECT bot_id FROM meetings WHERE day BETWEEN ? AND ? OFFSET 10 LIMIT 5',
    "SELECT text FROM utterances WHERE text = 'DROP TABLE x; DELETE' -- ; INSERT",
    'SELECT \'it\'\'s; fine\' AS a, "delete" AS "set"',
    'WITH t AS (SELECT bot_id FROM meetings) SELECT * FROM t',
    'WITH RECURSIVE a (n) AS (SELECT 1), "b" AS (SELECT n FROM a) SELECT * FROM b',
    'WITH t AS (SELECT 1 AS x) (SELECT x FROM t)',
    '(SELECT 1) UNION ALL (SELECT 2)',
    'SELECT speaker, sum(coalesce(duration_ms, 0)) AS talk_ms FROM utterances GROUP BY speaker ORDER BY 2 DESC',
    'SELECT 1.5e3, .5 /* a ; b */',
    'SELECT updated_at, created, deleted_rows, settings FROM meetings',
    // A carriage return ends a `--` comment, alone or before a line feed, as in both engines.
    'SELECT bot_id -- which meeting\rFROM meetings',
    'SELECT 1 AS n -- the end\r\n',
  ];
  it.each(accepted)('%s', async (sql) => {
    await expect(assertReadOnlySql(sql)).resolves.toBeUndefined();
    // Trino's own parser sees exactly one statement in what the guard let through.
    expect(new TrinoSQL().splitSQLByStatement(sql) ?? []).toHaveLength(1);
  });
});

describe('assertReadOnlySql refuses, saying why', () => {
  const refused: Array<[string, RegExp]> = [
    ['SELECT 1; DROP TABLE x', /more than one statement/],
    ['SELECT 1;;', /more than one statement/],
    ["SELECT ';' ; DELETE FROM meetings", /more than one statement/],
    ['WITH x AS (SELECT 1) INSERT INTO t SELECT * FROM x', /INSERT/],
    ['WITH x AS (SELECT 1) VALUES (1)', /WITH must be followed by a SELECT, found VALUES/],
    ['/* harmless */ DELETE FROM meetings', /DELETE/],
    ['-- SELECT\nDROP TABLE meetings', /DROP/],
    ['CREATE TABLE t AS SELECT * FROM utterances', /CREATE/],
    ["UNLOAD (SELECT * FROM utterances) TO 's3://elsewhere/' WITH (format = 'PARQUET')", /UNLOAD/],
    ['INSERT INTO meetings SELECT * FROM meetings', /INSERT/],
    ['MSCK REPAIR TABLE utterances_recent', /MSCK/],
    ["CALL system.sync_partition_metadata('lake', 'utterances', 'FULL')", /CALL/],
    ['EXPLAIN ANALYZE SELECT 1', /EXPLAIN/],
    ['explain select 1', /EXPLAIN/],
    ["COPY (SELECT 1) TO '/tmp/x.csv'", /COPY/],
    ["ATTACH '/tmp/x.db'", /ATTACH/],
    ['SELECT * INTO copy_of FROM meetings', /INTO/],
    ['SELECT 1 FROM (DELETE FROM meetings RETURNING *)', /DELETE/],
    ['SET threads = 1', /SET/],
    ['SHOW TABLES', /starts with SHOW/],
    ['VALUES (1)', /starts with VALUES/],
    ['', /no statement/],
    ['  -- only a comment\n', /no statement/],
    [';', /no statement/],
    ["SELECT 'never closed", /string literal .* never closed/],
    ['SELECT "never closed', /quoted name .* never closed/],
    ['SELECT 1 /* never closed', /comment .* never closed/],
    ['SELECT 1 /* a /* b */ ; DROP TABLE x */', /nested/],
    ["SELECT E'\\'; DROP TABLE x; --'", /prefixed by E/],
    ['SELECT $$;$$; DROP TABLE x', /'\$'/],
    ['SELECT (1', /never closed/],
    ['WITH t AS (SELECT 1', /never closed/],
    ['SELECT 1)', /closes nothing/],
    ["SELECT * FROM TABLE(system.query(query => 'DELETE FROM orders'))", /table function/],
    ['SELECT * FROM table (x)', /table function/],
    // Trino and DuckDB end a `--` comment at a carriage return: what follows is read.
    ["SELECT 1 AS n --\r; COPY (SELECT 'owned') TO '/tmp/owned.csv'", /more than one statement/],
    ['/* x */ --\rCREATE TABLE t AS SELECT * FROM utterances', /CREATE/],
    ['SELECT 1 --\rDROP TABLE meetings', /DROP/],
    // What one of the engines reads otherwise, or Trino's lexer does not know.
    ["SELECT U&'\\0041'", /prefixed by U&/],
    ["SELECT X'ff'", /prefixed by X/],
    ['SELECT `a` FROM meetings', /backquotes/],
    ['SELECT\f1', /U\+000C .* not a character Trino reads/],
    ['SELECT 1\u00a0', /U\+00A0/],
    // Read by Trino's grammar as something other than one query.
    ['SELECT 1 1', /Trino's grammar does not read it/],
    ['WITH FUNCTION f() RETURNS int RETURN 1 SELECT f()', /WITH FUNCTION defines a function/],
  ];
  it.each(refused)('%s', async (sql, reason) => {
    expect(await refusal(sql)).toMatch(reason);
    expect(await refusal(sql)).toMatch(/^only a read-only query \(SELECT or WITH … SELECT\) is accepted: /);
  });

  it('nesting deeper than the parser reads in reasonable time, before parsing', async () => {
    const deeper = MAX_SQL_NESTING + 1;
    const nested = [
      `SELECT ${'('.repeat(deeper)}1${')'.repeat(deeper)}`,
      `SELECT ${'ARRAY['.repeat(deeper)}1${']'.repeat(deeper)}`,
      `SELECT ${'CASE WHEN true THEN '.repeat(deeper)}1${' END'.repeat(deeper)}`,
      `SELECT ${'(CASE WHEN true THEN ARRAY['.repeat(Math.ceil(deeper / 3))}1${'] END)'.repeat(Math.ceil(deeper / 3))}`,
    ];
    for (const sql of nested) expect(await refusal(sql)).toMatch(/nest deeper than 64 levels/);
    await expect(assertReadOnlySql(`SELECT ${'('.repeat(8)}1${')'.repeat(8)}`)).resolves.toBeUndefined();
  });

  it('a text longer than Athena takes, before reading it', async () => {
    expect(await refusal(`SELECT 1 ${'-'.repeat(MAX_SQL_CHARS)}`)).toMatch(/262153 characters, more than 262144/);
    await expect(assertReadOnlySql(`SELECT 1 --${' '.repeat(MAX_SQL_CHARS - 11)}`)).resolves.toBeUndefined();
  });
});
