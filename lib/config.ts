/**
 * Deployment configuration, read from CDK context (`cdk.json` or `-c key=value`)
 * and validated once at synth so a mistake fails before anything is deployed.
 */
import { readFileSync } from 'node:fs';
import type { Node } from 'constructs';
import { z } from 'zod';
import { RECORDING_TRANSFER_DEFAULTS } from '../lambdas/core/archive/recording-transfer';
import { DEFAULT_CREDENTIALS_SECRET_PREFIX } from '../lambdas/core/calendar/calendar-source';
import { DEFAULT_PROVIDER_ENDPOINTS } from '../lambdas/core/calendar/company/provider-contract';
import { DEFAULT_PUSH_LIMITS, DEFAULT_PUSH_TIMING } from '../lambdas/core/calendar/company/push/push-settings';
import { DEFAULT_SCHEDULE_LIMITS } from '../lambdas/core/calendar/schedule-budget';
import { DEFAULT_QUARANTINE_LIMITS } from '../lambdas/core/ingress/quarantine';
import { DEFAULT_LAKE_SETTINGS } from '../lambdas/core/lake/lake-contract';
import { API_PATH_SUFFIX, SERVICE_STARTS_BOT_AHEAD_MS } from '../lambdas/core/upstream/rest-contract';
import { describeIssues } from '../lambdas/core/validation';
import { ARCHIVE_TIMEOUT } from './recording-archive';

/** Retention periods CloudWatch Logs accepts. */
const LOG_RETENTION_DAYS = [
  1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288, 3653,
] as const;

/** Lambda's synchronous payload limit is 6 MB and API Gateway base64-encodes binary bodies (4/3 growth). */
export const MAX_WEBHOOK_BODY_CEILING = 4 * 1024 * 1024;

/**
 * The service's webhooks are a few KB; a transcript sent at shutdown can reach hundreds of KB.
 * 1 MiB keeps the cost of checking any body, however adversarial, within a quarter second.
 */
export const DEFAULT_MAX_WEBHOOK_BODY_BYTES = 1024 * 1024;
/** The secrets' default names (the doctor falls back to them for a stack that does not output them). */
export const DEFAULT_SECRET_NAMES = {
  apiKey: 'meeting-pipeline/api-key',
  signing: 'meeting-pipeline/webhook-signing-secret',
} as const;

/** SQS keeps a message at most 14 days; a claim-checked body must outlive its message. */
const QUEUE_MAX_RETENTION_DAYS = 14;

/** Lambda keeps this much of an account's concurrency unreserved; a reservation that leaves less fails to deploy. */
export const MIN_UNRESERVED_CONCURRENCY = 100;

/** The reconciler runs one at a time (lib/reconciler.ts): its reservation counts against the account too. */
export const RECONCILER_RESERVED_CONCURRENCY = 1;

/** S3 allows at most this many parts in a multipart upload. */
const S3_MAX_PARTS = 10_000;

const MiB = 1024 * 1024;

const contextNumber = z.coerce.number().int();

/** A `yyyy-MM-dd` that names a day of the calendar (not 2026-02-30). */
function isCalendarDay(day: string): boolean {
  const at = new Date(`${day}T00:00:00Z`);
  return !Number.isNaN(at.getTime()) && at.toISOString().slice(0, 10) === day;
}
const contextBoolean = z.union([z.boolean(), z.enum(['true', 'false']).transform((v) => v === 'true')]);

/**
 * Who may put calendar events on the calendar events bus: an AWS account id (12 digits: every
 * principal that account allows) or one IAM role or user ARN. No wildcard: naming `*` would let
 * anyone schedule bots.
 */
export const calendarEventProducerSchema = z
  .string()
  .regex(/^(\d{12}|arn:aws[a-z-]*:iam::\d{12}:(role|user)\/[\w+=,.@/-]+)$/, {
    message: 'must be a 12-digit AWS account id or an IAM role or user ARN (arn:aws:iam::<account>:role/<name>)',
  });

/**
 * A calendar provider's endpoint: https only (a bearer token and a service-account grant travel to
 * it), no query or fragment (paths are appended), kept without a trailing slash.
 */
const providerEndpoint = z
  .url({ message: 'must be a URL, e.g. https://graph.microsoft.com/v1.0' })
  .refine((url) => url.startsWith('https://'), { message: 'must use https://' })
  .refine((url) => !/[?#]/.test(url), { message: 'must have no query or fragment (paths are appended to it)' })
  .transform((url) => url.replace(/\/+$/, ''));

/**
 * User syncs in flight at once. 1,000 users every 5 minutes is 3.3 syncs/s; a sync is about half a
 * second (one listing page, a token now and then, a few table writes), so 10 instances drain a run in
 * under a minute, sending at most 2,400 requests a minute (a listing and, for Google, a token per sync):
 * a quarter of Google Calendar's 10,000 per minute per project, and far from Graph's 10,000 per 10
 * minutes per mailbox (a sync touches one) or 130,000 per 10 s per app. `npm run capacity` shows the figures.
 */
export const DEFAULT_CALENDAR_USER_SYNC_CONCURRENCY = 10;

/** A list in cdk.json, or with `-c key=value` one string: comma-separated values. */
const contextList = <T extends z.ZodType>(item: T) =>
  z.preprocess(
    (value) =>
      typeof value === 'string'
        ? value
            .split(',')
            .map((part) => part.trim())
            .filter((part) => part !== '')
        : value,
    z.array(item),
  );

const configFields = z.object({
  upstreamBaseUrl: z
    .url({ message: 'must be a URL, e.g. https://meetings.example.com/api/v1/' })
    .refine((url) => url.startsWith('https://'), { message: 'must use https://' })
    .refine((url) => url.endsWith(API_PATH_SUFFIX), {
      message: `must end in ${API_PATH_SUFFIX} (the service's versioned API root, with the trailing slash)`,
    }),
  apiKeySecretName: z.string().min(1).default(DEFAULT_SECRET_NAMES.apiKey),
  signingSecretName: z.string().min(1).default(DEFAULT_SECRET_NAMES.signing),
  logRetentionDays: contextNumber
    .refine((days) => (LOG_RETENTION_DAYS as readonly number[]).includes(days), {
      message: `must be one of CloudWatch Logs' retention periods: ${LOG_RETENTION_DAYS.join(', ')}`,
    })
    .default(30),
  maxWebhookBodyBytes: contextNumber.min(1024).max(MAX_WEBHOOK_BODY_CEILING).default(DEFAULT_MAX_WEBHOOK_BODY_BYTES),
  payloadRetentionDays: contextNumber
    .min(QUEUE_MAX_RETENTION_DAYS + 1, {
      message: `must be more than the ${QUEUE_MAX_RETENTION_DAYS}-day queue retention so a queued pointer never outlives its body`,
    })
    .default(30),
  /** How long webhooks refused for their signature are kept for a re-drive (npm run quarantine). */
  quarantineRetentionDays: contextNumber.min(1).max(365).default(14),
  /**
   * Bodies refused for their signature kept per minute by all ingress instances together (and their
   * bytes): anyone can POST forged ones, so this bounds what a flood stores. 600 a minute is ten a
   * second, room for a rotation's stray webhooks; a flood past it is counted (WebhookQuarantineCapped).
   */
  quarantineMaxPerMinute: contextNumber.min(1).default(DEFAULT_QUARANTINE_LIMITS.maxEntriesPerMinute),
  quarantineMaxBytesPerMinute: contextNumber.min(1024).default(DEFAULT_QUARANTINE_LIMITS.maxBytesPerMinute),
  /** Of those, kept per day naming one bot: what a flood aimed at one meeting can make its erasure delete. */
  quarantineMaxPerBotPerDay: contextNumber.min(1).default(DEFAULT_QUARANTINE_LIMITS.maxEntriesPerBotPerDay),
  secretCacheSeconds: contextNumber.min(0).max(3600).default(60),
  /**
   * Webhooks per second the HTTP API admits before answering 429 (the service retries only ~3 times).
   * 2,000 meetings aligned on the hour peak near 750/s; this is twice that, well under the account's
   * regional HTTP API limit (10,000 rps, burst 5,000) that every API in the region shares.
   */
  webhookRateLimit: contextNumber.min(1).default(1500),
  webhookBurstLimit: contextNumber.min(1).default(3000),
  /**
   * Concurrency reserved for the ingress function: held for it whatever else runs, and its ceiling.
   * 1,500 webhooks/s at ~100 ms each (a table put and an SQS send, tail included) is 150 instances.
   */
  ingressReservedConcurrency: contextNumber.min(1).default(150),
  /** How long an accepted event's record (dedup and raw body for replay) is kept. */
  dedupRetentionDays: contextNumber.min(1).max(365).default(7),
  /** Most process-events instances the events queue runs at once (SQS event source: at least 2). */
  // 750 events/s in batches of 10 at up to ~150 ms a batch needs ~12 instances; 25 leaves room to drain a backlog.
  eventConcurrency: contextNumber.min(2).max(1000).default(25),
  /**
   * Most archive functions the archive queue runs at once. 2,000 meetings ending together queue
   * 2,000 jobs: at ~30 s a job, 20 drain them in under an hour (the backlog alarm is at 2 hours)
   * while the account's concurrency, and the table's write rate, stay with the ingress and events.
   */
  archiveConcurrency: contextNumber.min(2).max(1000).default(20),
  /**
   * Concurrency reserved for (and capping) the launch function. Launches spread over 5 minutes of
   * jitter: 2,000 aligned meetings are ~7 a second of a few hundred ms each; the launcher state
   * machine retries Lambda.TooManyRequestsException, so a burst over the cap waits instead of failing.
   */
  launchReservedConcurrency: contextNumber.min(1).default(10),
  /** The account's Lambda concurrent executions quota in this region (1,000 unless raised). */
  accountConcurrency: contextNumber.min(MIN_UNRESERVED_CONCURRENCY).default(1000),
  /** Level of the functions' application logs; per-event detail is DEBUG. */
  logLevel: z.enum(['DEBUG', 'INFO', 'WARN', 'ERROR']).default('INFO'),
  /** X-Ray tracing of every function and the launcher state machine: billed per trace, off by default. */
  tracing: z.enum(['off', 'active']).default('off'),
  /**
   * Part size of the recording upload. Larger parts mean fewer requests (each part is one); memory
   * is four parts in flight. 16 MiB parts hold recordings up to 156 GiB within S3's 10,000 parts.
   */
  recordingUploadPartMiB: contextNumber.min(5).max(64).default(16),
  /** Storage class recordings (meetings/) move to after recordingTransitionDays; `none` keeps them in Standard. */
  recordingArchiveClass: z.enum(['GLACIER_IR', 'INTELLIGENT_TIERING', 'none']).default('GLACIER_IR'),
  recordingTransitionDays: contextNumber.min(0).max(3650).default(30),
  /** Recordings larger than this are refused (the archive job fails to the DLQ with the reason). */
  maxRecordingBytes: contextNumber.min(1024 * 1024).default(10 * 1024 ** 3),
  /**
   * A recording download must finish within this many minutes, connect to last byte (inside the
   * archive function's timeout), and keep at least recordingDownloadMinKiBPerSecond over every 30 s: a storage
   * host that drips bytes is cut off instead of holding the function (ArchiveDownloadCutOff counts it).
   */
  recordingDownloadMinutes: contextNumber
    .min(1)
    .max(ARCHIVE_TIMEOUT.toMinutes() - 1, {
      message: `must leave the archive function (${ARCHIVE_TIMEOUT.toMinutes()} minutes) at least a minute to finish the upload`,
    })
    .default(RECORDING_TRANSFER_DEFAULTS.deadlineMinutes),
  recordingDownloadMinKiBPerSecond: contextNumber.min(1).default(RECORDING_TRANSFER_DEFAULTS.minKiBPerSecond),
  /** After a crash (`fatal_error`) the service uploads the recording late: how long the archive waits for it. */
  recordingWaitMinutes: contextNumber.min(0).max(720).default(30),
  /** How long S3 keeps a replaced version of an archived recording, transcript or participants file. */
  replacedVersionRetentionDays: contextNumber.min(1).default(30),
  /** How often the reconciler runs. */
  reconcileEveryMinutes: contextNumber.min(1).max(1440).default(5),
  /** How often every calendar feed is synced (each can also be synced on demand). */
  calendarSyncEveryMinutes: contextNumber.min(1).max(1440).default(5),
  /**
   * New schedules (each a launcher execution and a billed bot) one calendar sync makes at most; the rest
   * wait for later syncs, soonest first. Anyone can put events into a calendar: this bounds what one sync
   * of a flooded calendar costs, while a new calendar of a busy person fills within a few syncs.
   */
  calendarMaxNewSchedulesPerSync: contextNumber.min(1).max(10_000).default(DEFAULT_SCHEDULE_LIMITS.perSync),
  /** New schedules one calendar makes in a UTC day at most: a busy person's calendar gains a few dozen a day. */
  calendarMaxNewSchedulesPerDay: contextNumber.min(1).max(100_000).default(DEFAULT_SCHEDULE_LIMITS.perDay),
  /**
   * Company calendar credentials (a Google service-account key, a Microsoft client secret) are Secrets
   * Manager secrets named under this prefix: the two sync functions may read those and nothing else of
   * the account's secrets, and the calendar API refuses a source naming another. Ends in `/`, so
   * `…/calendars/` never covers `…/calendars-other/`.
   */
  calendarCredentialsSecretPrefix: z
    .string()
    .regex(/^[A-Za-z0-9_+=.@/-]+\/$/, {
      message:
        "must be a Secrets Manager name prefix ending in '/' (letters, digits and _+=.@-/), e.g. meeting-pipeline/calendars/",
    })
    .default(DEFAULT_CREDENTIALS_SECRET_PREFIX),
  /** Provider endpoints (Microsoft national clouds have their own hosts; local mode points them at the simulators). */
  googleCalendarApiUrl: providerEndpoint.default(DEFAULT_PROVIDER_ENDPOINTS.googleCalendarApi),
  googleDirectoryApiUrl: providerEndpoint.default(DEFAULT_PROVIDER_ENDPOINTS.googleDirectoryApi),
  googleTokenUrl: providerEndpoint.default(DEFAULT_PROVIDER_ENDPOINTS.googleTokenUrl),
  microsoftGraphUrl: providerEndpoint.default(DEFAULT_PROVIDER_ENDPOINTS.microsoftGraph),
  microsoftLoginUrl: providerEndpoint.default(DEFAULT_PROVIDER_ENDPOINTS.microsoftLogin),
  /** Most user-sync instances the user-sync queue runs at once: what bounds the calls to the providers. */
  calendarUserSyncConcurrency: contextNumber.min(2).max(1000).default(DEFAULT_CALENDAR_USER_SYNC_CONCURRENCY),
  /**
   * Bytes of a Graph push notification read before it is refused (413) unparsed: the push routes are
   * unauthenticated, so this bounds what anyone on the internet makes the function read.
   */
  calendarPushMaxBodyBytes: contextNumber
    .min(1024)
    .max(1024 * 1024)
    .default(DEFAULT_PUSH_LIMITS.maxBodyBytes),
  /**
   * Push channels expiring within this many minutes are renewed (Graph) or replaced (Google) by the
   * scheduled sync; more than calendarSyncEveryMinutes, so no channel lapses between two runs.
   */
  calendarPushRenewMarginMinutes: contextNumber
    .min(1)
    .max(1440)
    .default(DEFAULT_PUSH_TIMING.renewMarginMs / 60_000),
  /** A meeting whose non-final state has not changed for this long is checked with the service. */
  reconcileStaleAfterMinutes: contextNumber.min(1).default(15),
  /** Meetings checked (and archive jobs queued) at most per reconciler run. */
  reconcileMaxMeetings: contextNumber.min(1).max(1000).default(50),
  /**
   * A scheduled bot is launched (POST bots with join_at) this long before its join
   * time, plus up to 5 minutes of per-schedule jitter. The service starts the bot
   * itself up to 10 minutes ahead, so it must have it by then.
   */
  launchLeadSeconds: contextNumber
    .min(SERVICE_STARTS_BOT_AHEAD_MS / 1000, {
      message: `must be at least ${SERVICE_STARTS_BOT_AHEAD_MS / 1000}: the service starts a scheduled bot up to 10 minutes before its join time`,
    })
    .max(3600)
    .default(900),
  /**
   * How long a recording link from the read API stays valid. The function's own temporary
   * credentials sign it, so a link may stop working sooner when they expire; an hour is the cap.
   */
  recordingLinkMinutes: contextNumber.min(1).max(60).default(15),
  /** How long S3 server access logs of the data buckets are kept. */
  accessLogRetentionDays: contextNumber.min(1).default(90),
  /** Optional: an e-mail address subscribed to the alarm topic. */
  alarmEmail: z.optional(z.email({ message: 'must be an e-mail address' })),
  /** Alarm when the oldest event on the events queue is older than this. */
  maxEventAgeSeconds: contextNumber.min(60).default(300),
  /** Alarm when this many webhooks fail the signature check within 5 minutes. */
  signatureRejectionThreshold: contextNumber.min(1).default(20),
  /** Alarm when this percentage (or more) of an hour's finished meetings were missed or failed. */
  missedMeetingsAlarmPercent: contextNumber.min(1).max(100).default(20),
  /** An erasure also asks the service to delete its copy of the meeting (`POST bots/{id}/delete_data`). */
  eraseUpstream: contextBoolean.default(false),
  /** When the service says `data_deleted` (its copy is gone), the meeting is erased here too, with a receipt. */
  eraseOnUpstreamDelete: contextBoolean.default(true),
  /** Meetings listed more than this many days ago are erased by a daily run; unset keeps them until erased by request. */
  meetingRetentionDays: contextNumber.min(1).max(36_500).optional(),
  /**
   * The principals that may put calendar events (source meeting-pipeline.calendar) on the stack's
   * calendar events bus (output CalendarEventBusName): the customer's calendar integration, by account
   * id or role ARN. Everyone else is refused by the bus's policy, whatever their IAM permissions; none
   * (the default) closes the bus, and bots are scheduled through the IAM-authorized schedule API only.
   */
  calendarEventProducers: contextList(calendarEventProducerSchema).default([]),
  /**
   * The first day (UTC, `yyyy-MM-dd`) the lake's partition projection enumerates. Athena lists the
   * days from here to tomorrow for a query without a day predicate, so an earlier day than the first
   * meeting only costs empty listings; a later one hides the meetings before it.
   */
  lakeFirstDay: z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}$/, { message: 'must be a date yyyy-MM-dd, e.g. 2026-01-01' })
    .refine(isCalendarDay, {
      message: 'must be a real date',
    })
    .default('2026-01-01'),
  /**
   * Athena stops (and fails) any lake query that scans more than this many GiB: what one runaway
   * query costs at most ($5 per TiB: 10 GiB is about 5 cents). Enforced by the workgroup, whoever runs
   * the query (read API, CLI, console). A year of 2,000 meetings a day is ~30 GiB of Parquet.
   */
  lakeBytesScannedCutoffGiB: contextNumber
    .min(1)
    .max(1024 * 1024)
    .default(DEFAULT_LAKE_SETTINGS.bytesScannedCutoffBytes / 1024 ** 3),
  /** Athena query results (they hold transcript text) expire after this many days. */
  lakeResultsExpireDays: contextNumber.min(1).max(365).default(DEFAULT_LAKE_SETTINGS.resultsExpireDays),
  /** A lake day is compacted into one file per table once it ended this many hours ago (late archives land first). */
  lakeCompactAfterHours: contextNumber
    .min(1)
    .max(24 * 30)
    .default(DEFAULT_LAKE_SETTINGS.compactAfterHours),
  /** Keep the table, bucket and their data when the stack is deleted (the default). */
  retainData: contextBoolean.default(true),
});

/** Settings that only make sense together. */
export const pipelineConfigSchema = configFields.superRefine((config, ctx) => {
  const reserved =
    config.ingressReservedConcurrency + config.launchReservedConcurrency + RECONCILER_RESERVED_CONCURRENCY;
  const unreserved = config.accountConcurrency - reserved;
  if (unreserved < MIN_UNRESERVED_CONCURRENCY) {
    ctx.addIssue({
      code: 'custom',
      path: ['accountConcurrency'],
      message: `${config.accountConcurrency} leaves ${unreserved} unreserved after the ${reserved} reserved (ingress ${config.ingressReservedConcurrency}, launch ${config.launchReservedConcurrency}, reconciler ${RECONCILER_RESERVED_CONCURRENCY}); Lambda requires at least ${MIN_UNRESERVED_CONCURRENCY}: raise the quota and this value, or reserve less`,
    });
  } else if (config.eventConcurrency + config.archiveConcurrency > unreserved) {
    // The two queue consumers run from the unreserved pool; capped above it they would be throttled.
    ctx.addIssue({
      code: 'custom',
      path: ['eventConcurrency'],
      message: `${config.eventConcurrency} with archiveConcurrency ${config.archiveConcurrency} exceeds the ${unreserved} unreserved of accountConcurrency ${config.accountConcurrency}`,
    });
  } else if (config.eventConcurrency + config.archiveConcurrency + config.calendarUserSyncConcurrency > unreserved) {
    ctx.addIssue({
      code: 'custom',
      path: ['calendarUserSyncConcurrency'],
      message: `${config.calendarUserSyncConcurrency} with eventConcurrency ${config.eventConcurrency} and archiveConcurrency ${config.archiveConcurrency} exceeds the ${unreserved} unreserved of accountConcurrency ${config.accountConcurrency}`,
    });
  }
  if (config.calendarPushRenewMarginMinutes <= config.calendarSyncEveryMinutes) {
    ctx.addIssue({
      code: 'custom',
      path: ['calendarPushRenewMarginMinutes'],
      message: `must exceed calendarSyncEveryMinutes (${config.calendarSyncEveryMinutes}): the scheduled sync renews the push channels, and one expiring between two runs would lapse`,
    });
  }
  // A prefix covering the pipeline's own secrets would let a calendar source name one as its credential.
  for (const key of ['apiKeySecretName', 'signingSecretName'] as const) {
    if (config[key].startsWith(config.calendarCredentialsSecretPrefix)) {
      ctx.addIssue({
        code: 'custom',
        path: ['calendarCredentialsSecretPrefix'],
        message: `covers ${key} (${config[key]}): the calendar sync functions could read it; choose a prefix only calendar credentials are named under`,
      });
    }
  }
  if (config.recordingUploadPartMiB * MiB * S3_MAX_PARTS < config.maxRecordingBytes) {
    ctx.addIssue({
      code: 'custom',
      path: ['recordingUploadPartMiB'],
      message: `${config.recordingUploadPartMiB} MiB parts cannot hold a recording of maxRecordingBytes (${config.maxRecordingBytes}) in S3's ${S3_MAX_PARTS} parts`,
    });
  }
});

export type PipelineConfig = z.infer<typeof pipelineConfigSchema>;
export const CONFIG_KEYS = Object.keys(pipelineConfigSchema.shape) as Array<keyof PipelineConfig>;

export class ConfigError extends Error {
  constructor(
    readonly problems: string[],
    /** The raw values the problems are about, by context key. */
    readonly given: Record<string, unknown> = {},
  ) {
    super(
      `Invalid meeting-pipeline configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}\nSet values in cdk.json "context" or with \`cdk deploy -c key=value\`.`,
    );
    this.name = 'ConfigError';
  }

  /**
   * The whole reason on one line, as `cdk synth` shows it (bin/app.ts): each key, the value it
   * was given (`-c key=value` passes text) and what is wrong.
   */
  get oneLine(): string {
    const problems = this.problems.map((problem) => {
      const at = problem.indexOf(': ');
      const key = problem.slice(0, at).split('.')[0] ?? '';
      if (at < 0 || !(key in this.given)) return problem;
      return `${problem.slice(0, at)} (given ${JSON.stringify(this.given[key])})${problem.slice(at)}`;
    });
    return `meeting-pipeline configuration: ${problems.join('; ')} (set it in cdk.json "context" or with -c key=value)`;
  }
}

/** Validates raw context values; unknown keys are ignored (CDK's own flags live there too). */
export function parseConfig(raw: Record<string, unknown>): PipelineConfig {
  const result = pipelineConfigSchema.safeParse(raw);
  if (!result.success) {
    throw new ConfigError(describeIssues(result.error, '(config)'), raw);
  }
  return result.data;
}

export function configFromContext(node: Node): PipelineConfig {
  const raw: Record<string, unknown> = {};
  for (const key of CONFIG_KEYS) {
    const value: unknown = node.tryGetContext(key);
    if (value !== undefined) raw[key] = value;
  }
  return parseConfig(raw);
}

/**
 * The context in cdk.json (feature flags and defaults). The CDK CLI passes it to
 * bin/app.ts; Apps built in-process (tests, local mode) take it from here, so they
 * synthesize what `cdk deploy` would.
 */
export function cdkJsonContext(): Record<string, unknown> {
  const file = new URL('../cdk.json', import.meta.url);
  return (JSON.parse(readFileSync(file, 'utf8')) as { context: Record<string, unknown> }).context;
}
