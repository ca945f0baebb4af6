/**
 * Erasure: the erase function behind `DELETE /meetings/{bot_id}` (IAM-authorized), the
 * erasure queue it also works from (the service's `data_deleted`, retention, the delayed
 * second sweep) with its DLQ, and, with `meetingRetentionDays` set, the daily retention run.
 * Its role may delete what a meeting leaves and nothing else: the read API's role stays read-only.
 */
import { Duration } from 'aws-cdk-lib';
import type { HttpMethod } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpIamAuthorizer } from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Rule, RuleTargetInput, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { SUMMARY_PREFIX } from '../lambdas/core/apply/summary';
import { ERASE_API_ROUTES } from '../lambdas/core/erase/erase-contract';
import { RESWEEP_DELAY_SECONDS, RETENTION_RUN_EVENT } from '../lambdas/core/erase/erasure-job';
import { RETENTION_MAX_MEETINGS_PER_RUN } from '../lambdas/core/erase/retention';
import { LEGACY_QUARANTINE_PREFIX, QUARANTINE_PREFIX } from '../lambdas/core/ingress/quarantine';
import { QUEUE_SETTINGS } from '../lambdas/core/queue/queue-settings';
import { CLAIM_CHECK_PREFIX } from '../lambdas/core/queue/queued-event';
import { required } from '../lambdas/core/required';
import { SERVICES } from '../lambdas/core/telemetry';
import type { EraseEnvironment, LakeErasureEnvironment } from '../lambdas/erase/environment';
import type { EnvironmentBesidesEvents } from './domain-events';
import { type FunctionSettings, PipelineFunction } from './function';
import { grantTableItems } from './grants';
import type { PipelineHttpApi } from './http-api';
import { acknowledge, wildcardResourceId } from './nag';
import { MEETINGS_PREFIX } from './recording-archive';
import { encryptedQueue } from './secure-defaults';
import { grantApiKey, type UpstreamSettings, upstreamEnvironment } from './upstream-settings';

/**
 * Erasing a 2,000-line meeting takes seconds; a much longer one may outlast the HTTP API's 30 s,
 * and a call again returns its receipt once the running one completes (erasure resumes, never repeats).
 */
export const ERASE_TIMEOUT = Duration.minutes(5);

export interface ErasureProps extends UpstreamSettings {
  api: PipelineHttpApi;
  table: ITableV2;
  payloadBucket: IBucket;
  recordingsBucket: IBucket;
  /** `eraseUpstream`: an erasure also asks the service to delete its copy. */
  eraseUpstream: boolean;
  /** `meetingRetentionDays`: the daily run erases meetings older than this; none when absent. */
  meetingRetentionDays?: number;
  logRetentionDays: number;
  eventArchiveRetentionDays: number;
  functions: FunctionSettings;
}

export class Erasure extends Construct {
  readonly function: PipelineFunction;
  readonly queue: Queue;
  readonly deadLetterQueue: Queue;
  readonly retentionRule?: Rule;

  constructor(scope: Construct, id: string, props: ErasureProps) {
    super(scope, id);
    this.deadLetterQueue = encryptedQueue(this, 'ErasureDeadLetterQueue');
    this.queue = encryptedQueue(this, 'ErasureQueue', {
      visibilityTimeout: Duration.seconds(ERASE_TIMEOUT.toSeconds() * 6),
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: QUEUE_SETTINGS.maxReceiveCount },
    });
    acknowledge(
      this.deadLetterQueue,
      'Serverless-SQSRedrivePolicy',
      'This is the dead-letter queue; its jobs are re-driven once the cause is fixed (npx meeting-pipeline dlq redrive erasure).',
    );

    // EVENT_BUS_NAME comes with the grant to publish (domain-events.ts), LAKE_BUCKET with the lake's (meetings-lake.ts).
    const environment: Omit<EnvironmentBesidesEvents<EraseEnvironment>, keyof LakeErasureEnvironment> = {
      ...upstreamEnvironment(props),
      TABLE_NAME: props.table.tableName,
      PAYLOAD_BUCKET: props.payloadBucket.bucketName,
      RECORDINGS_BUCKET: props.recordingsBucket.bucketName,
      ERASURE_QUEUE_URL: this.queue.queueUrl,
      ERASE_UPSTREAM: String(props.eraseUpstream),
      RESWEEP_DELAY_SECONDS: String(RESWEEP_DELAY_SECONDS),
      LOG_RETENTION_DAYS: String(props.logRetentionDays),
      EVENT_ARCHIVE_RETENTION_DAYS: String(props.eventArchiveRetentionDays),
      ...(props.meetingRetentionDays !== undefined && { MEETING_RETENTION_DAYS: String(props.meetingRetentionDays) }),
      RETENTION_MAX_MEETINGS: String(RETENTION_MAX_MEETINGS_PER_RUN),
    };
    this.function = new PipelineFunction(this, 'EraseFunction', {
      entry: 'lambdas/erase/handler.ts',
      description: 'Erases a meeting everywhere it is kept and answers with a receipt; also runs retention',
      serviceName: SERVICES.erase,
      timeout: ERASE_TIMEOUT,
      // Mostly waiting on calls; but erasing a meeting of a compacted lake day decodes and re-encodes
      // that day's rows (the bench held ~1.1 GiB for a day of 1.2 M utterances in one process).
      memorySize: 3008,
      settings: props.functions,
      environment,
      failureHandling: `The API route answers 500 with a reason (a call again resumes the erasure); a failed queue job is retried and moves to the erasure DLQ after ${QUEUE_SETTINGS.maxReceiveCount} receives; a failed retention run is the next day's work.`,
    });
    acknowledge(
      this.function,
      'Serverless-LambdaEventSourceMappingDestination',
      "On-failure destinations apply to stream sources; for SQS the queue's redrive policy moves failed jobs to its DLQ.",
    );
    // A few at once: a retention run's 500 jobs must not take the table's write rate from the ingress.
    this.function.addEventSource(
      new SqsEventSource(this.queue, { batchSize: 1, reportBatchItemFailures: true, maxConcurrency: 5 }),
    );
    this.queue.grantSendMessages(this.function);
    this.grantErasure(props);
    if (props.eraseUpstream) grantApiKey(this.function, props);

    const integration = new HttpLambdaIntegration('EraseIntegration', this.function);
    const authorizer = new HttpIamAuthorizer();
    for (const routeKey of Object.values(ERASE_API_ROUTES)) {
      const [method, path] = routeKey.split(' ') as [string, string];
      props.api.addRoutes({ path, methods: [method as HttpMethod], integration, authorizer });
    }

    if (props.meetingRetentionDays !== undefined) {
      this.retentionRule = new Rule(this, 'RetentionSchedule', {
        description: `Erases meetings listed more than ${props.meetingRetentionDays} days ago`,
        schedule: Schedule.rate(Duration.days(1)),
        targets: [
          new LambdaFunction(this.function, {
            event: RuleTargetInput.fromObject(RETENTION_RUN_EVENT),
            retryAttempts: 0,
          }),
        ],
      });
      acknowledge(
        this.retentionRule,
        'Serverless-EventBusDLQ',
        "A missed run carries nothing to keep: the next day's run finds the same meetings.",
      );
    }
  }

  /** What an erasure reads and deletes: the meeting's items, and its objects' every version. */
  private grantErasure(props: ErasureProps): void {
    // BatchWriteItem carries the deletes, DeleteItem those whose finding is counted (a day listing);
    // the tombstone is a put and updates; no index, no scan.
    grantTableItems(this.function, props.table, [
      'dynamodb:GetItem',
      'dynamodb:PutItem',
      'dynamodb:UpdateItem',
      'dynamodb:DeleteItem',
      'dynamodb:Query',
      'dynamodb:BatchWriteItem',
    ]);
    // The stored copy of the scheduling calendar's feed is found and dropped whole: no put or update there.
    grantTableItems(this.function, props.table, ['dynamodb:GetItem', 'dynamodb:DeleteItem'], ['calendar']);
    const payloadPrefixes = [CLAIM_CHECK_PREFIX, SUMMARY_PREFIX, QUARANTINE_PREFIX];
    const listings: Array<[IBucket, string[]]> = [
      [props.payloadBucket, payloadPrefixes],
      [props.recordingsBucket, [MEETINGS_PREFIX]],
    ];
    for (const [bucket, prefixes] of listings) {
      // Listing versions (and, for the quarantine, objects) only under the prefixes a meeting writes.
      this.function.addToRolePolicy(
        new PolicyStatement({
          actions: ['s3:ListBucketVersions', 's3:ListBucket'],
          resources: [bucket.bucketArn],
          conditions: { StringLike: { 's3:prefix': prefixes.map((prefix) => `${prefix}*`) } },
        }),
      );
      // Every delete names a version: nothing is left behind as a delete marker, so DeleteObject is not needed.
      this.function.addToRolePolicy(
        new PolicyStatement({
          actions: ['s3:DeleteObjectVersion'],
          resources: prefixes.map((prefix) => bucket.arnForObjects(`${prefix}*`)),
        }),
      );
    }
    // Quarantine entries of the first layout are keyed by content: each is read to see whether it
    // names the bot. Today's are filed by bot (listed, never read): no read beyond the old layout.
    this.function.addToRolePolicy(
      new PolicyStatement({
        actions: ['s3:GetObject'],
        resources: [props.payloadBucket.arnForObjects(`${LEGACY_QUARANTINE_PREFIX}*`)],
      }),
    );
    const role = required(this.function.role, 'the erase function role');
    for (const prefix of payloadPrefixes) {
      acknowledge(
        role,
        wildcardResourceId(props.payloadBucket, `/${prefix}*`),
        `Deletes object versions under ${prefix} only: where a meeting's bodies, summaries and refused webhooks are kept.`,
      );
    }
    acknowledge(
      role,
      wildcardResourceId(props.payloadBucket, `/${LEGACY_QUARANTINE_PREFIX}*`),
      "Reads quarantine entries of the first key layout (keyed by content) to find a meeting's; they expire with the quarantine retention.",
    );
    acknowledge(
      role,
      wildcardResourceId(props.recordingsBucket, `/${MEETINGS_PREFIX}*`),
      'Deletes object versions under meetings/ only: one folder per meeting.',
    );
  }
}
