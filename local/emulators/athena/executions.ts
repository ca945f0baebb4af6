/**
 * Query executions: each one QUEUED, then RUNNING while the engine runs it, then SUCCEEDED (its CSV
 * and metadata written to the output location first, so a client that sees SUCCEEDED can read
 * them), FAILED (Athena's reason and AthenaError) or CANCELLED (stopped by a user, or by the
 * workgroup's bytes-scanned cutoff). What Athena's analyzer refuses fails the query, not the call:
 * a parameter count that does not match the `?`s, a table outside the context database.
 */
import { randomUUID } from 'node:crypto';
import { GetObjectCommand, NoSuchKey, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import type { LakeEngine, LakeResult } from '../../../lambdas/core/lake/lake-engine';
import { duckDbText } from '../../lake/duckdb-failure';
import { invalidRequest, queryExecutionNotFound } from './errors';
import { parseResultCsv, type ResultShape, resultCsv, type StoredResult, storedResult } from './results';
import { lineAndColumn, parameterValue, placeholderCount, tableReferences } from './sql-text';

export type QueryState = 'QUEUED' | 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'CANCELLED';

/** Athena's classification of a failure the user can fix (category 2) by Trino error name. */
const ERROR_TYPES: Record<string, number> = {
  TABLE_NOT_FOUND: 1301,
  COLUMN_NOT_FOUND: 1006,
  INVALID_PARAMETER_USAGE: 1006,
  SYNTAX_ERROR: 1000,
  INVALID_CAST_ARGUMENT: 1100,
  GENERIC_USER_ERROR: 1000,
};

/** The reason Athena gives a query its workgroup's cutoff stopped (the state is CANCELLED). */
export const CUTOFF_REASON = 'Bytes scanned limit was exceeded';
export const CANCELLED_BY_USER = 'Query cancelled by user';

export interface Execution {
  id: string;
  query: string;
  /** ExecutionParameters as given (Athena returns them with the execution). */
  params: string[];
  workGroup: string;
  database: string | undefined;
  /** The result file's full location, `<OutputLocation><id>.csv`. */
  outputLocation: string;
  state: QueryState;
  reason?: string;
  /** Trino's error name, for AthenaError. */
  errorName?: string;
  submittedAt: number;
  startedAt?: number;
  completedAt?: number;
  bytesScanned: number;
  /** A succeeded query's columns; its rows are read back from the result file (which erasure may delete). */
  result?: ResultShape;
  abort: AbortController;
}

export interface StartRequest {
  query: string;
  params: string[];
  workGroup: string;
  database: string | undefined;
  /** The output location the query writes under (the workgroup's or the request's), `s3://bucket/prefix/`. */
  outputLocation: string;
  cutoffBytes: number | undefined;
  token: string | undefined;
}

export interface ExecutionsOptions {
  engine: LakeEngine;
  s3: S3Client;
  /** The one database (Glue schema) whose tables the engine holds. */
  database: string;
}

/** A failure with its Trino error name; the reason reads `<NAME>: <message>` unless Athena words it bare. */
class QueryFailure extends Error {
  constructor(
    readonly errorName: string,
    message: string,
    named = true,
  ) {
    super(named ? `${errorName}: ${message}` : message);
  }
}

export class Executions {
  private readonly byId = new Map<string, Execution>();
  private readonly byToken = new Map<string, { id: string; request: StartRequest }>();
  private readonly running = new Set<Promise<void>>();

  constructor(private readonly options: ExecutionsOptions) {}

  start(request: StartRequest): string {
    if (request.token !== undefined) {
      const earlier = this.byToken.get(request.token);
      if (earlier !== undefined) {
        const same =
          earlier.request.query === request.query &&
          earlier.request.database === request.database &&
          earlier.request.outputLocation === request.outputLocation;
        if (!same) throw invalidRequest('Idempotent parameters do not match', 'IDEMPOTENT_PARAMETER_MISMATCH');
        return earlier.id;
      }
    }
    const id = randomUUID();
    const execution: Execution = {
      id,
      query: request.query,
      params: request.params,
      workGroup: request.workGroup,
      database: request.database,
      outputLocation: `${request.outputLocation}${id}.csv`,
      state: 'QUEUED',
      submittedAt: Date.now(),
      bytesScanned: 0,
      abort: new AbortController(),
    };
    this.byId.set(id, execution);
    if (request.token !== undefined) this.byToken.set(request.token, { id, request });
    const run = this.run(execution, request).finally(() => this.running.delete(run));
    this.running.add(run);
    return id;
  }

  get(id: string): Execution {
    const execution = this.byId.get(id);
    if (execution === undefined) throw queryExecutionNotFound(id);
    return execution;
  }

  /** Stops a queued or running query; a finished one is left as it is (Athena answers both alike). */
  stop(id: string): void {
    const execution = this.get(id);
    if (execution.state === 'QUEUED' || execution.state === 'RUNNING') {
      this.finish(execution, 'CANCELLED', CANCELLED_BY_USER);
      execution.abort.abort(new Error(CANCELLED_BY_USER));
    }
  }

  /** Waits for the queries still running (the emulator's close). */
  async settle(): Promise<void> {
    for (const execution of this.byId.values()) {
      if (execution.state === 'QUEUED' || execution.state === 'RUNNING') this.stop(execution.id);
    }
    await Promise.allSettled([...this.running]);
  }

  private async run(execution: Execution, request: StartRequest): Promise<void> {
    // The call answers first: the query is QUEUED when StartQueryExecution returns.
    await new Promise((resolve) => setImmediate(resolve));
    if (execution.state !== 'QUEUED') return;
    execution.state = 'RUNNING';
    execution.startedAt = Date.now();
    let result: LakeResult;
    try {
      const sql = this.analyzed(request);
      const params = placeholderCount(request.query) === 0 ? [] : request.params.map(parameterValue);
      result = await this.options.engine.run(
        { sql, params },
        {
          signal: execution.abort.signal,
        },
      );
    } catch (error) {
      if (execution.state !== 'RUNNING') return;
      const failure = error instanceof QueryFailure ? error : engineFailure(error);
      execution.errorName = failure.errorName;
      this.finish(execution, 'FAILED', failure.message);
      return;
    }
    if (execution.state !== 'RUNNING') return;
    if (request.cutoffBytes !== undefined && result.bytesScanned > request.cutoffBytes) {
      // Athena stops the scan at the cutoff: what it reports scanned is the cutoff itself.
      execution.bytesScanned = request.cutoffBytes;
      this.finish(execution, 'CANCELLED', CUTOFF_REASON);
      return;
    }
    execution.bytesScanned = result.bytesScanned;
    const stored = storedResult(result);
    try {
      await this.writeResult(execution, stored);
    } catch (error) {
      if (execution.state !== 'RUNNING') return;
      execution.errorName = 'GENERIC_INTERNAL_ERROR';
      this.finish(
        execution,
        'FAILED',
        `Error writing query results to ${execution.outputLocation}: ${(error as Error).message}`,
      );
      return;
    }
    if (execution.state !== 'RUNNING') return;
    execution.result = { columns: stored.columns, types: stored.types };
    this.finish(execution, 'SUCCEEDED');
  }

  /** What Athena's analyzer checks before running: parameters, then the tables' database. The SQL the engine runs. */
  private analyzed(request: StartRequest): string {
    const expected = placeholderCount(request.query);
    // Values given to a statement without any `?` are ignored, as Athena ignores them.
    if (expected > 0 && expected !== request.params.length) {
      throw new QueryFailure(
        'INVALID_PARAMETER_USAGE',
        `Incorrect number of parameters: expected ${expected} but found ${request.params.length}`,
        false,
      );
    }
    let sql = request.query;
    const context = request.database ?? 'default';
    // Later references first, so earlier offsets stay right while names are rewritten.
    for (const reference of tableReferences(request.query).reverse()) {
      const parts = reference.parts;
      const table = parts.at(-1) as string;
      const database = parts.length >= 2 ? (parts.at(-2) as string) : context;
      const catalog = parts.length === 3 ? (parts[0] as string) : 'awsdatacatalog';
      if (catalog !== 'awsdatacatalog' || database !== this.options.database) {
        throw new QueryFailure(
          'TABLE_NOT_FOUND',
          `${lineAndColumn(request.query, reference.at)}: Table '${catalog}.${database}.${table}' does not exist`,
        );
      }
      // The engine knows its tables by their bare names.
      sql = `${sql.slice(0, reference.at)}${table}${sql.slice(reference.at + reference.length)}`;
    }
    return sql;
  }

  /** The result file's rows, header first, as GetQueryResults reads them; undefined once the file is gone. */
  async resultRows(execution: Execution): Promise<Array<Array<string | null>> | undefined> {
    const { bucket, key } = s3Location(execution.outputLocation);
    try {
      const object = await this.options.s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
      return parseResultCsv((await object.Body?.transformToString('utf8')) ?? '');
    } catch (error) {
      if (error instanceof NoSuchKey) return undefined;
      throw error;
    }
  }

  private async writeResult(execution: Execution, result: StoredResult): Promise<void> {
    const { bucket, key } = s3Location(execution.outputLocation);
    await this.options.s3.send(
      new PutObjectCommand({ Bucket: bucket, Key: key, Body: resultCsv(result), ContentType: 'text/csv' }),
    );
    // Athena's metadata file is its own binary format; this one holds the same facts as JSON.
    const metadata = JSON.stringify({ columns: result.columns, types: result.types, rows: result.rows.length });
    await this.options.s3.send(
      new PutObjectCommand({ Bucket: bucket, Key: `${key}.metadata`, Body: metadata, ContentType: 'application/json' }),
    );
  }

  private finish(execution: Execution, state: QueryState, reason?: string): void {
    execution.state = state;
    if (reason !== undefined) execution.reason = reason;
    execution.completedAt = Date.now();
  }
}

/** AthenaError of a FAILED query (a cancelled one has none). */
export function athenaError(execution: Execution) {
  if (execution.state !== 'FAILED') return undefined;
  const name = execution.errorName ?? 'GENERIC_USER_ERROR';
  const userError = name !== 'GENERIC_INTERNAL_ERROR';
  return {
    ErrorCategory: userError ? 2 : 1,
    ErrorType: ERROR_TYPES[name] ?? (userError ? 1000 : 200),
    Retryable: false,
    ErrorMessage: execution.reason,
  };
}

/** An engine error under the Trino error name Athena would give it (DuckDB names its error classes). */
function engineFailure(error: unknown): QueryFailure {
  const message = duckDbText(error);
  const kinds: Array<[RegExp, string]> = [
    [/^Parser Error: /, 'SYNTAX_ERROR'],
    [/^Catalog Error: /, 'TABLE_NOT_FOUND'],
    [/^Binder Error: /, 'COLUMN_NOT_FOUND'],
    [/^Conversion Error: /, 'INVALID_CAST_ARGUMENT'],
  ];
  for (const [pattern, name] of kinds) {
    if (pattern.test(message)) return new QueryFailure(name, message.replace(pattern, ''));
  }
  return new QueryFailure('GENERIC_USER_ERROR', message);
}

/** `s3://bucket/prefix/…` split; anything else is refused as Athena refuses it. */
export function s3Location(location: string): { bucket: string; key: string } {
  const match = /^s3:\/\/([^/]+)\/?(.*)$/.exec(location);
  if (match === null) throw invalidRequest('outputLocation is not a valid S3 path.');
  return { bucket: match[1] as string, key: match[2] as string };
}
