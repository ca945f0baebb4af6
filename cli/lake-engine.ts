/**
 * The lake engine for a target, as `search`, `query` and the MCP server use it:
 *  - a deployed stack: Athena, in the workgroup and Glue database the stack's outputs name
 *    (LakeWorkGroup, LakeDatabase), with the user's own AWS credentials: IAM decides what they
 *    may read, and the workgroup's enforced bytes-scanned cutoff bounds what a query costs;
 *  - local mode: DuckDB over a copy of the local S3's `lake/` kept beside the endpoints file
 *    (DuckDB reads local files only), brought up to date before each query (changed objects only).
 * The engines are loaded when asked for, so the other commands never load DuckDB or Athena's SDK.
 */
import {
  type LakeEngine,
  type LakeProgress,
  LakeQueryFailedError,
  LakeQueryRefusedError,
  type LakeRunOptions,
  LakeUnknownNameError,
} from '../lambdas/core/lake/lake-engine';
import { LakeInputError } from '../lambdas/core/lake/lake-questions-contract';
import { CliError, EXIT, UsageError } from './exit-codes';
import type { Target } from './target';

/** An engine the caller closes when done (DuckDB's instance, Athena's HTTP sockets). */
export type ClosableLakeEngine = LakeEngine & { close(): void };

/** Which engine `lakeEngineFor` would open: for messages and tests. */
export function lakeEngineKind(target: Target): 'athena' | 'duckdb' {
  const resources = target.resources;
  if (resources === undefined)
    throw new CliError(
      'the meetings lake is read with Athena (--stack NAME) or, in local mode, DuckDB (--local); --endpoint names only the HTTP API',
      EXIT.usage,
    );
  return resources.local ? 'duckdb' : 'athena';
}

export async function lakeEngineFor(target: Target): Promise<ClosableLakeEngine> {
  const kind = lakeEngineKind(target);
  const { lake, recordingsBucket: bucket, lakeMirrorDir: dir } = target.resources ?? { local: false };
  if (kind === 'athena') {
    if (lake === undefined)
      throw new CliError(
        `${target.label} has no LakeWorkGroup and LakeDatabase outputs: deploy the current version to search its lake`,
      );
    const [{ AthenaClient }, { createAthenaLakeEngine }] = await Promise.all([
      import('@aws-sdk/client-athena'),
      import('../lambdas/core/lake/athena-engine'),
    ]);
    // The default credential chain and the region resolveTarget settled on (AWS_REGION).
    const athena = new AthenaClient({});
    const engine = createAthenaLakeEngine({ athena, workGroup: lake.workGroup, database: lake.database });
    return Object.assign(engine, { close: () => athena.destroy() });
  }
  if (bucket === undefined || dir === undefined)
    throw new CliError(
      `${target.label} names no recordings bucket (where local mode keeps the lake): restart npm run dev to rewrite it`,
    );
  const [{ s3Client }, { createMirroredLakeEngine }] = await Promise.all([
    import('../lambdas/shared/s3-client'),
    import('../local/lake/mirrored-lake-engine'),
  ]);
  const s3 = s3Client();
  const engine = await createMirroredLakeEngine({ s3, bucket, dir });
  return {
    run: (query, options) => engine.run(query, options),
    close() {
      engine.close();
      s3.destroy();
    },
  };
}

/**
 * Ctrl-C while a query runs: the first aborts it (Athena stops the query, so it stops costing),
 * a second ends the CLI at once.
 */
export function abortOnInterrupt(): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  const onInterrupt = () => {
    if (controller.signal.aborted) process.exit(130);
    process.stderr.write('\nstopping the query (Ctrl-C again to quit at once)\n');
    controller.abort();
  };
  process.on('SIGINT', onInterrupt);
  return { signal: controller.signal, dispose: () => process.off('SIGINT', onInterrupt) };
}

const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB'] as const;

/** `1.2 GiB`: bytes for people. */
export function humanBytes(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${value} B` : `${value.toFixed(1)} ${UNITS[unit]}`;
}

/** What a query cost, for the line on stderr: `athena, 1.2 GiB scanned, 3.4 s`. */
export const costLine = (cost: { engine: string; bytes_scanned: number; elapsed_ms: number }): string =>
  `${cost.engine}, ${humanBytes(cost.bytes_scanned)} scanned, ${(cost.elapsed_ms / 1000).toFixed(1)} s`;

/** A query's state on stderr, redrawn in place on a terminal (nothing otherwise: scripts read the cost line). */
export function queryProgress(stream: NodeJS.WriteStream = process.stderr): {
  onProgress(progress: LakeProgress): void;
  done(): void;
} {
  let drawn = false;
  return {
    onProgress(progress) {
      if (!stream.isTTY) return;
      const scanned = progress.bytesScanned === undefined ? '' : `, ${humanBytes(progress.bytesScanned)} scanned`;
      stream.write(`\r${progress.state.toLowerCase()} ${(progress.elapsedMs / 1000).toFixed(0)} s${scanned}   `);
      drawn = true;
    },
    done() {
      if (drawn) stream.write('\r\u001b[K');
    },
  };
}

/**
 * Runs `ask` on the target's engine with Ctrl-C and progress wired, closes the engine, and turns
 * the lake's errors into the CLI's: refused input is a usage error (exit 2), a failed query an
 * error (exit 1) with the engine's reason. AWS's own errors pass through (AccessDenied → exit 4).
 */
export async function withLakeEngine<T>(
  target: Target,
  ask: (engine: LakeEngine, options: LakeRunOptions) => Promise<T>,
  open: (target: Target) => Promise<ClosableLakeEngine> = lakeEngineFor,
): Promise<T> {
  const engine = await open(target);
  const interrupt = abortOnInterrupt();
  const progress = queryProgress();
  try {
    return await ask(engine, { signal: interrupt.signal, onProgress: progress.onProgress });
  } catch (error) {
    // A table or column the lake lacks is the SQL's mistake, as refused input is: exit 2, one line.
    if (
      error instanceof LakeInputError ||
      error instanceof LakeQueryRefusedError ||
      error instanceof LakeUnknownNameError
    )
      throw new UsageError(error.message);
    if (error instanceof LakeQueryFailedError)
      throw new CliError(
        error.cutoff
          ? `the workgroup's bytes-scanned cutoff stopped the query (narrow it: a day range, fewer columns): ${error.message}`
          : `the query failed: ${error.message}`,
      );
    if (interrupt.signal.aborted) throw new CliError('stopped: the query was cancelled');
    throw error;
  } finally {
    progress.done();
    interrupt.dispose();
    engine.close();
  }
}
