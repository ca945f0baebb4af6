/**
 * The narrow logging and metrics surface the core needs. Powertools' Logger fits
 * `LogSink` as is; `MetricSink` is adapted in lambdas/shared. Local mode and tests
 * pass their own.
 */
export interface LogSink {
  debug(message: string, ...attributes: Record<string, unknown>[]): void;
  info(message: string, ...attributes: Record<string, unknown>[]): void;
  warn(message: string, ...attributes: Record<string, unknown>[]): void;
  error(message: string, ...attributes: Record<string, unknown>[]): void;
}

export type MetricUnit = 'Count' | 'Bytes' | 'Milliseconds';

export interface MetricSink {
  /** Records one data point; dimensions, when given, apply to this point only. */
  record(name: string, unit: MetricUnit, value: number, dimensions?: Record<string, string>): void;
}

export interface Telemetry {
  log: LogSink;
  metrics: MetricSink;
}

const ignore = (): void => {};

export const silentTelemetry: Telemetry = {
  log: { debug: ignore, info: ignore, warn: ignore, error: ignore },
  metrics: { record: ignore },
};

/** Metric names, one list so dashboards and alarms in lib/ use the same strings. */
export const METRICS = {
  webhookAccepted: 'WebhookAccepted',
  webhookRejected: 'WebhookRejected',
  webhookClaimChecked: 'WebhookClaimChecked',
  webhookQueueFailed: 'WebhookQueueFailed',
  webhookQuarantined: 'WebhookQuarantined',
  signingSecretUnavailable: 'SigningSecretUnavailable',
  eventApplied: 'EventApplied',
  eventDuplicate: 'EventDuplicate',
  eventFailed: 'EventFailed',
  unknownTrigger: 'UnknownTrigger',
  archiveRequested: 'ArchiveRequested',
  upstreamUnauthorized: 'UpstreamUnauthorized',
  upstreamRateLimited: 'UpstreamRateLimited',
  upstreamServerError: 'UpstreamServerError',
  meetingArchived: 'MeetingArchived',
  archiveBytes: 'ArchiveBytes',
  archiveFailed: 'ArchiveFailed',
  reconcilerHealed: 'ReconcilerHealed',
  botLaunched: 'BotLaunched',
  launchFailed: 'LaunchFailed',
  calendarEventRefused: 'CalendarEventRefused',
} as const;

export const METRICS_NAMESPACE = 'MeetingPipeline';
