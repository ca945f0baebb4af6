/** The `MeetingOutcome` data point of a meeting whose outcome became final. */
import { METRICS, type MetricSink } from '../telemetry';
import type { MeetingOutcome } from './meeting-outcome';
import { KNOWN_REASONS } from './outcome-reasons';

/** The `reason` dimension for a sub-type no release knew yet: the outcome keeps the code, the metric does not. */
export const OTHER_REASON = 'other';

/** A known reason as is, any other `other`: the service's sub-types must not grow the metric's dimension sets. */
export const metricReason = (reason: string): string =>
  (KNOWN_REASONS as readonly string[]).includes(reason) ? reason : OTHER_REASON;

/** One point by status and reason (the dashboard), one by status alone (the alarm). */
export function emitFinalOutcome(metrics: MetricSink, outcome: MeetingOutcome): void {
  metrics.emit(METRICS.meetingOutcome, 1, { status: outcome.status, reason: metricReason(outcome.reason) });
  metrics.emit(METRICS.meetingOutcomeByStatus, 1, { status: outcome.status });
}
