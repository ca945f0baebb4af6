import type { ProcessDependencies } from '../core/events/process-event';
import { type ReconcileReport, reconcileMeetings } from '../core/reconcile/reconcile-meetings';
import type { Telemetry } from '../core/telemetry';
import type { UpstreamClient } from '../core/upstream/client';

/** One reconciler run, wired to the processing core (the Lambda and local mode build it this way). */
export function reconciler(
  processing: ProcessDependencies,
  upstream: Pick<UpstreamClient, 'getBot'>,
  telemetry: Telemetry,
  limits: { staleAfterMs: number; maxMeetings: number },
): () => Promise<ReconcileReport> {
  return () =>
    reconcileMeetings({
      table: processing.table,
      upstream,
      processing,
      archive: processing.archive,
      telemetry,
      now: Date.now,
      ...limits,
    });
}
