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

/**
 * One metric, defined once: its name, unit and the dimension keys each data point
 * carries besides `service` (which Powertools adds from POWERTOOLS_SERVICE_NAME).
 * The code that emits it and the alarms and widgets that read it (lib/monitoring.ts)
 * both take it from METRICS, so a dimension cannot differ between the two.
 */
export interface MetricDefinition<Key extends string = string> {
  readonly name: string;
  readonly unit: MetricUnit;
  readonly dimensions: readonly Key[];
}

/** The dimension values a data point of a metric with these keys must carry: exactly these keys. */
export type DimensionValues<Key extends string> = { readonly [K in Key]: string };

/** A metric without dimensions takes none; one with dimensions takes exactly its keys. */
export type DimensionArgs<Key extends string> = [Key] extends [never] ? [] : [dimensions: DimensionValues<Key>];

export interface MetricSink {
  /** Records one data point; its dimensions apply to this point only. */
  emit<Key extends string>(metric: MetricDefinition<Key>, value: number, ...dimensions: DimensionArgs<Key>): void;
}

function metric<const Key extends string = never>(
  name: string,
  unit: MetricUnit,
  dimensions: readonly Key[] = [],
): MetricDefinition<Key> {
  return { name, unit, dimensions };
}

export interface Telemetry {
  log: LogSink;
  metrics: MetricSink;
}

const ignore = (): void => {};

export const silentTelemetry: Telemetry = {
  log: { debug: ignore, info: ignore, warn: ignore, error: ignore },
  metrics: { emit: ignore },
};

/**
 * Every metric the functions emit. A metric an alarm watches carries no open-ended
 * dimension (an alarm selects one exact dimension set): `ArchiveFailed` has no
 * reason, which is in the log line beside it.
 */
export const METRICS = {
  webhookAccepted: metric('WebhookAccepted', 'Count'),
  webhookRejected: metric('WebhookRejected', 'Count', ['reason']),
  webhookClaimChecked: metric('WebhookClaimChecked', 'Count'),
  webhookQueueFailed: metric('WebhookQueueFailed', 'Count'),
  webhookQuarantined: metric('WebhookQuarantined', 'Count'),
  /** Bodies refused for their signature and not kept because a quarantine cap (per minute, per bot) was reached. */
  webhookQuarantineCapped: metric('WebhookQuarantineCapped', 'Count'),
  signingSecretUnavailable: metric('SigningSecretUnavailable', 'Count'),
  eventApplied: metric('EventApplied', 'Count', ['trigger']),
  eventDuplicate: metric('EventDuplicate', 'Count', ['trigger']),
  /** By reason, one of EVENT_FAILURE_REASONS (core/events/failure-reasons.ts): a closed set one alarm covers. */
  eventFailed: metric('EventFailed', 'Count', ['reason']),
  unknownTrigger: metric('UnknownTrigger', 'Count'),
  archiveRequested: metric('ArchiveRequested', 'Count'),
  upstreamUnauthorized: metric('UpstreamUnauthorized', 'Count'),
  upstreamRateLimited: metric('UpstreamRateLimited', 'Count'),
  upstreamServerError: metric('UpstreamServerError', 'Count', ['status']),
  meetingArchived: metric('MeetingArchived', 'Count'),
  archiveBytes: metric('ArchiveBytes', 'Bytes'),
  /**
   * A download smaller than (or empty where) the meeting's archived recording, refused: the archived object
   * is kept (the service may upload an empty file over a finished recording when its bot task runs again).
   */
  recordingShrankRefused: metric('RecordingShrankRefused', 'Count'),
  archiveFailed: metric('ArchiveFailed', 'Count'),
  /**
   * Downloads (recordings, calendar feeds) cut off past their deadline or below their minimum
   * rate, by reason (CutOffReason in download-guard.ts: deadline, too-slow), from the archive
   * and calendar functions; the failure itself also counts as ArchiveFailed or CalendarSyncFailed.
   */
  downloadCutOff: metric('DownloadCutOff', 'Count', ['reason']),
  reconcilerHealed: metric('ReconcilerHealed', 'Count'),
  /** Every state the reconciler read from the service and handed to the apply step (healed or not, a repeat or not). */
  reconcilerObserved: metric('ReconcilerObserved', 'Count'),
  /** Bots the service answered 404 for several checks running: set aside, a person should look. */
  reconcilerUnknownBot: metric('ReconcilerUnknownBot', 'Count'),
  /** Meetings whose check failed in a run (each on its own; the run goes on). */
  reconcilerFailed: metric('ReconcilerFailed', 'Count'),
  /** Final meetings still unarchived after their backstop archive jobs were used up. */
  archiveBackstopExhausted: metric('ArchiveBackstopExhausted', 'Count'),
  botLaunched: metric('BotLaunched', 'Count'),
  launchFailed: metric('LaunchFailed', 'Count'),
  calendarEventRefused: metric('CalendarEventRefused', 'Count'),
  /** Calendar events older (by the calendar's own ordering) than the last one applied: delivered late, ignored. */
  calendarEventStale: metric('CalendarEventStale', 'Count'),
  /** Calendar feeds synced (on demand or on schedule). */
  calendarSynced: metric('CalendarSynced', 'Count'),
  /** Calendar syncs that failed: the feed could not be fetched or read, or the sync itself failed (log line says why). */
  calendarSyncFailed: metric('CalendarSyncFailed', 'Count'),
  /** Occurrences a sync could not schedule, move or cancel (listed under `failed` in its result); the rest synced. */
  calendarOccurrenceFailed: metric('CalendarOccurrenceFailed', 'Count'),
  /**
   * Calendar syncs that reached a limit, by limit (CALENDAR_LIMITS in core/calendar/calendar-limits.ts, a
   * closed set): a feed too big or too busy to read whole, a recurrence not read, new schedules held back.
   */
  calendarLimitReached: metric('CalendarLimitReached', 'Count', ['limit']),
  /** Company calendar users synced (Google Workspace, Microsoft 365), by provider: one per user sync that completed. */
  calendarUserSynced: metric('CalendarUserSynced', 'Count', ['provider']),
  /** User sync requests that found that user's sync running: sent again, delayed, to run after it. */
  calendarUserSyncRequeued: metric('CalendarUserSyncRequeued', 'Count'),
  /**
   * Company calendar users (or whole sources) newly cut off: the admin grant revoked, the secret wrong, the user
   * outside the access policy. The calendar shows the provider's reason; `calendar.disconnected` is published.
   */
  calendarUserDisconnected: metric('CalendarUserDisconnected', 'Count', ['provider']),
  /** Provider answers that asked us to slow down (Google 403 rate limits or 429, Graph 429): that user backs off. */
  calendarProviderThrottled: metric('CalendarProviderThrottled', 'Count', ['provider']),
  /** Requests sent to a calendar provider (tokens, listings, subscriptions), by provider: against its quota. */
  calendarProviderCalls: metric('CalendarProviderCalls', 'Count', ['provider']),
  /** Push notifications refused at the route (unknown channel or subscription, wrong token or clientState), by provider. */
  calendarPushRefused: metric('CalendarPushRefused', 'Count', ['provider']),
  /** Webhooks (late, re-sent or re-driven) of an erased meeting: acknowledged and dropped, by trigger. */
  eventDroppedErased: metric('EventDroppedErased', 'Count', ['trigger']),
  /** Erasures completed, by reason (ERASURE_REASONS: request, upstream-data-deleted, retention). */
  meetingErased: metric('MeetingErased', 'Count', ['reason']),
  /** Items, objects or attributes the delayed second sweep found on an erased meeting: a writer raced the erasure. */
  erasedLateWritesRemoved: metric('ErasedLateWritesRemoved', 'Count'),
  /** Meetings past `meetingRetentionDays` queued for erasure by a retention run. */
  retentionErasuresQueued: metric('RetentionErasuresQueued', 'Count'),
  /**
   * Meetings whose outcome became final, once each, by `status` (a final one of OUTCOME_STATUSES) and `reason`
   * (one of KNOWN_REASONS, else `other`: a closed set); the missed-meetings alarm sums it by status.
   */
  meetingOutcome: metric('MeetingOutcome', 'Count', ['status', 'reason']),
  /**
   * The same points by `status` alone, the dimension set the missed-meetings alarm selects (an alarm cannot
   * sum a metric over reasons, and a SEARCH cannot be alarmed on).
   */
  meetingOutcomeByStatus: metric('MeetingOutcome', 'Count', ['status']),
  /** Rows written to the lake's recent files, by table (meetings, utterances, participants). */
  lakeRowsWritten: metric('LakeRowsWritten', 'Count', ['table']),
  /** Days whose per-meeting files were compacted into one file per table. */
  lakeDaysCompacted: metric('LakeDaysCompacted', 'Count'),
  /** After a compaction run, closed days after the mark plus days at or before it whose fold failed: above 2, it is failing. */
  lakeDaysAwaitingCompaction: metric('LakeDaysAwaitingCompaction', 'Count'),
  /** Bytes a lake query read (Athena's DataScannedInBytes), by question (search, talk-time, sql…). */
  lakeQueryBytesScanned: metric('LakeQueryBytesScanned', 'Bytes', ['question']),
  /** Lake queries refused or stopped, by reason (not-read-only, cutoff, timeout). */
  lakeQueryRefused: metric('LakeQueryRefused', 'Count', ['reason']),
} as const;

/**
 * The functions by the `service` name their logs and metrics carry
 * (POWERTOOLS_SERVICE_NAME): the constructs set it, alarms select by it.
 */
export const SERVICES = {
  ingress: 'webhook-ingress',
  processEvents: 'process-events',
  archive: 'recording-archive',
  launchBot: 'launch-bot',
  reconciler: 'reconciler',
  schedules: 'schedules',
  readApi: 'read-api',
  calendars: 'calendars',
  calendarSync: 'calendar-sync',
  /** The user-sync consumer: one company calendar user's incremental sync per message. */
  calendarUserSync: 'calendar-user-sync',
  /** The push notification routes: verify, look up the channel, ask for the user's sync. No credentials. */
  calendarPush: 'calendar-push',
  erase: 'erase',
  /** The read API's lake search routes: search and stats on Athena, with no table access. */
  lakeSearch: 'lake-search',
  /** The daily run that compacts closed lake days into one file per table. */
  lakeCompaction: 'lake-compaction',
} as const;
export type ServiceName = (typeof SERVICES)[keyof typeof SERVICES];

export const METRICS_NAMESPACE = 'MeetingPipeline';
