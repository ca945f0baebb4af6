/**
 * The lake engine in AWS: Amazon Athena, in the stack's workgroup (which enforces the results
 * location and the bytes-scanned cutoff) and the lake's Glue database.
 *
 * A query starts with its `?` parameters as ExecutionParameters. Athena reads each value as SQL, so
 * each is sent as a literal: a string single-quoted with its quotes doubled (text a user typed
 * stays one value, whatever it holds), a number as digits. The run then polls the execution with a
 * back-off capped near a second (progress reaches the caller about once a second), stops waiting
 * after `waitMs` (the query goes on; `resume` picks it up by id), cancels it at Athena when the
 * caller aborts, and reads the result pages up to `maxRows`, typed by the result's column types.
 */
import {
  type AthenaClient,
  type ColumnInfo,
  GetQueryExecutionCommand,
  GetQueryResultsCommand,
  InvalidRequestException,
  type QueryExecution,
  type Row,
  StartQueryExecutionCommand,
  StopQueryExecutionCommand,
} from '@aws-sdk/client-athena';
import {
  type LakeEngine,
  type LakeParam,
  type LakeQuery,
  LakeQueryFailedError,
  LakeQueryPendingError,
  type LakeResult,
  type LakeRunOptions,
  type LakeValue,
} from './lake-engine';

export interface AthenaLakeEngineOptions {
  athena: AthenaClient;
  workGroup: string;
  /** The Glue database of the lake's tables (unqualified names resolve in it). */
  database: string;
  /** First pause between polls (default 200 ms); it grows to at most `maxPollMs`. */
  pollMs?: number;
  /** Longest pause between polls (default 1000 ms: progress about once a second). */
  maxPollMs?: number;
}

/** The reason Athena gives a query its workgroup's per-query cutoff stopped. */
const CUTOFF_REASON = /bytes scanned limit was exceeded/i;
/** Athena's largest GetQueryResults page. */
const PAGE_ROWS = 1000;

/** A parameter as the SQL literal Athena reads back as exactly that value. */
export function sqlLiteral(value: LakeParam): string {
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new LakeQueryFailedError(`parameter ${value} is not a finite number`);
    return String(value);
  }
  return `'${value.replaceAll("'", "''")}'`;
}

export function createAthenaLakeEngine(options: AthenaLakeEngineOptions): LakeEngine {
  const firstPause = options.pollMs ?? 200;
  const longestPause = Math.max(firstPause, options.maxPollMs ?? 1000);

  /** Polls until the query ends, the caller's wait runs out, or the caller aborts. */
  async function waitForEnd(queryId: string, runOptions: LakeRunOptions, started: number): Promise<QueryExecution> {
    let pause = firstPause;
    for (;;) {
      throwIfAborted(runOptions.signal);
      const { QueryExecution: execution } = await options.athena.send(
        new GetQueryExecutionCommand({ QueryExecutionId: queryId }),
        { abortSignal: runOptions.signal },
      );
      const state = execution?.Status?.State ?? 'QUEUED';
      const elapsedMs = performance.now() - started;
      if (state !== 'QUEUED' && state !== 'RUNNING') return execution ?? {};
      runOptions.onProgress?.({
        state,
        elapsedMs,
        ...(execution?.Statistics?.DataScannedInBytes === undefined
          ? {}
          : { bytesScanned: execution.Statistics.DataScannedInBytes }),
      });
      const left = runOptions.waitMs === undefined ? Number.POSITIVE_INFINITY : runOptions.waitMs - elapsedMs;
      if (left <= 0) throw new LakeQueryPendingError(queryId);
      await sleep(Math.min(pause, left), runOptions.signal);
      pause = Math.min(longestPause, Math.ceil(pause * 1.5));
    }
  }

  async function finish(
    queryId: string,
    runOptions: LakeRunOptions,
    started: number,
    expected?: LakeQuery,
  ): Promise<LakeResult> {
    let execution: QueryExecution;
    try {
      execution = await waitForEnd(queryId, runOptions, started);
      if (expected !== undefined && !sameQuery(execution, expected))
        throw new LakeQueryFailedError(`query ${queryId} is not the question asked`);
    } catch (error) {
      if (runOptions.signal?.aborted) {
        // The caller stopped waiting: the query must not go on scanning (and billing) without anyone reading it.
        await options.athena.send(new StopQueryExecutionCommand({ QueryExecutionId: queryId })).catch(() => undefined);
        throw abortReason(runOptions.signal);
      }
      // An id Athena does not know (a resume of a foreign or expired id): its words, as a failed query.
      if (error instanceof InvalidRequestException) throw new LakeQueryFailedError(error.message);
      throw error;
    }
    const status = execution.Status;
    const reason = status?.StateChangeReason ?? status?.AthenaError?.ErrorMessage;
    if (status?.State !== 'SUCCEEDED') {
      const cutoff = reason !== undefined && CUTOFF_REASON.test(reason);
      throw new LakeQueryFailedError(
        cutoff
          ? `query ${queryId} scanned more than the workgroup allows per query (${reason})`
          : `query ${queryId} ${status?.State === 'CANCELLED' ? 'was cancelled' : 'failed'}: ${reason ?? 'no reason given'}`,
        cutoff,
      );
    }
    const { columns, rows, truncated } = await readResults(options.athena, queryId, runOptions);
    return {
      columns,
      rows,
      truncated,
      bytesScanned: execution.Statistics?.DataScannedInBytes ?? 0,
      engine: 'athena',
      queryId,
      elapsedMs: execution.Statistics?.TotalExecutionTimeInMillis ?? performance.now() - started,
    };
  }

  return {
    async run(query: LakeQuery, runOptions: LakeRunOptions = {}): Promise<LakeResult> {
      const started = performance.now();
      throwIfAborted(runOptions.signal);
      let queryId: string | undefined;
      try {
        ({ QueryExecutionId: queryId } = await options.athena.send(
          new StartQueryExecutionCommand({
            QueryString: query.sql,
            WorkGroup: options.workGroup,
            QueryExecutionContext: { Database: options.database },
            ...(query.params.length === 0 ? {} : { ExecutionParameters: query.params.map(sqlLiteral) }),
          }),
          { abortSignal: runOptions.signal },
        ));
      } catch (error) {
        // Refused before it ran (a malformed query, an unknown workgroup): Athena's words, as a failed query.
        if (error instanceof InvalidRequestException) throw new LakeQueryFailedError(error.message);
        throw error;
      }
      if (queryId === undefined) throw new LakeQueryFailedError('Athena started the query without an id');
      return finish(queryId, runOptions, started);
    },
    resume(queryId: string, runOptions: LakeRunOptions & { expected?: LakeQuery } = {}): Promise<LakeResult> {
      const { expected, ...rest } = runOptions;
      return finish(queryId, rest, performance.now(), expected);
    },
  };
}

/** Every page until `maxRows` rows are read (one more tells whether the result was cut). */
async function readResults(
  athena: AthenaClient,
  queryId: string,
  runOptions: LakeRunOptions,
): Promise<{ columns: string[]; rows: LakeValue[][]; truncated: boolean }> {
  const maxRows = runOptions.maxRows ?? Number.POSITIVE_INFINITY;
  const rows: LakeValue[][] = [];
  let columns: string[] = [];
  let types: string[] = [];
  let nextToken: string | undefined;
  let first = true;
  do {
    const page = await athena.send(
      new GetQueryResultsCommand({
        QueryExecutionId: queryId,
        // No more than needed: the rows still wanted, one more (was the result cut?) and the header.
        MaxResults: Math.min(PAGE_ROWS, maxRows - rows.length + 2),
        ...(nextToken === undefined ? {} : { NextToken: nextToken }),
      }),
      { abortSignal: runOptions.signal },
    );
    let pageRows: Row[] = page.ResultSet?.Rows ?? [];
    if (first) {
      const info: ColumnInfo[] = page.ResultSet?.ResultSetMetadata?.ColumnInfo ?? [];
      columns = info.map((column) => column.Name ?? '');
      types = info.map((column) => column.Type ?? 'varchar');
      // The first row of the first page is the header (the column labels), not data.
      pageRows = pageRows.slice(1);
      first = false;
    }
    for (const row of pageRows) rows.push((row.Data ?? []).map((datum, i) => typed(datum.VarCharValue, types[i])));
    nextToken = page.NextToken;
  } while (nextToken !== undefined && rows.length <= maxRows);
  return { columns, rows: rows.slice(0, maxRows), truncated: rows.length > maxRows };
}

const NUMBER_TYPES = new Set(['tinyint', 'smallint', 'integer', 'bigint', 'double', 'real', 'float', 'decimal']);

/** A cell by its column's type: Athena sends every value as text, and NULL as no value. */
function typed(value: string | undefined, type: string | undefined): LakeValue {
  if (value === undefined) return null;
  const base = (type ?? 'varchar').toLowerCase().replace(/\(.*$/, '');
  if (NUMBER_TYPES.has(base)) return Number(value);
  if (base === 'boolean') return value === 'true';
  return value;
}

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw abortReason(signal);
}

function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new DOMException('the query was aborted', 'AbortError');
}

/** Waits `ms`, or less when the signal aborts (then throws). */
function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortReason(signal));
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortReason(signal as AbortSignal));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Whether an execution ran exactly this SQL with exactly these parameters (as Athena keeps them). */
function sameQuery(execution: QueryExecution, expected: LakeQuery): boolean {
  const params = execution.ExecutionParameters ?? [];
  const wanted = expected.params.map(sqlLiteral);
  return execution.Query === expected.sql && params.length === wanted.length && params.every((p, i) => p === wanted[i]);
}
