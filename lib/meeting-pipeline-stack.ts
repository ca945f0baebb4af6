/** The whole pipeline: one construct per capability, wired together. */
import { CfnOutput, Duration, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import type { TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { DEAD_LETTER_QUEUE_OUTPUTS, dlqOutputs, STACK_OUTPUTS } from '../lambdas/core/stack-outputs';
import { SERVICES } from '../lambdas/core/telemetry';
import { AccessLogsBucket } from './access-logs';
import { BotScheduler } from './bot-scheduler';
import { CalendarPush } from './calendar-push';
import { CalendarSync } from './calendar-sync';
import type { PipelineConfig } from './config';
import { DEFAULT_EVENT_ARCHIVE_RETENTION_DAYS, DomainEvents } from './domain-events';
import { Erasure } from './erasure';
import { EVENT_CONSUMER_TIMEOUT, EventProcessing } from './event-processing';
import { functionSettings } from './function';
import { PipelineHttpApi } from './http-api';
import { MeetingsLake } from './meetings-lake';
import { MeetingsTable } from './meetings-table';
import { Monitoring } from './monitoring';
import { ReadApi } from './read-api';
import { Reconciler } from './reconciler';
import { RecordingArchive } from './recording-archive';
import { WebhookIngress } from './webhook-ingress';

export interface MeetingPipelineStackProps extends StackProps {
  config: PipelineConfig;
}

export class MeetingPipelineStack extends Stack {
  readonly httpApi: PipelineHttpApi;
  readonly ingress: WebhookIngress;
  readonly eventProcessing: EventProcessing;
  readonly recordingArchive: RecordingArchive;
  readonly meetingsTable: TableV2;
  readonly reconciler: Reconciler;
  readonly scheduler: BotScheduler;
  readonly readApi: ReadApi;
  readonly calendarSync: CalendarSync;
  readonly calendarPush: CalendarPush;
  readonly monitoring: Monitoring;
  readonly domainEvents: DomainEvents;
  readonly erasure: Erasure;
  readonly lake: MeetingsLake;

  constructor(scope: Construct, id: string, props: MeetingPipelineStackProps) {
    super(scope, id, props);
    const { config } = props;
    const functions = functionSettings(config);
    const removalPolicy = config.retainData ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY;
    const signingSecret = Secret.fromSecretNameV2(this, 'SigningSecret', config.signingSecretName);
    const apiKeySecret = Secret.fromSecretNameV2(this, 'ApiKeySecret', config.apiKeySecretName);
    const accessLogs = new AccessLogsBucket(this, 'AccessLogs', {
      removalPolicy,
      retention: Duration.days(config.accessLogRetentionDays),
    }).bucket;

    const { table } = new MeetingsTable(this, 'Meetings', { removalPolicy });
    this.meetingsTable = table;

    this.httpApi = new PipelineHttpApi(this, 'HttpApi', {
      throttle: { rateLimit: config.webhookRateLimit, burstLimit: config.webhookBurstLimit },
      functions,
    });

    this.ingress = new WebhookIngress(this, 'WebhookIngress', {
      api: this.httpApi,
      table,
      dedupRetentionDays: config.dedupRetentionDays,
      accessLogs,
      signingSecret,
      maxBodyBytes: config.maxWebhookBodyBytes,
      secretCacheSeconds: config.secretCacheSeconds,
      payloadRetention: Duration.days(config.payloadRetentionDays),
      quarantineRetention: Duration.days(config.quarantineRetentionDays),
      quarantineLimits: {
        maxEntriesPerMinute: config.quarantineMaxPerMinute,
        maxBytesPerMinute: config.quarantineMaxBytesPerMinute,
        maxEntriesPerBotPerDay: config.quarantineMaxPerBotPerDay,
      },
      functions,
      consumerTimeout: EVENT_CONSUMER_TIMEOUT,
      reservedConcurrency: config.ingressReservedConcurrency,
      removalPolicy,
    });

    this.recordingArchive = new RecordingArchive(this, 'RecordingArchive', {
      accessLogs,
      table,
      apiKeySecret,
      upstreamBaseUrl: config.upstreamBaseUrl,
      secretCacheSeconds: config.secretCacheSeconds,
      maxRecordingBytes: config.maxRecordingBytes,
      recordingWaitMinutes: config.recordingWaitMinutes,
      recordingDownloadMinutes: config.recordingDownloadMinutes,
      recordingDownloadMinKiBPerSecond: config.recordingDownloadMinKiBPerSecond,
      replacedVersionRetentionDays: config.replacedVersionRetentionDays,
      recordingArchiveClass: config.recordingArchiveClass,
      recordingTransitionDays: config.recordingTransitionDays,
      uploadPartMiB: config.recordingUploadPartMiB,
      maxConcurrency: config.archiveConcurrency,
      functions,
      removalPolicy,
    });

    this.erasure = new Erasure(this, 'Erasure', {
      api: this.httpApi,
      table,
      payloadBucket: this.ingress.payloadBucket,
      recordingsBucket: this.recordingArchive.bucket,
      apiKeySecret,
      upstreamBaseUrl: config.upstreamBaseUrl,
      secretCacheSeconds: config.secretCacheSeconds,
      eraseUpstream: config.eraseUpstream,
      ...(config.meetingRetentionDays !== undefined && { meetingRetentionDays: config.meetingRetentionDays }),
      logRetentionDays: config.logRetentionDays,
      eventArchiveRetentionDays: DEFAULT_EVENT_ARCHIVE_RETENTION_DAYS,
      functions,
    });

    this.eventProcessing = new EventProcessing(this, 'EventProcessing', {
      table,
      eventsQueue: this.ingress.eventsQueue,
      archiveQueue: this.recordingArchive.queue,
      payloadBucket: this.ingress.payloadBucket,
      ...(config.eraseOnUpstreamDelete && { erasureQueue: this.erasure.queue }),
      dedupRetentionDays: config.dedupRetentionDays,
      maxConcurrency: config.eventConcurrency,
      functions,
    });

    this.reconciler = new Reconciler(this, 'Reconciler', {
      table,
      archiveQueue: this.recordingArchive.queue,
      payloadBucket: this.ingress.payloadBucket,
      apiKeySecret,
      upstreamBaseUrl: config.upstreamBaseUrl,
      secretCacheSeconds: config.secretCacheSeconds,
      dedupRetentionDays: config.dedupRetentionDays,
      everyMinutes: config.reconcileEveryMinutes,
      staleAfterMinutes: config.reconcileStaleAfterMinutes,
      maxMeetingsPerRun: config.reconcileMaxMeetings,
      // A lost data_deleted webhook, healed, erases the meeting as the webhook would have.
      ...(config.eraseOnUpstreamDelete && { erasureQueue: this.erasure.queue }),
      functions,
    });

    this.scheduler = new BotScheduler(this, 'BotScheduler', {
      table,
      api: this.httpApi,
      apiKeySecret,
      upstreamBaseUrl: config.upstreamBaseUrl,
      secretCacheSeconds: config.secretCacheSeconds,
      launchLeadSeconds: config.launchLeadSeconds,
      launchReservedConcurrency: config.launchReservedConcurrency,
      calendarEventProducers: config.calendarEventProducers,
      functions,
    });

    this.calendarSync = new CalendarSync(this, 'CalendarSync', {
      table,
      api: this.httpApi,
      stateMachine: this.scheduler.stateMachine,
      apiKeySecret,
      upstreamBaseUrl: config.upstreamBaseUrl,
      secretCacheSeconds: config.secretCacheSeconds,
      launchLeadSeconds: config.launchLeadSeconds,
      everyMinutes: config.calendarSyncEveryMinutes,
      scheduleLimits: {
        perSync: config.calendarMaxNewSchedulesPerSync,
        perDay: config.calendarMaxNewSchedulesPerDay,
      },
      credentialsSecretPrefix: config.calendarCredentialsSecretPrefix,
      providerEndpoints: {
        googleCalendarApi: config.googleCalendarApiUrl,
        googleDirectoryApi: config.googleDirectoryApiUrl,
        googleTokenUrl: config.googleTokenUrl,
        microsoftGraph: config.microsoftGraphUrl,
        microsoftLogin: config.microsoftLoginUrl,
      },
      userSyncConcurrency: config.calendarUserSyncConcurrency,
      functions,
    });

    // Notification routes only; the scheduled sync (which alone reads the company credentials) opens and renews the channels.
    this.calendarPush = new CalendarPush(this, 'CalendarPush', {
      table,
      api: this.httpApi,
      userSyncQueue: this.calendarSync.userSyncQueue,
      serviceName: SERVICES.calendarPush,
      maxBodyBytes: config.calendarPushMaxBodyBytes,
      renewMarginMinutes: config.calendarPushRenewMarginMinutes,
      secretCacheSeconds: config.secretCacheSeconds,
      functions,
    });
    this.calendarPush.grantRenewal(this.calendarSync.syncFunction);

    this.readApi = new ReadApi(this, 'ReadApi', {
      api: this.httpApi,
      table,
      recordingsBucket: this.recordingArchive.bucket,
      payloadBucket: this.ingress.payloadBucket,
      recordingLinkMinutes: config.recordingLinkMinutes,
      functions,
    });

    // All-time search: the lake in the recordings bucket, its catalogue, workgroup and functions.
    this.lake = new MeetingsLake(this, 'Lake', {
      bucket: this.recordingArchive.bucket,
      table,
      api: this.httpApi,
      firstDay: config.lakeFirstDay,
      bytesScannedCutoffBytes: config.lakeBytesScannedCutoffGiB * 1024 ** 3,
      resultsExpireDays: config.lakeResultsExpireDays,
      compactAfterHours: config.lakeCompactAfterHours,
      functions,
    });
    this.lake.grantLakeWrites(this.recordingArchive.function, table);
    // Erasure and retention (one function) reach the lake and the query results.
    this.lake.grantLakeErasure(this.erasure.function);

    this.domainEvents = new DomainEvents(this, 'DomainEvents', {
      publishers: [
        this.eventProcessing.function,
        this.recordingArchive.function,
        this.reconciler.function,
        this.scheduler.launchFunction,
        this.erasure.function,
        // calendar.disconnected: a company calendar user (or source) cut off.
        this.calendarSync.syncFunction,
        this.calendarSync.userSyncFunction,
      ],
    });

    this.monitoring = new Monitoring(this, 'Monitoring', {
      api: this.httpApi.api,
      throttledRequests: this.httpApi.throttledRequests,
      functions: {
        [SERVICES.ingress]: this.ingress.function,
        [SERVICES.processEvents]: this.eventProcessing.function,
        [SERVICES.archive]: this.recordingArchive.function,
        [SERVICES.reconciler]: this.reconciler.function,
        [SERVICES.launchBot]: this.scheduler.launchFunction,
        [SERVICES.schedules]: this.scheduler.schedulesFunction,
        [SERVICES.readApi]: this.readApi.function,
        [SERVICES.calendars]: this.calendarSync.apiFunction,
        [SERVICES.calendarSync]: this.calendarSync.syncFunction,
        [SERVICES.calendarUserSync]: this.calendarSync.userSyncFunction,
        [SERVICES.calendarPush]: this.calendarPush.function,
        [SERVICES.erase]: this.erasure.function,
        [SERVICES.lakeSearch]: this.lake.searchFunction,
        [SERVICES.lakeCompaction]: this.lake.compactionFunction,
      },
      eventsQueue: this.ingress.eventsQueue,
      archiveQueue: this.recordingArchive.queue,
      userSyncQueue: this.calendarSync.userSyncQueue,
      deadLetterQueues: Object.fromEntries(
        Object.entries(this.deadLetterQueues()).map(([name, { queue }]) => [name, queue]),
      ),
      stateMachine: this.scheduler.stateMachine,
      ...(config.alarmEmail !== undefined && { alarmEmail: config.alarmEmail }),
      maxEventAgeSeconds: config.maxEventAgeSeconds,
      signatureRejectionThreshold: config.signatureRejectionThreshold,
      missedMeetingsAlarmPercent: config.missedMeetingsAlarmPercent,
    });

    new CfnOutput(this, STACK_OUTPUTS.webhookUrl, {
      value: this.ingress.webhookUrl,
      description: 'Register this URL with the meeting assistant service',
    });
    new CfnOutput(this, STACK_OUTPUTS.apiUrl, {
      value: this.httpApi.url,
      description: 'The HTTP API base (no trailing slash)',
    });
    new CfnOutput(this, STACK_OUTPUTS.readApiUrl, {
      value: this.readApi.url,
      description: 'GET /meetings… with SigV4 (IAM) authentication; the CLI finds it here',
    });
    new CfnOutput(this, STACK_OUTPUTS.scheduleApiUrl, {
      value: `${this.httpApi.url}/schedules/{id}`,
      description: 'PUT/GET/DELETE with SigV4 (IAM) authentication',
    });
    new CfnOutput(this, STACK_OUTPUTS.eventsQueueUrl, { value: this.ingress.eventsQueue.queueUrl });
    new CfnOutput(this, STACK_OUTPUTS.archiveQueueUrl, { value: this.recordingArchive.queue.queueUrl });
    new CfnOutput(this, STACK_OUTPUTS.erasureQueueUrl, { value: this.erasure.queue.queueUrl });
    new CfnOutput(this, STACK_OUTPUTS.userSyncQueueUrl, { value: this.calendarSync.userSyncQueue.queueUrl });
    for (const [name, { queue, holds }] of Object.entries(this.deadLetterQueues())) {
      const output = dlqOutputs(name);
      new CfnOutput(this, output.url, { value: queue.queueUrl, description: holds });
      new CfnOutput(this, output.arn, { value: queue.queueArn, description: holds });
    }
    new CfnOutput(this, STACK_OUTPUTS.payloadBucket, { value: this.ingress.payloadBucket.bucketName });
    new CfnOutput(this, STACK_OUTPUTS.signingSecretName, {
      value: config.signingSecretName,
      description: 'The webhook signing secret (Secrets Manager); quarantine re-drives verify with it',
    });
    new CfnOutput(this, STACK_OUTPUTS.apiKeySecretName, {
      value: config.apiKeySecretName,
      description: "The service's API key (Secrets Manager)",
    });
    new CfnOutput(this, STACK_OUTPUTS.upstreamBaseUrl, {
      value: config.upstreamBaseUrl,
      description: "The service's API root the functions call",
    });
    new CfnOutput(this, STACK_OUTPUTS.tableName, { value: table.tableName });
    new CfnOutput(this, STACK_OUTPUTS.lakeWorkGroup, {
      value: this.lake.workGroupName,
      description: 'Athena workgroup of the lake (results location and bytes-scanned cutoff enforced)',
    });
    new CfnOutput(this, STACK_OUTPUTS.lakeDatabase, {
      value: this.lake.databaseName,
      description: 'Glue database of the lake: query the views meetings, utterances, participants',
    });
    new CfnOutput(this, STACK_OUTPUTS.lakeResultsLocation, {
      value: this.lake.resultsLocation,
      description: 'Where Athena writes query results (they expire)',
    });
    new CfnOutput(this, STACK_OUTPUTS.recordingsBucket, { value: this.recordingArchive.bucket.bucketName });
    new CfnOutput(this, STACK_OUTPUTS.calendarEventBusName, {
      value: this.scheduler.calendarEventBus.eventBusName,
      description: 'Calendar events go here; only the principals in calendarEventProducers may put them',
    });
    new CfnOutput(this, STACK_OUTPUTS.calendarEventBusArn, { value: this.scheduler.calendarEventBus.eventBusArn });
    new CfnOutput(this, 'LauncherStateMachineArn', { value: this.scheduler.stateMachine.stateMachineArn });
    new CfnOutput(this, STACK_OUTPUTS.alarmTopicArn, {
      value: this.monitoring.topic.topicArn,
      description: 'Subscribe your paging to this topic',
    });
    new CfnOutput(this, 'DashboardName', { value: this.monitoring.dashboard.dashboardName });
    new CfnOutput(this, 'EventBusName', {
      value: this.domainEvents.bus.eventBusName,
      description: 'Domain events (source meeting-pipeline): add your EventBridge rules here',
    });
    new CfnOutput(this, 'EventBusArn', { value: this.domainEvents.bus.eventBusArn });
  }

  /** Every dead-letter queue, by the name its outputs and alarms carry, and what it holds. */
  deadLetterQueues(): Record<string, { queue: Queue; holds: string }> {
    return {
      [DEAD_LETTER_QUEUE_OUTPUTS.events]: {
        queue: this.ingress.eventsDeadLetterQueue,
        holds: 'Webhooks that failed processing after their retries',
      },
      [DEAD_LETTER_QUEUE_OUTPUTS.archive]: {
        queue: this.recordingArchive.deadLetterQueue,
        holds: 'Archive jobs that failed after their retries',
      },
      [DEAD_LETTER_QUEUE_OUTPUTS.calendar]: {
        queue: this.scheduler.calendarDeadLetterQueue,
        holds: 'Calendar events that could not be delivered or applied',
      },
      [DEAD_LETTER_QUEUE_OUTPUTS.erasure]: {
        queue: this.erasure.deadLetterQueue,
        holds: 'Erasure jobs (upstream data_deleted, retention, second sweeps) that failed after their retries',
      },
      [DEAD_LETTER_QUEUE_OUTPUTS.userSync]: {
        queue: this.calendarSync.userSyncDeadLetterQueue,
        holds: 'Company calendar user syncs that failed after their retries',
      },
    };
  }
}
