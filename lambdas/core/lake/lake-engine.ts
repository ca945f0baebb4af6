/**
 * What runs a lake query: Athena in AWS (athena-engine.ts), DuckDB over the same files locally
 * (local/lake/duckdb-lake-engine.ts). Both take one SQL text with positional `?` parameters and
 * answer in one shape, so every question (lake-questions.ts) is written once.
 */

/** A parameter value: bound by DuckDB, sent as a SQL literal in Athena's ExecutionParameters. */
export type LakeParam = string | number;
/** A cell: integers as numbers (all lake integers are below 2^53), text as strings. */
export type LakeValue = string | number | boolean | null;

export interface LakeQuery {
  /** One statement, SELECT or WITH, `?` for each parameter. */
  sql: string;
  params: readonly LakeParam[];
}

export interface LakeProgress {
  /** Engine state: QUEUED / RUNNING for Athena, RUNNING for DuckDB. */
  state: string;
  elapsedMs: number;
  /** Bytes read so far, when the engine says. */
  bytesScanned?: number;
}

export interface LakeRunOptions {
  /** Called while the query runs (about once a second), for MCP progress notifications and the CLI. */
  onProgress?(progress: LakeProgress): void;
  /** Aborts (and cancels at the engine) a query the caller stopped waiting for. */
  signal?: AbortSignal;
  /** Rows returned at most (the rest are not read); the result says whether more existed. */
  maxRows?: number;
  /**
   * Stop waiting after this long (the read API's route has ~25 s): Athena's query goes on, and
   * LakeQueryPendingError names it for `resume`. Unset: wait until it ends.
   */
  waitMs?: number;
}

export interface LakeResult {
  columns: string[];
  rows: LakeValue[][];
  /** More rows existed than `maxRows`. */
  truncated: boolean;
  /** What the engine read: Athena's DataScannedInBytes; for DuckDB the bytes of the files it opened. */
  bytesScanned: number;
  engine: 'athena' | 'duckdb';
  /** Athena's query execution id (results are kept under the results prefix until they expire). */
  queryId?: string;
  elapsedMs: number;
}

export interface LakeEngine {
  run(query: LakeQuery, options?: LakeRunOptions): Promise<LakeResult>;
  /**
   * The result of a query a `waitMs` run left running (Athena only: DuckDB never pends). With
   * `expected`, a query whose SQL or parameters differ is refused (LakeQueryFailedError): an id
   * alone must not open another caller's query.
   */
  resume?(queryId: string, options?: LakeRunOptions & { expected?: LakeQuery }): Promise<LakeResult>;
}

/** The query is still running after `waitMs`: ask again with its id. */
export class LakeQueryPendingError extends Error {
  override name = 'LakeQueryPendingError';
  constructor(readonly queryId: string) {
    super(`query ${queryId} is still running`);
  }
}

/** The SQL was refused before reaching the engine (not read-only, more than one statement). */
export class LakeQueryRefusedError extends Error {
  override name = 'LakeQueryRefusedError';
}

/** The engine ran the query and it failed (syntax, a missing column, the bytes-scanned cutoff). */
export class LakeQueryFailedError extends Error {
  override name = 'LakeQueryFailedError';
  constructor(
    message: string,
    /** True when the workgroup's bytes-scanned cutoff stopped it. */
    readonly cutoff = false,
  ) {
    super(message);
  }
}

/** The query names a table or column the lake does not have: the SQL is wrong, not the engine. */
export class LakeUnknownNameError extends LakeQueryFailedError {
  override name = 'LakeUnknownNameError';
}

/** Rows of a result as objects keyed by column name. */
export const resultObjects = (result: LakeResult): Array<Record<string, LakeValue>> =>
  result.rows.map((row) => Object.fromEntries(result.columns.map((name, i) => [name, row[i] ?? null])));
