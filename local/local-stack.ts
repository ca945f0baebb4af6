/**
 * The whole pipeline on this machine: emulators (dynalite, fauxqs), the tables,
 * queues and buckets from the stack's own definitions, the real handlers (the
 * ingress and the schedule API behind a local HTTP server, pollers on the queues with Lambda's batch
 * semantics, the launcher state machine from `cdk synth` run locally, the
 * reconciler on a short period) and the simulated meeting assistant service.
 * `npm run dev` and the end-to-end test both run this.
 */

import { createHash, randomBytes } from 'node:crypto';
import type { WorkGroupConfiguration } from '@aws-sdk/client-athena';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { lakeMirrorDirOf } from '../cli/local-endpoints';
import { archiveDependencies, archiveHandlerOptions, createArchiveHandler } from '../lambdas/archive/adapter';
import { createCalendarsHandler } from '../lambdas/calendars/adapter';
import { isLoopbackHost } from '../lambdas/core/archive/address-policy';
import type { CalendarApiDependencies } from '../lambdas/core/calendar/calendar-api';
import { calendarStore } from '../lambdas/core/calendar/calendar-store';
import type { CredentialsReader } from '../lambdas/core/calendar/company/credentials';
import type { ProviderEndpoints } from '../lambdas/core/calendar/company/provider-contract';
import { guardedFeedFetcher } from '../lambdas/core/calendar/feed-fetch';
import { memorySealer } from '../lambdas/core/calendar/url-sealer';
import { DEFAULT_TIMING, type ScheduleTiming } from '../lambdas/core/schedule/schedule-request';
import { type ScheduleDependencies, type ScheduleResult, upsertSchedule } from '../lambdas/core/schedule/schedules';
import { staticSecret } from '../lambdas/core/secrets';
import { keys } from '../lambdas/core/store/table-layout';
import { type LogSink, type MetricSink, SERVICES, type Telemetry } from '../lambdas/core/telemetry';
import { UpstreamClient } from '../lambdas/core/upstream/client';
import { createEraseApiHandler, createErasureQueueHandler, eraseDependencies } from '../lambdas/erase/adapter';
import { createIngressHandler, ingressDependencies } from '../lambdas/ingress/adapter';
import { createLakeCompactionHandler, lakeCompactionDependencies } from '../lambdas/lake-compaction/adapter';
import { createLaunchTaskHandler } from '../lambdas/launch-bot/adapter';
import { createProcessEventsHandler, processEventsDependencies } from '../lambdas/process-events/adapter';
import { createReadApiHandler, readApiDependencies } from '../lambdas/read-api/adapter';
import { reconciler } from '../lambdas/reconciler/adapter';
import { createSchedulesHandler } from '../lambdas/schedules/adapter';
import { DEFAULT_CLIENT_TIMEOUTS, sqsClient } from '../lambdas/shared/aws-clients';
import { documentClient } from '../lambdas/shared/dynamo-client';
import { dynamoClient } from '../lambdas/shared/dynamo-plain-client';
import { s3Client } from '../lambdas/shared/s3-client';
import { s3LakeObjects } from '../lambdas/shared/s3-lake-objects';
import { s3PayloadStore } from '../lambdas/shared/s3-payloads-on-demand';
import { startLocalCompanySync, templateUserSyncConsumer } from './company-sync-local';
import { startDynamoEmulator } from './emulators/dynalite';
import { LOCAL_REGION, startSqsS3Emulator } from './emulators/fauxqs';
import { describeDomainEvent, eventLogPublisher } from './event-log-publisher';
import { type HttpRouteHandler, startLocalHttpApi } from './http-api-server';
import { mirroredLakeCopies } from './lake/lake-copies';
import { type LocalLakeSearch, startLocalLakeSearch } from './lake/local-lake-search';
import { checkMeetings, type MeetingCheck } from './meeting-check';
import { privateFolder } from './private-files';
import { LONG_POLL_SECONDS, QueuePoller } from './queue-poller';
import { reconcilePacing } from './reconcile-pacing';
import {
  createLocalResources,
  type LocalResources,
  localIngressEnvironment,
  localProcessEventsEnvironment,
} from './resources';
import { seededRandom } from './seeded-random';
import { SimulatedServiceApi } from './simulator/api-server';
import { type BotScenarioName, SCENARIO_METADATA_KEY } from './simulator/bot-scenarios';
import type { PlayedMeeting } from './simulator/meeting-player';
import { playStartedBots } from './simulator/play-started-bots';
import { type Chaos, WebhookSender } from './simulator/webhook-sender';
import { LocalExecutions, launcherDefinition } from './step-functions';
import { unversionedObjects } from './unversioned-object-versions';

export interface LocalStackOptions {
  /** Keep DynamoDB's data in this folder (resumable); in memory when absent. */
  dataDir?: string;
  /** Base64 signing secret shared by the simulated service and the ingress. */
  signingSecret: string;
  chaos: Chaos;
  /** Milliseconds between steps of a simulated meeting. */
  stepMs: number;
  recordingBytes: number;
  reconcileEveryMs: number;
  staleAfterMs: number;
  seed: number;
  /** A line for a person to read (the timeline). */
  print: (line: string) => void;
  /** The simulated service answers a POST with 429 (Retry-After) past this many a minute (the service: 3000). */
  postsPerMinute?: number;
  /** Whether the simulated project holds Zoom app credentials (default: yes; without, Zoom links are refused). */
  zoomCredentials?: boolean;
  /**
   * Run against this service instead of a simulated one (e.g. a vendor sandbox or
   * `npm run simulator`): its API root and key. Nothing is simulated then; the service
   * sends its webhooks to the printed webhook URL.
   */
  upstream?: { baseUrl: string; apiKey: string };
  /** Port of the local HTTP API (webhooks, schedules); any free port when absent. */
  httpPort?: number;
  /** Every log call of every handler, as the function's structured log line would carry it. */
  onLog?: (level: string, message: string, attributes: Record<string, unknown>) => void;
  /**
   * Where every domain event's PutEvents entry is appended, one JSON line each (`npm run dev`:
   * `.local/events.jsonl`). Named by every caller, so no test writes into the repository.
   */
  eventsFile: string;
  /**
   * Where the endpoints file is written (`npm run dev`: `.local/endpoints.json`): the CLI's `--local` search
   * mirrors the lake next to it, and an erasure brings that mirror back to the bucket too.
   */
  endpointsFile?: string;
  /** `eraseUpstream` (default false): an erasure also asks the service to delete its copy. */
  eraseUpstream?: boolean;
  /** `eraseOnUpstreamDelete` (default true): the service's `data_deleted` erases the meeting here too. */
  eraseOnUpstreamDelete?: boolean;
  /**
   * Company calendars (Google Workspace, Microsoft 365): where the providers are (the
   * `--google-api`… flags, or the simulators of `--calendar-simulators`) and how a
   * source's credentials secret is read locally. What the company sync is given.
   */
  companyCalendars?: LocalCompanyCalendars;
}

export interface LocalCompanyCalendars {
  endpoints: ProviderEndpoints;
  credentials: CredentialsReader;
}

export type { MeetingCheck };

export interface LocalStack {
  /** Time since the stack started, as the timeline prints it. */
  stamp(): string;
  webhookUrl: string;
  /** The schedule API: PUT/GET/DELETE `${scheduleApiUrl}/{id}` (no auth on loopback). */
  scheduleApiUrl: string;
  /** The read API's base: GET `${readApiUrl}/meetings`, `/meetings/{bot_id}/transcript`… (no auth on loopback). */
  readApiUrl: string;
  /** The calendar routes' base: PUT `${calendarApiUrl}/calendars/{id}`… (no auth on loopback). */
  calendarApiUrl: string;
  /** What the calendar routes run on: a sync or preview can be called in-process too. */
  calendars: CalendarApiDependencies;
  /** With company calendars: one scheduled run now (push channels opened or renewed, every user queued). */
  runCompanyCalendars?: () => Promise<void>;
  /** Where archived recordings, transcripts and participants go. */
  recordingsBucket: string;
  /** The folder the lake search route's engine mirrors the bucket's `lake/` into. */
  lakeMirrorDir: string;
  /** The domain events' PutEvents entries, one JSON line each. */
  eventsFile: string;
  apiBaseUrl: string;
  /** The key the pipeline calls the service with. */
  serviceApiKey: string;
  resources: LocalResources;
  sender: WebhookSender;
  counts: Map<string, number>;
  /**
   * Schedules a meeting through the pipeline's own schedule core. `scenario` names the path the simulated
   * service plays for its bot (bot-scenarios.ts; carried in the schedule's metadata); default: recorded.
   */
  scheduleMeeting(
    scheduleId: string,
    joinAt: Date,
    meetingUrl?: string,
    scenario?: BotScenarioName,
  ): Promise<ScheduleResult>;
  /** Meetings the simulated service played, by bot id. */
  played: Map<string, PlayedMeeting & { scheduleId: string }>;
  /**
   * Resolves when every scheduled meeting is archived (or the time is up); a meeting the
   * simulated bot never joined has nothing to archive, so it is done once its played final state is stored.
   */
  waitUntilArchived(scheduleIds: string[], timeoutMs: number): Promise<boolean>;
  check(scheduleIds: string[]): Promise<MeetingCheck[]>;
  stop(): Promise<void>;
}

const LOCAL_API_KEY = 'local-dev-key';
/** The reconciler's pace once local mode is idle (it runs every reconcileEveryMs while busy). */
export const IDLE_RECONCILE_EVERY_MS = 30_000;
/** How often local mode compacts the lake's closed days (the stack does it daily). */
const LOCAL_LAKE_COMPACTION_EVERY_MS = 3_600_000;

/** A Google Meet link of the usual xxx-xxxx-xxx form, the same for the same schedule. */
/** An address on this machine (127.0.0.0/8, ::1, localhost): the only place plain http is allowed. */
export function isLoopbackUrl(url: string): boolean {
  return isLoopbackHost(new URL(url).hostname);
}

export function demoMeetingUrl(scheduleId: string): string {
  const letters = Array.from(createHash('sha256').update(scheduleId).digest().subarray(0, 10), (byte) =>
    String.fromCharCode(97 + (byte % 26)),
  ).join('');
  return `https://meet.google.com/${letters.slice(0, 3)}-${letters.slice(3, 7)}-${letters.slice(7)}`;
}

export function newSigningSecret(): string {
  return randomBytes(32).toString('base64');
}

export async function startLocalStack(options: LocalStackOptions): Promise<LocalStack> {
  const started = Date.now();
  // Set by stop(): from then on the emulators go away, so a failed call is expected and not reported.
  let stopping = false;
  const stamp = () => `+${((Date.now() - started) / 1000).toFixed(1).padStart(5)}s`;
  const counts = new Map<string, number>();
  // Every metric is a sign of activity: the reconciler keeps its fast pace while they come.
  const pacing = reconcilePacing(
    {
      everyMs: options.reconcileEveryMs,
      idleEveryMs: Math.max(options.reconcileEveryMs, IDLE_RECONCILE_EVERY_MS),
      quietAfterMs: options.staleAfterMs + 2 * options.reconcileEveryMs,
    },
    started,
  );
  const metrics: MetricSink = {
    emit: (metric, value, ..._dimensions) => {
      counts.set(metric.name, (counts.get(metric.name) ?? 0) + value);
      pacing.activity(Date.now());
    },
  };
  const record = (level: string, message: string, attributes: Record<string, unknown>[]) =>
    options.onLog?.(level, message, Object.assign({}, ...attributes) as Record<string, unknown>);
  const quiet = (message: string, ...attributes: Record<string, unknown>[]) => record('debug', message, attributes);
  const log: LogSink = {
    debug: quiet,
    info: (message, ...attributes) => {
      record('info', message, attributes);
      const a = Object.assign({}, ...attributes) as Record<string, unknown>;
      if (message === 'bot launched') options.print(`${stamp()}  ${a.bot_id}  launched for schedule ${a.schedule_id}`);
      if (message === 'meeting erased')
        options.print(`${stamp()}  ${a.bot_id}  erased (${a.reason}): receipt ${a.receipt_id}`);
      if (message === 'meeting archived')
        options.print(`${stamp()}  ${a.bot_id}  archived: recording ${a.recording_status}, ${a.recording_bytes} bytes`);
      if (message === 'reconciler run' && Array.isArray(a.healed) && a.healed.length > 0) {
        for (const h of a.healed as Array<{ botId: string; from: string; to: string }>)
          options.print(`${stamp()}  ${h.botId}  reconciler healed ${h.from} → ${h.to} (a webhook was lost)`);
      }
    },
    warn: (message, ...attributes) => {
      record('warn', message, attributes);
      // A push channel the run could not open or renew: local mode shows why (AWS has it in the log).
      if (message === 'calendar push channel not reconciled')
        options.print(`${stamp()}  ${message}: ${JSON.stringify(Object.assign({}, ...attributes))}`);
    },
    error: (message, ...attributes) => {
      record('error', message, attributes);
      if (!stopping) options.print(`${stamp()}  error: ${message} ${JSON.stringify(Object.assign({}, ...attributes))}`);
    },
  };
  const telemetry: Telemetry = { log, metrics };

  if (options.dataDir !== undefined) privateFolder(options.dataDir);
  const [dynamo, sqsS3] = await Promise.all([
    startDynamoEmulator({ ...(options.dataDir && { path: options.dataDir }) }),
    startSqsS3Emulator(),
  ]);
  Object.assign(process.env, dynamo.env, sqsS3.env);
  // The stack as synthesized, created on the emulators: every handler below gets the environment the
  // template gives its function (local/template/), with only the outside world's addresses replaced.
  const resources = await createLocalResources(
    { dynamo: new DynamoDBClient({}), sqs: sqsClient(), s3: s3Client() },
    {
      prefix: 'dev',
      visibilityTimeoutSeconds: 5,
      reuseTable: true,
      config: {
        eraseUpstream: options.eraseUpstream ?? false,
        eraseOnUpstreamDelete: options.eraseOnUpstreamDelete ?? true,
      },
    },
  );
  const { deployment } = resources;

  // Against a real service (or the standalone simulator) nothing is simulated here.
  const service = options.upstream === undefined ? new SimulatedServiceApi() : undefined;
  let apiBaseUrl: string;
  let apiKey = LOCAL_API_KEY;
  if (service === undefined) {
    apiBaseUrl = options.upstream?.baseUrl ?? '';
    apiKey = options.upstream?.apiKey ?? '';
  } else {
    // The service stages a scheduled bot 5–10 minutes ahead; local meetings are seconds away.
    service.stageAhead = { mostMs: 1_000, leastMs: 500 };
    service.schedulerPollMs = 100;
    apiBaseUrl = await service.start();
    service.apiKeys.set(LOCAL_API_KEY, 'all');
    if (options.postsPerMinute !== undefined)
      service.postThrottle = { limit: options.postsPerMinute, windowMs: 60_000 };
    service.zoomCredentials = options.zoomCredentials ?? true;
  }
  const upstream = new UpstreamClient({ baseUrl: apiBaseUrl, apiKey: async () => apiKey, telemetry });
  const db = documentClient();

  let webhookUrl = '';
  const random = seededRandom(options.seed);
  const sender = new WebhookSender({
    url: () => webhookUrl,
    signingSecret: options.signingSecret,
    chaos: options.chaos,
    random,
  });
  let schedulesHandler: HttpRouteHandler | undefined;
  let readHandler: HttpRouteHandler | undefined;
  let calendarsHandler: HttpRouteHandler | undefined;
  let eraseHandler: HttpRouteHandler | undefined;
  let calendarPushHandler: HttpRouteHandler | undefined;
  let lakeSearch: LocalLakeSearch | undefined;
  const httpApi = await startLocalHttpApi(
    {
      lake: () => lakeSearch?.handler,
      schedules: () => schedulesHandler,
      read: () => readHandler,
      calendars: () => calendarsHandler,
      erase: () => eraseHandler,
      calendarPush: () => calendarPushHandler,
      webhooks: createIngressHandler(
        ingressDependencies(
          localIngressEnvironment(resources),
          {
            sqs: sqsClient(),
            payloads: s3PayloadStore(resources.payloadBucket),
            signingSecret: staticSecret(options.signingSecret),
            db: dynamoClient(),
          },
          telemetry,
        ),
      ),
    },
    options.httpPort,
  );
  webhookUrl = httpApi.webhookUrl;

  // The event bus of local mode: the timeline, and the PutEvents entries in a file.
  const { eventsFile } = options;
  // Each event once in the timeline: the bus delivers at least once (a redelivered webhook publishes again,
  // under the same event_id), and the file keeps every copy as a consumer would receive it.
  const printedEvents = new Set<string>();
  const events = eventLogPublisher({
    file: eventsFile,
    onEvent: (event) => {
      if (printedEvents.has(event.detail.event_id)) return;
      printedEvents.add(event.detail.event_id);
      options.print(`${stamp()}  ${describeDomainEvent(event)}`);
    },
  });
  const processing = processEventsDependencies(
    localProcessEventsEnvironment(resources),
    { db, sqs: sqsClient(), s3: s3Client(), events },
    telemetry,
  );
  const { recordingsBucket } = resources;
  const archiveEnvironment = deployment.parsedEnvironmentOf(SERVICES.archive, {
    UPSTREAM_BASE_URL: apiBaseUrl,
    // Plain http and loopback addresses only for a service on this machine; a real one gets the production guard.
    ALLOW_LOOPBACK_DOWNLOADS: String(isLoopbackUrl(apiBaseUrl)),
    // Local meetings are short: a crashed meeting's recording is waited for a minute, not the deployed half hour.
    RECORDING_WAIT_MINUTES: '1',
  });
  const erasing = {
    ...eraseDependencies(
      deployment.parsedEnvironmentOf(SERVICES.erase, {
        UPSTREAM_BASE_URL: apiBaseUrl,
        // Local writers finish in seconds: the second sweep need not wait the deployed 15 minutes.
        RESWEEP_DELAY_SECONDS: '5',
      }),
      { db, s3: s3Client(), sqs: sqsClient(), upstream, events, objects: unversionedObjects(s3Client()) },
      telemetry,
    ),
    // DuckDB's copies of the lake: this process's search engine's, and the CLI's next to the endpoints file.
    lakeCopies: mirroredLakeCopies(s3Client(), recordingsBucket, () => [
      ...(lakeSearch === undefined ? [] : [lakeSearch.mirrorDir]),
      ...(options.endpointsFile === undefined ? [] : [lakeMirrorDirOf(options.endpointsFile, recordingsBucket)]),
    ]),
  };
  eraseHandler = createEraseApiHandler(erasing);
  // A receive long-polls for up to 20 s: its client must allow an answer that slow.
  const pollerSqs = sqsClient({ ...DEFAULT_CLIENT_TIMEOUTS, requestTimeoutMs: (LONG_POLL_SECONDS + 5) * 1000 });
  const pollers = [
    new QueuePoller({
      sqs: pollerSqs,
      queueUrl: resources.erasureQueueUrl,
      batchSize: 1,
      handler: createErasureQueueHandler(erasing),
    }),
    new QueuePoller({
      sqs: pollerSqs,
      queueUrl: resources.eventsQueueUrl,
      handler: createProcessEventsHandler(processing),
    }),
    new QueuePoller({
      sqs: pollerSqs,
      queueUrl: resources.archiveQueueUrl,
      batchSize: 1,
      handler: createArchiveHandler(
        archiveDependencies(
          archiveEnvironment,
          // The lake under `lake/` of the recordings bucket; the local S3 keeps one version per key.
          { db, s3: s3Client(), upstream, events, objects: unversionedObjects(s3Client()) },
          telemetry,
        ),
        // Local meetings are short: a crashed meeting's recording is waited for a minute, retried every few seconds.
        {
          ...archiveHandlerOptions(archiveEnvironment, sqsClient()),
          retry: { recordingWaitMs: 60_000, pendingDelaySeconds: 2, failureDelaySeconds: 5, maxDelaySeconds: 20 },
        },
      ),
    }),
  ];
  for (const poller of pollers) poller.start();

  // Join times here are seconds away, so a launch carries join_at down to half a second ahead.
  const launchTask = createLaunchTaskHandler({
    table: processing.table,
    upstream,
    events,
    telemetry,
    now: Date.now,
    joinAtMarginMs: 500,
  });
  const executions = new LocalExecutions(launcherDefinition(deployment.resources.template), {
    task: launchTask as (event: unknown) => Promise<unknown>,
    retryIntervalMs: 200,
  });
  // The simulated service starts bots within a second; a real one 5-10 minutes ahead, so it gets the real lead.
  const calendarsEnvironment = deployment.parsedEnvironmentOf(SERVICES.calendars, {
    UPSTREAM_BASE_URL: apiBaseUrl,
    ...(service !== undefined && { LAUNCH_LEAD_SECONDS: '2' }),
  });
  const timing: ScheduleTiming = {
    ...DEFAULT_TIMING,
    leadMs: calendarsEnvironment.LAUNCH_LEAD_SECONDS * 1000,
    ...(service !== undefined && { jitterMs: 500 }),
  };
  const scheduling: ScheduleDependencies = {
    table: processing.table,
    executions,
    upstream,
    timing,
    telemetry,
    now: Date.now,
  };
  schedulesHandler = createSchedulesHandler(scheduling);
  // Feeds on this machine may be plain http (a file served locally); any other gets the production guard.
  const calendars: CalendarApiDependencies = {
    store: calendarStore(processing.table),
    sealer: memorySealer(),
    fetchFeed: guardedFeedFetcher({ allowLoopback: true }),
    schedules: scheduling,
    scheduleLimits: {
      perSync: calendarsEnvironment.MAX_NEW_SCHEDULES_PER_SYNC,
      perDay: calendarsEnvironment.MAX_NEW_SCHEDULES_PER_DAY,
    },
    telemetry,
    allowLoopback: true,
    now: Date.now,
  };
  // Company calendars: the real per-user sync behind the same routes, users queued on the template's queue.
  const companySync =
    options.companyCalendars === undefined
      ? undefined
      : startLocalCompanySync({
          calendars,
          endpoints: options.companyCalendars.endpoints,
          credentials: options.companyCalendars.credentials,
          publisher: events,
          publicBaseUrl: httpApi.baseUrl,
          print: (line) => options.print(`${stamp()}  ${line}`),
          ...templateUserSyncConsumer(deployment, pollerSqs),
        });
  calendarPushHandler = companySync?.pushHandler;
  calendarsHandler = createCalendarsHandler(calendars);
  lakeSearch = await startLocalLakeSearch({
    s3: s3Client(),
    bucket: recordingsBucket,
    region: LOCAL_REGION,
    telemetry,
    environment: deployment.parsedEnvironmentOf(SERVICES.lakeSearch),
    workGroup: deployment.resources.propertiesOfOnly('AWS::Athena::WorkGroup')
      .WorkGroupConfiguration as WorkGroupConfiguration,
  });
  readHandler = createReadApiHandler(
    readApiDependencies(deployment.parsedEnvironmentOf(SERVICES.readApi), {
      db,
      s3: s3Client(),
    }),
    telemetry,
  );

  const played =
    service === undefined
      ? new Map<string, PlayedMeeting & { scheduleId: string }>()
      : playStartedBots(service, {
          sender,
          stepMs: options.stepMs,
          recordingBytes: options.recordingBytes,
          random,
          print: (line) => options.print(`${stamp()}  ${line}`),
        });

  // The reconciler applies what it heals with its own function's environment, as in AWS.
  const reconcilerEnvironment = deployment.parsedEnvironmentOf(SERVICES.reconciler, { UPSTREAM_BASE_URL: apiBaseUrl });
  const reconcileRun = reconciler(
    processEventsDependencies(reconcilerEnvironment, { db, sqs: sqsClient(), s3: s3Client(), events }, telemetry),
    upstream,
    telemetry,
    { staleAfterMs: options.staleAfterMs, maxMeetings: reconcilerEnvironment.MAX_MEETINGS_PER_RUN },
  );
  // Runs, waits and timers in flight: stop() lets each end before the emulators go.
  const inFlight = new Set<Promise<unknown>>();
  const tracked = <T>(work: Promise<T>): Promise<T> => {
    inFlight.add(work);
    void work.catch(() => undefined).finally(() => inFlight.delete(work));
    return work;
  };
  const reconcile = setInterval(() => {
    if (stopping || !pacing.due(Date.now())) return;
    pacing.started(Date.now());
    void tracked(
      reconcileRun()
        .then((report) =>
          pacing.finished(report.checked > 0 || report.archiveJobs.length > 0 || report.failures.length > 0),
        )
        .catch((error: unknown) => {
          pacing.finished(true);
          if (!stopping) options.print(`${stamp()}  reconciler failed: ${String(error)}`);
        }),
    );
  }, options.reconcileEveryMs);

  // The lake's compaction: daily in AWS, hourly here (and once at start), on the same core.
  const lakeEnvironment = deployment.parsedEnvironmentOf(SERVICES.lakeCompaction);
  const compactLake = createLakeCompactionHandler(
    lakeEnvironment,
    lakeCompactionDependencies(
      lakeEnvironment,
      {
        db,
        s3: s3Client(),
        objects: s3LakeObjects(s3Client(), lakeEnvironment.LAKE_BUCKET, unversionedObjects(s3Client())),
      },
      telemetry,
    ),
  );
  const runLakeCompaction = () =>
    tracked(
      compactLake().catch((error: unknown) => {
        if (!stopping) options.print(`${stamp()}  lake compaction failed: ${String(error)}`);
      }),
    );
  void runLakeCompaction();
  const lakeCompaction = setInterval(runLakeCompaction, LOCAL_LAKE_COMPACTION_EVERY_MS);

  const botIdOf = async (scheduleId: string): Promise<string | undefined> => {
    const { Item } = await db.send(
      new GetCommand({ TableName: resources.tableName, Key: keys.schedule(scheduleId), ConsistentRead: true }),
    );
    return Item?.botId as string | undefined;
  };

  const check = (scheduleIds: string[]) =>
    checkMeetings(scheduleIds, { db, tableName: resources.tableName, played, botIdOf });

  return {
    stamp,
    webhookUrl,
    scheduleApiUrl: httpApi.scheduleApiUrl,
    readApiUrl: httpApi.readApiUrl,
    calendarApiUrl: httpApi.baseUrl,
    calendars,
    ...(companySync !== undefined && { runCompanyCalendars: companySync.runOnce }),
    recordingsBucket,
    lakeMirrorDir: lakeSearch.mirrorDir,
    eventsFile,
    apiBaseUrl,
    serviceApiKey: apiKey,
    resources,
    sender,
    counts,
    played,
    scheduleMeeting: (scheduleId, joinAt, meetingUrl, scenario) =>
      upsertSchedule(
        scheduleId,
        {
          meeting_url: meetingUrl ?? demoMeetingUrl(scheduleId),
          join_at: joinAt.toISOString(),
          bot_name: 'Local Notetaker',
          ...(scenario !== undefined && { metadata: { [SCENARIO_METADATA_KEY]: scenario } }),
        },
        scheduling,
      ),
    waitUntilArchived: (scheduleIds, timeoutMs) => tracked(waitUntilArchived(scheduleIds, timeoutMs)),
    check,
    async stop() {
      stopping = true;
      clearInterval(reconcile);
      clearInterval(lakeCompaction);
      await Promise.allSettled(inFlight);
      await companySync?.stop();
      for (const [name, execution] of executions.executions)
        if (!execution.stopped) await executions.stop(execution.executionArn).catch(() => name);
      await Promise.all(pollers.map((p) => p.stop()));
      await sender.drain();
      await httpApi.stop();
      await lakeSearch?.stop();
      await service?.stop();
      await Promise.all([dynamo.stop(), sqsS3.stop()]);
    },
  };

  /** Polls the table until every meeting is archived; ends early, with StackStoppedError, once stop() is called. */
  async function waitUntilArchived(scheduleIds: string[], timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (stopping) throw new StackStoppedError();
      let archived = 0;
      for (const scheduleId of scheduleIds) {
        const botId = await botIdOf(scheduleId);
        if (botId === undefined) continue;
        const { Item } = await db.send(
          new GetCommand({ TableName: resources.tableName, Key: keys.meeting(botId), ConsistentRead: true }),
        );
        const meeting = played.get(botId);
        const neverJoined = meeting?.recording === null && Item?.state === meeting.finalState;
        if (Item?.archive !== undefined || neverJoined) archived++;
      }
      if (archived === scheduleIds.length) return true;
      if (Date.now() > deadline) return false;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}

/** What a wait on the stack ends with when the stack is stopped under it (Ctrl-C): expected, not a failure. */
export class StackStoppedError extends Error {
  constructor() {
    super('local mode stopped');
    this.name = 'StackStoppedError';
  }
}
