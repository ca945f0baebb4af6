/**
 * The lake behind the MCP tools (search_transcripts, meeting_stats, search_meetings past the recent
 * window), and how a tool waits for it. A lake query can take long (Athena queues, a year of
 * transcripts), while an MCP client gives up on a request after its timeout (60 s by default in the
 * SDK's client). So a tool call:
 *  - sends `notifications/progress` while the query runs when the client gave a progressToken: each
 *    engine report, and a heartbeat between them (DuckDB reports once), so a client that resets its
 *    timeout on progress keeps waiting;
 *  - answers by a deadline (below the client's timeout): the query is aborted (Athena cancels it)
 *    and the tool answers an error naming how to narrow it, instead of leaving the client hanging;
 *  - stops the query when the client cancels the request.
 */
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import {
  type LakeEngine,
  type LakeProgress,
  LakeQueryFailedError,
  LakeQueryPendingError,
  LakeQueryRefusedError,
  type LakeRunOptions,
} from '../../lambdas/core/lake/lake-engine';
import {
  LakeInputError,
  type LakeSearchFunctions,
  type QueryCost,
} from '../../lambdas/core/lake/lake-questions-contract';
import { ToolInputError } from './tool-result';

export type ToolExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

export const LAKE_PATIENCE = {
  /** A lake tool answers within this long: under the SDK client's default request timeout (60 s). */
  deadlineMs: 50_000,
  /** A progress notification at least this often while a query runs (when the client asked for progress). */
  heartbeatMs: 1_000,
} as const;

/** What the server needs to answer from the lake: an engine (DuckDB locally, Athena in AWS) and the questions over it. */
export interface MeetingLake {
  engine: LakeEngine;
  questions: LakeSearchFunctions;
  /** Default LAKE_PATIENCE.deadlineMs. */
  deadlineMs?: number;
  /** Default LAKE_PATIENCE.heartbeatMs. */
  heartbeatMs?: number;
}

/** What a tool adds to the deadline's answer: the narrowing that helps for its question. */
export interface LakeCallHints {
  tool: string;
  narrow: string;
}

/** The query outlived the tool's deadline and was stopped. */
export class LakeDeadlineError extends ToolInputError {
  override name = 'LakeDeadlineError';
}

export const costOf = (cost: QueryCost): string =>
  `${cost.engine === 'athena' ? 'Athena' : 'DuckDB'} scanned ${formatBytes(cost.bytes_scanned)} in ${(cost.elapsed_ms / 1000).toFixed(1)} s`;

/** A lake question's day range as the answers name it (unset ends: the lake's first day, today). */
export const lakeRange = (range: { from?: string | undefined; to?: string | undefined }): string =>
  `${range.from ?? 'the first day'} to ${range.to ?? 'today'} (UTC)`;

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 ** 2) return `${(bytes / 1024).toFixed(1)} KB`;
  if (bytes < 1024 ** 3) return `${(bytes / 1024 ** 2).toFixed(1)} MB`;
  return `${(bytes / 1024 ** 3).toFixed(2)} GB`;
}

/**
 * Runs `work` (one or more lake questions, given the run options to pass on) within the deadline,
 * reporting progress to the client; failures become errors whose text tells the assistant what to do.
 */
export async function callLake<T>(
  lake: MeetingLake,
  extra: ToolExtra,
  hints: LakeCallHints,
  work: (options: LakeRunOptions) => Promise<T>,
): Promise<T> {
  const deadlineMs = lake.deadlineMs ?? LAKE_PATIENCE.deadlineMs;
  const started = performance.now();
  const stop = new AbortController();
  // Settles the call early: at the deadline, or when the client cancels; the query is aborted then.
  let interrupt: (error: Error) => void = () => undefined;
  const interrupted = new Promise<never>((_, reject) => {
    interrupt = (error) => {
      stop.abort(error);
      reject(error);
    };
  });
  const onClientCancel = () => interrupt(new ToolInputError(`${hints.tool}: cancelled by the client`));
  extra.signal.addEventListener('abort', onClientCancel, { once: true });

  const progressToken = extra._meta?.progressToken;
  let last: LakeProgress = { state: 'STARTING', elapsedMs: 0 };
  let sent = -1;
  const report = (progress: LakeProgress) => {
    last = progress;
    if (progressToken === undefined || stop.signal.aborted) return;
    const elapsedMs = Math.round(performance.now() - started);
    // Progress must grow from one notification to the next: elapsed milliseconds of the deadline do.
    if (elapsedMs <= sent) return;
    sent = elapsedMs;
    const scanned = progress.bytesScanned === undefined ? '' : `, ${formatBytes(progress.bytesScanned)} scanned`;
    void extra
      .sendNotification({
        method: 'notifications/progress',
        params: {
          progressToken,
          progress: elapsedMs,
          total: deadlineMs,
          message: `${hints.tool}: lake query ${progress.state.toLowerCase()}, ${(elapsedMs / 1000).toFixed(0)} s of at most ${deadlineMs / 1000} s${scanned}`,
        },
      })
      .catch(() => undefined);
  };
  const heartbeat = setInterval(
    () => report({ ...last, elapsedMs: performance.now() - started }),
    lake.heartbeatMs ?? LAKE_PATIENCE.heartbeatMs,
  );
  const timer = setTimeout(
    () =>
      interrupt(
        new LakeDeadlineError(
          `${hints.tool}: the lake query did not finish within ${deadlineMs / 1000} s and was stopped; ${hints.narrow}, then ask again`,
        ),
      ),
    deadlineMs,
  );
  try {
    report(last);
    // The race answers at the deadline even if an engine ignores the abort signal.
    return await Promise.race([work({ onProgress: report, signal: stop.signal }), interrupted]);
  } catch (error) {
    throw explain(error, hints);
  } finally {
    clearInterval(heartbeat);
    clearTimeout(timer);
    extra.signal.removeEventListener('abort', onClientCancel);
    if (!stop.signal.aborted) stop.abort(new Error('the tool answered'));
  }
}

/** The lake's errors as the assistant should read them. */
function explain(error: unknown, hints: LakeCallHints): unknown {
  if (error instanceof ToolInputError) return error;
  if (error instanceof LakeInputError || error instanceof LakeQueryRefusedError)
    return new ToolInputError(`${hints.tool}: ${error.message}`);
  if (error instanceof LakeQueryFailedError)
    return new ToolInputError(
      error.cutoff
        ? `${hints.tool}: the lake query would scan more than the bytes-scanned cutoff allows and was stopped; ${hints.narrow}`
        : `${hints.tool}: the lake query failed: ${error.message}`,
    );
  if (error instanceof LakeQueryPendingError)
    return new ToolInputError(`${hints.tool}: the lake query is still running; ${hints.narrow}, then ask again`);
  return error;
}
