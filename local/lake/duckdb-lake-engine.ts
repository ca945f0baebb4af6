/**
 * The lake engine of local mode: DuckDB (@duckdb/node-api, in process) over a directory that holds
 * the lake's files under the same keys as the bucket (`<root>/lake/recent/utterances/day=…/x.parquet`).
 * Each run declares the storage tables over the files present then (hidden `_`/`.` names are
 * skipped, as Athena skips them) and the users' views with the same SQL text Athena's views hold
 * (lake-layout.ts), then runs the question's SQL with its `?` parameters bound.
 * DuckDB is confined to the root (confined-duckdb.ts), and the text must be one statement DuckDB
 * reads as a query: a COPY could otherwise still write inside the root, and DuckDB would run
 * every statement before the last one unasked.
 */
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { type DuckDBConnection, type DuckDBValue, StatementType } from '@duckdb/node-api';
import type { LakeEngine, LakeQuery, LakeResult, LakeRunOptions, LakeValue } from '../../lambdas/core/lake/lake-engine';
import {
  COMPACTED_THROUGH_COLUMN,
  LAKE_STATE_TABLE,
  lakeKeys,
  lakeViewSql,
  storageTableName,
} from '../../lambdas/core/lake/lake-layout';
import {
  LAKE_COLUMNS,
  LAKE_TABLE_NAMES,
  type LakeColumnType,
  type LakeTableName,
} from '../../lambdas/core/lake/lake-tables';
import { openConfinedDuckDb } from './confined-duckdb';
import { duckDbFailure } from './duckdb-failure';

const DUCKDB_TYPE: Record<LakeColumnType, string> = { string: 'VARCHAR', bigint: 'BIGINT', boolean: 'BOOLEAN' };

export interface DuckDbLakeEngineOptions {
  /** The directory standing for the bucket: lake keys are paths under it. */
  root: string;
}

export async function createDuckDbLakeEngine(
  options: DuckDbLakeEngineOptions,
): Promise<LakeEngine & { close(): void }> {
  // Paths are named under the root's real path, the one DuckDB is confined to.
  const { dir: root, connection, close } = await openConfinedDuckDb(options.root);
  return {
    async run(query: LakeQuery, runOptions: LakeRunOptions = {}): Promise<LakeResult> {
      const started = performance.now();
      const bytesScanned = await declareTables(connection, root);
      runOptions.onProgress?.({ state: 'RUNNING', elapsedMs: 0 });
      let reader: Awaited<ReturnType<DuckDBConnection['runAndReadAll']>>;
      try {
        reader = await runOneQuery(connection, query);
      } catch (error) {
        throw duckDbFailure((error as Error).message);
      }
      const columns = reader.columnNames();
      const all = reader.getRows();
      const limit = runOptions.maxRows ?? Number.POSITIVE_INFINITY;
      return {
        columns,
        rows: all.slice(0, limit).map((row) => row.map(toLakeValue)),
        truncated: all.length > limit,
        bytesScanned,
        engine: 'duckdb',
        elapsedMs: performance.now() - started,
      };
    },
    close,
  };
}

/** Runs `query` if DuckDB reads it as exactly one SELECT; throws, running nothing, otherwise. */
async function runOneQuery(connection: DuckDBConnection, query: LakeQuery) {
  const statements = await connection.extractStatements(query.sql);
  if (statements.count !== 1)
    throw new Error(`only one statement is run, and DuckDB reads ${statements.count} in this text`);
  const prepared = await statements.prepare(0);
  try {
    if (prepared.statementType !== StatementType.SELECT)
      throw new Error(`only a query is run, and DuckDB reads a ${StatementType[prepared.statementType]} statement`);
    prepared.bind([...query.params] as DuckDBValue[]);
    return await prepared.runAndReadAll();
  } finally {
    prepared.destroySync();
  }
}

function toLakeValue(value: DuckDBValue): LakeValue {
  if (value === null || typeof value === 'string' || typeof value === 'boolean' || typeof value === 'number')
    return value;
  if (typeof value === 'bigint') return Number(value);
  return String(value);
}

/** (Re)declares every storage table over the files now present; answers their total size. */
async function declareTables(connection: DuckDBConnection, root: string): Promise<number> {
  let bytes = 0;
  for (const table of LAKE_TABLE_NAMES) {
    for (const tier of ['recent', 'compacted'] as const) {
      const files = await parquetFiles(join(root, lakeKeys.tablePrefix(tier, table)));
      bytes += files.bytes;
      await connection.run(
        `CREATE OR REPLACE VIEW ${storageTableName(table, tier)} AS ${storageSelect(table, files.paths)}`,
      );
    }
  }
  const state = await parquetFiles(join(root, lakeKeys.statePrefix()));
  bytes += state.bytes;
  const stateSelect =
    state.paths.length === 0
      ? `SELECT CAST(NULL AS VARCHAR) AS ${COMPACTED_THROUGH_COLUMN} WHERE false`
      : `SELECT * FROM read_parquet(${pathList(state.paths)})`;
  await connection.run(`CREATE OR REPLACE VIEW ${LAKE_STATE_TABLE} AS ${stateSelect}`);
  for (const table of LAKE_TABLE_NAMES) {
    await connection.run(`CREATE OR REPLACE VIEW ${table} AS ${lakeViewSql(table)}`);
  }
  return bytes;
}

/** The files of one storage table with `day` from their path, or a typed empty select. */
function storageSelect(table: LakeTableName, paths: string[]): string {
  if (paths.length > 0) {
    return `SELECT * FROM read_parquet(${pathList(paths)}, hive_partitioning = true, hive_types = {'day': VARCHAR}, union_by_name = true)`;
  }
  const columns = LAKE_COLUMNS[table].map((column) => `CAST(NULL AS ${DUCKDB_TYPE[column.type]}) AS ${column.name}`);
  return `SELECT ${columns.join(', ')}, CAST(NULL AS VARCHAR) AS day WHERE false`;
}

const pathList = (paths: string[]) => `[${paths.map((path) => `'${path.replaceAll("'", "''")}'`).join(', ')}]`;

async function parquetFiles(dir: string): Promise<{ paths: string[]; bytes: number }> {
  const paths: string[] = [];
  let bytes = 0;
  let entries: string[];
  try {
    entries = await readdir(dir, { recursive: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { paths, bytes };
    throw error;
  }
  for (const entry of entries.sort()) {
    const name = entry.split('/').at(-1) ?? '';
    if (!name.endsWith('.parquet') || name.startsWith('_') || name.startsWith('.')) continue;
    const path = join(dir, entry);
    paths.push(path);
    bytes += (await stat(path)).size;
  }
  return { paths, bytes };
}
