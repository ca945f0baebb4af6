/**
 * The read-only guard's bench, in a process of its own so that the first call pays what a CLI
 * `query` pays: loading Trino's grammar and the parser's first predictions. Then a typical query,
 * and the slowest texts up to MAX_SQL_CHARS we found. Prints one JSON line of milliseconds.
 */
import { LakeQueryRefusedError } from '../../lambdas/core/lake/lake-engine';
import { assertReadOnlySql, MAX_SQL_CHARS, MAX_SQL_NESTING } from '../../lambdas/core/lake/read-only-sql';
import { median } from '../stats';

const TYPICAL =
  'SELECT bot_id, speaker, text FROM utterances WHERE day BETWEEN ? AND ? AND strpos(lower(text), ?) > 0 ORDER BY bot_id, seq LIMIT 50';
const half = (MAX_SQL_CHARS - 8) / 2;
const deepest = MAX_SQL_NESTING;
/** Texts of the longest or deepest shape the guard reads to the end (all accepted but the last). */
const WORST: Record<string, string> = {
  'comment, 256 KiB': `SELECT 1 --${' '.repeat(MAX_SQL_CHARS - 11)}`,
  'select list, 256 KiB': `SELECT 1${',1'.repeat(half)}`,
  'sum chain, 256 KiB': `SELECT 1${'+1'.repeat(half)}`,
  [`parentheses ${deepest} deep`]: `SELECT ${'('.repeat(deepest)}1${')'.repeat(deepest)}`,
  [`CASE ${deepest} deep`]: `SELECT ${'CASE WHEN true THEN '.repeat(deepest)}1${' END'.repeat(deepest)}`,
  'parentheses 131,068 deep (refused)': `SELECT ${'('.repeat(half)}1${')'.repeat(half - 1)}`,
};

async function timed(sql: string): Promise<number> {
  const started = performance.now();
  try {
    await assertReadOnlySql(sql);
  } catch (error) {
    if (!(error instanceof LakeQueryRefusedError)) throw error;
  }
  return performance.now() - started;
}

const figures: Record<string, number> = { 'first query (grammar loaded)': await timed(TYPICAL) };
const again: number[] = [];
for (let i = 0; i < 50; i++) again.push(await timed(TYPICAL));
figures['typical query, median of 50'] = median(again);
for (const [name, sql] of Object.entries(WORST)) figures[name] = await timed(sql);
console.log(JSON.stringify(figures));
