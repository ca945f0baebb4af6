/** The whole pipeline: one construct per capability, wired together. */
import { CfnOutput, Duration, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import type { TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import { SERVICES } from '../lambdas/core/telemetry';
import { AccessLogsBucket } from './access-logs';
import { BotScheduler } from './bot-scheduler';
import type { PipelineConfig } from './config';
import { EVENT_CONSUMER_TIMEOUT, EventProcessing } from './event-processing';
import { functionSettings } from './function';
import { MeetingsTable } from './meetings-table';
import { Monitoring } from './monitoring';
import { Reconciler } from './reconciler';
import { RecordingArchive } from './recording-archive';
import { WebhookIngress } from './webhook-ingress';

export interface MeetingPipelineStackProps extends StackProps {
  config: PipelineConfig;
}

export class MeetingPipelineStack extends Stack {
  readonly ingress: WebhookIngress;
  readonly eventProcessing: EventProcessing;
  readonly recordingArchive: RecordingArchive;
  readonly meetingsTable: TableV2;
  readonly reconciler: Reconciler;
  readonly scheduler: BotScheduler;
  readonly monitoring: Monitoring;

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

    this.ingress = new WebhookIngress(this, 'WebhookIngress', {
      table,
      dedupRetentionDays: config.dedupRetentionDays,
      accessLogs,
      signingSecret,
      maxBodyBytes: config.maxWebhookBodyBytes,
      secretCacheSeconds: config.secretCacheSeconds,
      payloadRetention: Duration.days(config.payloadRetentionDays),
      quarantineRetention: Duration.days(config.quarantineRetentionDays),
      functions,
      consumerTimeout: EVENT_CONSUMER_TIMEOUT,
      throttle: { rateLimit: config.webhookRateLimit, burstLimit: config.webhookBurstLimit },
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
      replacedVersionRetentionDays: config.replacedVersionRetentionDays,
      recordingArchiveClass: config.recordingArchiveClass,
      recordingTransitionDays: config.recordingTransitionDays,
      uploadPartMiB: config.recordingUploadPartMiB,
      maxConcurrency: config.archiveConcurrency,
      functions,
      removalPolicy,
    });

    this.eventProcessing = new EventProcessing(this, 'EventProcessing', {
      table,
      eventsQueue: this.ingress.eventsQueue,
      archiveQueue: this.recordingArchive.queue,
      payloadBucket: this.ingress.payloadBucket,
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
      functions,
    });

    this.scheduler = new BotScheduler(this, 'BotScheduler', {
      table,
      api: this.ingress.api,
      apiKeySecret,
      upstreamBaseUrl: config.upstreamBaseUrl,
      secretCacheSeconds: config.secretCacheSeconds,
      launchLeadSeconds: config.launchLeadSeconds,
      launchReservedConcurrency: config.launchReservedConcurrency,
      functions,
    });

    this.monitoring = new Monitoring(this, 'Monitoring', {
      api: this.ingress.api,
      throttledRequests: this.ingress.throttledRequests,
      functions: {
        [SERVICES.ingress]: this.ingress.function,
        [SERVICES.processEvents]: this.eventProcessing.function,
        [SERVICES.archive]: this.recordingArchive.function,
        [SERVICES.reconciler]: this.reconciler.function,
        [SERVICES.launchBot]: this.scheduler.launchFunction,
        [SERVICES.schedules]: this.scheduler.schedulesFunction,
      },
      eventsQueue: this.ingress.eventsQueue,
      archiveQueue: this.recordingArchive.queue,
      deadLetterQueues: {
        EventsDeadLetterQueue: this.ingress.eventsDeadLetterQueue,
        ArchiveDeadLetterQueue: this.recordingArchive.deadLetterQueue,
        CalendarEventsDeadLetterQueue: this.scheduler.calendarDeadLetterQueue,
      },
      stateMachine: this.scheduler.stateMachine,
      ...(config.alarmEmail !== undefined && { alarmEmail: config.alarmEmail }),
      maxEventAgeSeconds: config.maxEventAgeSeconds,
      signatureRejectionThreshold: config.signatureRejectionThreshold,
    });

    new CfnOutput(this, 'WebhookUrl', {
      value: this.ingress.webhookUrl,
      description: 'Register this URL with the meeting assistant service',
    });
    new CfnOutput(this, 'EventsQueueUrl', { value: this.ingress.eventsQueue.queueUrl });
    new CfnOutput(this, 'EventsDeadLetterQueueUrl', { value: this.ingress.eventsDeadLetterQueue.queueUrl });
    new CfnOutput(this, 'PayloadBucketName', { value: this.ingress.payloadBucket.bucketName });
    new CfnOutput(this, 'MeetingsTableName', { value: table.tableName });
    new CfnOutput(this, 'ArchiveQueueUrl', { value: this.recordingArchive.queue.queueUrl });
    new CfnOutput(this, 'RecordingsBucketName', { value: this.recordingArchive.bucket.bucketName });
    new CfnOutput(this, 'ScheduleApiUrl', {
      value: `${this.ingress.stage.url.replace(/\/$/, '')}/schedules/{id}`,
      description: 'PUT/GET/DELETE with SigV4 (IAM) authentication',
    });
    new CfnOutput(this, 'CalendarEventsDeadLetterQueueUrl', {
      value: this.scheduler.calendarDeadLetterQueue.queueUrl,
      description: 'Calendar events that could not be delivered or applied',
    });
    new CfnOutput(this, 'LauncherStateMachineArn', { value: this.scheduler.stateMachine.stateMachineArn });
    new CfnOutput(this, 'AlarmTopicArn', {
      value: this.monitoring.topic.topicArn,
      description: 'Subscribe your paging to this topic',
    });
    new CfnOutput(this, 'DashboardName', { value: this.monitoring.dashboard.dashboardName });
  }
}
