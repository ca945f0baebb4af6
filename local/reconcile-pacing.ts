/**
 * When local mode's reconciler runs. Deployed, it runs every few minutes; locally every couple of seconds so
 * the demo heals a lost webhook quickly. That fast pace is only needed while something happens: after the
 * pipeline has been quiet for longer than a meeting takes to turn stale, and the last run found nothing,
 * it runs at the idle pace until the next activity (a webhook, an event applied, a launch: any metric).
 */
export interface ReconcilePacingOptions {
  /** The pace while busy. */
  everyMs: number;
  /** The pace once quiet. */
  idleEveryMs: number;
  /** Quiet for this long (no activity) before the idle pace applies: more than the stale-after time. */
  quietAfterMs: number;
}

export interface ReconcilePacing {
  /** Something happened in the pipeline at `nowMs`. */
  activity(nowMs: number): void;
  /** Whether a run is due at `nowMs` (asked every `everyMs`). */
  due(nowMs: number): boolean;
  /** A run started at `nowMs`. */
  started(nowMs: number): void;
  /** The run ended; `foundWork` when it checked, healed or queued anything. */
  finished(foundWork: boolean): void;
}

export function reconcilePacing(options: ReconcilePacingOptions, startedMs: number): ReconcilePacing {
  let lastActivityMs = startedMs;
  let lastRunMs = Number.NEGATIVE_INFINITY;
  let lastFoundWork = false;
  return {
    activity(nowMs) {
      lastActivityMs = Math.max(lastActivityMs, nowMs);
    },
    due: (nowMs) =>
      lastFoundWork || nowMs - lastActivityMs < options.quietAfterMs || nowMs - lastRunMs >= options.idleEveryMs,
    started(nowMs) {
      lastRunMs = nowMs;
    },
    finished(foundWork) {
      lastFoundWork = foundWork;
    },
  };
}
