/**
 * The read-only guard (lambdas/core/lake/read-only-sql.ts) against both engines' own parsers, on
 * generated texts: a query whose gaps hold comments (`--` ended by \n, \r, \r\n or the end; block,
 * nested, unterminated), whose items are string literals in each engine's forms ('' escapes, E'',
 * $$, U&'') and quoted names, with white space Trino and DuckDB may not share, and a smuggled
 * second statement or write. Whatever the guard accepts, DuckDB must read as one SELECT (or not
 * read at all) and Trino's grammar as one valid query.
 */
import { TrinoSQL } from 'dt-sql-parser';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LakeQueryRefusedError } from '../../lambdas/core/lake/lake-engine';
import { assertReadOnlySql } from '../../lambdas/core/lake/read-only-sql';
import { type ConfinedDuckDb, openConfinedDuckDb } from '../../local/lake/confined-duckdb';
import { scratchDir } from '../fixtures/scratch';

/** Weighted choices: mostly forms both engines share, so that many texts are accepted and checked. */
const often = <T>(common: fc.Arbitrary<T>, rare: fc.Arbitrary<T>) =>
  fc.oneof({ arbitrary: common, weight: 4 }, { arbitrary: rare, weight: 1 });

/** Statements that must never run: a write, an export, an attach, a setting, a definition. */
const SMUGGLED = [
  "COPY (SELECT 'owned') TO 'owned.csv'",
  'CREATE TABLE t AS SELECT 1',
  'INSERT INTO t VALUES (1)',
  "ATTACH 'owned.db' AS owned",
  'SET threads = 1',
  'DROP TABLE meetings',
  'SELECT 2',
];
const smuggled = fc.constantFrom(...SMUGGLED);

const whiteSpace = often(
  fc.constantFrom(' ', '\t', '\n', '\r', '\r\n'),
  fc.constantFrom('\f', '\v', '\u00a0', '\u2028', '\u3000'),
);
/** Text inside a comment, string or name: what ends or opens one, and a statement after a semicolon. */
const inside = fc
  .array(
    often(
      fc.constantFrom('x', ' ', ';', '\n', '\r', ...SMUGGLED.map((statement) => `; ${statement}`)),
      fc.constantFrom("'", "''", '"', '""', '*/', '/*', '--', '\\', '$', '*', '/'),
    ),
    { maxLength: 5 },
  )
  .map((parts) => parts.join(''));

const comment = fc.oneof(
  fc.tuple(inside, fc.constantFrom('\n', '\r', '\r\n', '')).map(([body, end]) => `--${body}${end}`),
  inside.map((body) => `/*${body}*/`),
  fc.tuple(inside, inside).map(([a, b]) => `/* ${a} /* ${b} */ ${a} */`),
  inside.map((body) => `/*${body}`),
);
const gap = fc
  .array(fc.oneof({ arbitrary: whiteSpace, weight: 2 }, { arbitrary: comment, weight: 1 }), { maxLength: 3 })
  .map((parts) => ` ${parts.join('')} `);

const item = often(
  fc.oneof(
    fc.constant('1'),
    inside.map((body) => `'${body.replaceAll("'", "''")}'`),
    inside.map((body) => `1 AS "${body.replaceAll('"', '""')}x"`),
  ),
  fc.oneof(
    inside.map((body) => `'${body}'`),
    inside.map((body) => `E'${body}'`),
    inside.map((body) => `$$${body}$$`),
    inside.map((body) => `U&'${body}'`),
    inside.map((body) => `1 AS "${body}"`),
  ),
);

const nothing = fc.constant(undefined);
const text = fc
  .tuple(
    often(nothing, fc.tuple(smuggled, fc.constantFrom(';', ''))),
    gap,
    fc.array(fc.tuple(item, gap), { minLength: 1, maxLength: 3 }),
    often(nothing, fc.tuple(fc.constantFrom(';', ''), gap, smuggled)),
    fc.constantFrom('', ';'),
  )
  .map(([before, lead, items, after, end]) =>
    [
      before === undefined ? '' : before.join(''),
      lead,
      'SELECT ',
      items.map(([value, space]) => `${value}${space}`).join(', '),
      after === undefined ? '' : after.join(''),
      end,
    ].join(''),
  );

let duck: ConfinedDuckDb;
const trino = new TrinoSQL();
beforeAll(async () => {
  duck = await openConfinedDuckDb(scratchDir('guard-fuzz-'));
});
afterAll(() => duck.close());

/** How DuckDB's parser reads the text, running nothing: its statements, or that it reads none. */
async function duckDbReading(sql: string): Promise<string> {
  let count: number;
  try {
    count = (await duck.connection.extractStatements(sql)).count;
  } catch {
    return 'unreadable';
  }
  // Serialised only if every statement is a SELECT (it runs nothing either).
  const reader = await duck.connection.runAndReadAll('SELECT json_serialize_sql(?::VARCHAR)', [sql]);
  const serialised = JSON.parse(String(reader.getRows()[0]?.[0])) as { error: boolean; error_message?: string };
  return serialised.error ? `${count} statements, not all SELECT: ${serialised.error_message}` : `${count} SELECT`;
}

async function accepted(sql: string): Promise<boolean> {
  try {
    await assertReadOnlySql(sql);
    return true;
  } catch (error) {
    if (error instanceof LakeQueryRefusedError) return false;
    throw error;
  }
}

describe('what the guard accepts, both engines read as one query', () => {
  it('on generated texts with comments, literals, names, white space and a smuggled statement', async () => {
    await fc.assert(
      fc.asyncProperty(text, async (sql) => {
        if (!(await accepted(sql))) return;
        expect(await duckDbReading(sql)).toMatch(/^(1 SELECT|unreadable)$/);
        expect(trino.validate(sql)).toEqual([]);
        expect(trino.splitSQLByStatement(sql) ?? []).toHaveLength(1);
      }),
      {
        numRuns: 400,
        examples: [
          // The carriage return that ends a `--` comment for both engines.
          ["SELECT 1 AS n --\r; COPY (SELECT 'owned') TO 'owned.csv'"],
          ['/* x */ --\rCREATE TABLE t AS SELECT 1'],
        ],
      },
    );
  });
});
