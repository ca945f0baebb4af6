/**
 * Where the lake lives in the stack's bucket, and the views every query reads.
 *
 * Two storage tables per table, so that compaction is never seen half done:
 *  - `recent`: one file per meeting and table, `lake/recent/<table>/day=<day>/<bot_id>.parquet`,
 *    written when the meeting is archived and overwritten whole (an atomic PUT) when its rows change;
 *  - `compacted`: one file per closed day and table, `lake/compacted/<table>/day=<day>/data.parquet`,
 *    written by compaction and rewritten whole (again one PUT) when an erasure or a late write
 *    changes that day.
 * A one-row state table, `lake/state/compaction.parquet`, holds `compacted_through`: the last day
 * whose rows are read from `compacted`. Days up to it come from `compacted`, later days from
 * `recent`; compaction writes a day's compacted files first (not yet read), then moves the mark
 * in one PUT, then deletes the day's recent files (no longer read). A query therefore sees every
 * row exactly once before, during and after compaction. The views below say this in SQL, and are
 * the only names users query (`meetings`, `utterances`, `participants`).
 */
import { LAKE_TABLE_NAMES, type LakeTableName } from './lake-tables';

export const LAKE_PREFIX = 'lake/';
/** Where Athena writes query results (the workgroup enforces it); erasure scans it, a lifecycle rule expires it. */
export const LAKE_RESULTS_PREFIX = 'lake-results/';

export type LakeTier = 'recent' | 'compacted';

/** Glue / DuckDB name of a storage table: `utterances_recent`, `utterances_compacted`. */
export const storageTableName = (table: LakeTableName, tier: LakeTier): string => `${table}_${tier}`;
export const LAKE_STATE_TABLE = 'lake_state';
/** The state table's one column. */
export const COMPACTED_THROUGH_COLUMN = 'compacted_through';
/** `compacted_through` before any day was compacted: earlier than every day. */
export const NOTHING_COMPACTED = '0000-00-00';

export const lakeKeys = {
  /** Everything of one tier and table: `lake/recent/utterances/`. */
  tablePrefix: (tier: LakeTier, table: LakeTableName) => `${LAKE_PREFIX}${tier}/${table}/`,
  /** One day of one tier and table (the partition's location). */
  dayPrefix: (tier: LakeTier, table: LakeTableName, day: string) => `${lakeKeys.tablePrefix(tier, table)}day=${day}/`,
  recentFile: (table: LakeTableName, day: string, botId: string) =>
    `${lakeKeys.dayPrefix('recent', table, day)}${botId}.parquet`,
  compactedFile: (table: LakeTableName, day: string) => `${lakeKeys.dayPrefix('compacted', table, day)}data.parquet`,
  statePrefix: () => `${LAKE_PREFIX}state/`,
  stateFile: () => `${LAKE_PREFIX}state/compaction.parquet`,
} as const;

/** The day (`yyyy-MM-dd`) and bot id of a recent file's key, or undefined for any other key. */
export function parseRecentKey(key: string): { table: LakeTableName; day: string; botId: string } | undefined {
  const match = /^lake\/recent\/([a-z]+)\/day=(\d{4}-\d{2}-\d{2})\/(.+)\.parquet$/.exec(key);
  const table = match?.[1] as LakeTableName | undefined;
  if (match === null || table === undefined || !LAKE_TABLE_NAMES.includes(table)) return undefined;
  return { table, day: match[2] as string, botId: match[3] as string };
}

/** The lake day of a listing time (ISO or epoch ms): its UTC date. */
export const lakeDayOf = (at: string | number): string => new Date(at).toISOString().slice(0, 10);

/**
 * The view users query, one SQL text for Athena (Trino) and DuckDB: a closed day's rows from the
 * compacted table, every later day's from the recent one.
 */
export function lakeViewSql(table: LakeTableName): string {
  const mark = `(SELECT coalesce(max(${COMPACTED_THROUGH_COLUMN}), '${NOTHING_COMPACTED}') FROM ${LAKE_STATE_TABLE})`;
  return [
    `SELECT * FROM ${storageTableName(table, 'compacted')} WHERE day <= ${mark}`,
    'UNION ALL',
    `SELECT * FROM ${storageTableName(table, 'recent')} WHERE day > ${mark}`,
  ].join('\n');
}
