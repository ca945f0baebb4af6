/**
 * DuckDB as the project opens it (local/lake/confined-duckdb.ts) reads the lake folder and nothing
 * else, and the local lake engine over it (local/lake/duckdb-lake-engine.ts) runs one query only:
 * each way a text can name a file outside, write one, load an extension or change a setting is
 * refused, with nothing of the secret returned and no file written.
 */
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LakeQueryFailedError } from '../../lambdas/core/lake/lake-engine';
import { lakeKeys } from '../../lambdas/core/lake/lake-layout';
import { encodeLakeRows } from '../../lambdas/core/lake/parquet-codec';
import { type ConfinedDuckDb, openConfinedDuckDb } from '../../local/lake/confined-duckdb';
import { createDuckDbLakeEngine } from '../../local/lake/duckdb-lake-engine';
import { utterance } from '../fixtures/athena-lake';
import { type EscapeWorld, escapeWorld, escapingQueries, SECRET } from '../fixtures/escaping-sql';
import { scratchDir } from '../fixtures/scratch';

// Made as the file loads: the tables of cases below are built from it.
const world: EscapeWorld = escapeWorld();
writeFileSync(join(world.lake, 'sub', 'inside.csv'), 'word\ninside\n');
const before = world.files();
/** Statements a confined DuckDB alone lets through, harmless there: the engine refuses them (below). */
const WITHIN_THE_LAKE = new Set([
  'COPY … TO inside the lake folder',
  'a write after a comment a carriage return ends',
  'PRAGMA',
]);
afterAll(() => {
  // Whatever each test did, no file appeared inside or outside the lake.
  expect(world.files()).toEqual(before);
});

describe('a confined DuckDB, statement by statement (no guard in front)', () => {
  let duck: ConfinedDuckDb;
  beforeAll(async () => {
    duck = await openConfinedDuckDb(world.lake);
  });
  afterAll(() => duck.close());

  it('reads a file inside the lake folder', async () => {
    const reader = await duck.connection.runAndReadAll(
      `SELECT word FROM read_csv('${join(world.lake, 'sub/inside.csv')}')`,
    );
    expect(reader.getRows()).toEqual([['inside']]);
  });

  it.each(escapingQueries(world).filter(([what]) => !WITHIN_THE_LAKE.has(what)))('refuses %s', async (_what, sql) => {
    const error = await duck.connection.runAndReadAll(sql).then(
      (reader) => new Error(`ran, answering ${JSON.stringify(reader.getRows())}`),
      (refusal: Error) => refusal,
    );
    expect(error.message).not.toContain(SECRET);
    expect(error.message).toMatch(/Permission Error|configuration|locked|disabled/);
  });
});

describe('the local lake engine', () => {
  const engine = createDuckDbLakeEngine({ root: world.lake });
  afterAll(async () => (await engine).close());

  it.each(escapingQueries(world))('refuses %s', async (_what, sql) => {
    const error = await (await engine).run({ sql, params: [] }).then(
      (result) => new Error(`ran, answering ${JSON.stringify(result.rows)}`),
      (refusal: Error) => refusal,
    );
    expect(error).toBeInstanceOf(LakeQueryFailedError);
    expect(error.message).not.toContain(SECRET);
  });

  it('opens over a lake folder not made yet (local mode mirrors the bucket on the first query)', async () => {
    const later = join(scratchDir('confined-later-'), 'mirror', 'bucket');
    const empty = await createDuckDbLakeEngine({ root: later });
    try {
      expect((await empty.run({ sql: 'SELECT count(*) AS n FROM utterances', params: [] })).rows).toEqual([[0]]);
    } finally {
      empty.close();
    }
  });

  it('still reads the lake through its views, with the root named through a link', async () => {
    const root = scratchDir('confined-root-');
    const path = join(root, lakeKeys.recentFile('utterances', '2026-11-23', 'bot-a'));
    mkdirSync(join(path, '..'), { recursive: true });
    writeFileSync(path, encodeLakeRows('utterances', [utterance('bot-a', 1, 'Ana', 'inside the lake')]));
    const linked = join(scratchDir('confined-link-'), 'lake');
    symlinkSync(root, linked);
    const linkedEngine = await createDuckDbLakeEngine({ root: linked });
    try {
      const result = await linkedEngine.run({ sql: 'SELECT text FROM utterances WHERE speaker = ?', params: ['Ana'] });
      expect(result.rows).toEqual([['inside the lake']]);
    } finally {
      linkedEngine.close();
    }
  });
});
