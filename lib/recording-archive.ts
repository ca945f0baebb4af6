/**
 * The recording archive: the archive FIFO queue (fed by event processing when a
 * meeting ends), the archive function that copies each meeting's recording,
 * transcript and participants into the recordings bucket, and that bucket.
 */
import { Duration, type RemovalPolicy } from 'aws-cdk-lib';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { type Bucket, type IBucket, type LifecycleRule, StorageClass } from 'aws-cdk-lib/aws-s3';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { ArchiveEnvironment } from '../lambdas/archive/environment';
import { QUEUE_SETTINGS } from '../lambdas/core/queue/queue-settings';
import { required } from '../lambdas/core/required';
import { SERVICES } from '../lambdas/core/telemetry';
import type { PipelineConfig } from './config';
import type { EnvironmentBesidesEvents } from './domain-events';
import { type FunctionSettings, PipelineFunction } from './function';
import { grantTableItems } from './grants';
import { acknowledge, wildcardResourceId } from './nag';
import { dataBucket, encryptedQueue } from './secure-defaults';
import { grantApiKey, type UpstreamSettings, upstreamEnvironment } from './upstream-settings';

/** Long enough to copy a large recording; the queue's visibility is six times this. */
export const ARCHIVE_TIMEOUT = Duration.minutes(15);

/** Where the archive writes every meeting's objects (one folder per bot). */
export const MEETINGS_PREFIX = 'meetings/';

const ARCHIVE_STORAGE_CLASSES = {
  GLACIER_IR: StorageClass.GLACIER_INSTANT_RETRIEVAL,
  INTELLIGENT_TIERING: StorageClass.INTELLIGENT_TIERING,
} as const;

/**
 * Archived meetings are rarely read again: after `days` they move to a cheaper class that still
 * reads back in milliseconds. S3 does not transition objects under 128 KB (the JSON files), which
 * would cost more there than they save.
 */
function recordingTransition(storageClass: PipelineConfig['recordingArchiveClass'], days: number): LifecycleRule[] {
  if (storageClass === 'none') return [];
  return [
    {
      id: 'archive-recordings',
      prefix: MEETINGS_PREFIX,
      transitions: [{ storageClass: ARCHIVE_STORAGE_CLASSES[storageClass], transitionAfter: Duration.days(days) }],
    },
  ];
}

export interface RecordingArchiveProps extends UpstreamSettings {
  /** Where the recordings bucket's server access logs go. */
  accessLogs: IBucket;
  table: ITableV2;
  maxRecordingBytes: number;
  /** The recording download's deadline and minimum rate (lib/config.ts). */
  recordingDownloadMinutes: number;
  recordingDownloadMinKiBPerSecond: number;
  /** After `fatal_error`, how long a recording not uploaded yet is waited for. */
  recordingWaitMinutes: number;
  /** How long a replaced (noncurrent) version of an archived object is kept before S3 expires it. */
  replacedVersionRetentionDays: number;
  /** Storage class recordings move to after `recordingTransitionDays` (`none`: they stay in Standard). */
  recordingArchiveClass: PipelineConfig['recordingArchiveClass'];
  recordingTransitionDays: number;
  /** Part size of the recording upload; four parts are in flight. */
  uploadPartMiB: number;
  /** Most archive functions the queue runs at once. */
  maxConcurrency: number;
  functions: FunctionSettings;
  removalPolicy: RemovalPolicy;
}

export class RecordingArchive extends Construct {
  readonly bucket: Bucket;
  readonly queue: Queue;
  readonly deadLetterQueue: Queue;
  readonly function: PipelineFunction;

  constructor(scope: Construct, id: string, props: RecordingArchiveProps) {
    super(scope, id);

    this.bucket = dataBucket(this, 'RecordingsBucket', {
      removalPolicy: props.removalPolicy,
      accessLogs: props.accessLogs,
      accessLogsPrefix: 'recordings/',
      lifecycleRules: [
        // Backstop for uploads a crashed function could not abort.
        { id: 'abort-incomplete-uploads', abortIncompleteMultipartUploadAfter: Duration.days(1) },
        // Versioning guards against an overwrite or delete by mistake; a replaced copy is not kept forever.
        {
          id: 'expire-replaced-versions',
          noncurrentVersionExpiration: Duration.days(props.replacedVersionRetentionDays),
        },
        ...recordingTransition(props.recordingArchiveClass, props.recordingTransitionDays),
      ],
    });

    // FIFO so that SQS drops a repeated job for the same bot (dedup id = bot id) within 5 minutes,
    // and jobs for one bot never run at once (message group = bot id).
    this.deadLetterQueue = encryptedQueue(this, 'ArchiveDeadLetterQueue', { fifo: QUEUE_SETTINGS.archiveQueueFifo });
    this.queue = encryptedQueue(this, 'ArchiveQueue', {
      fifo: QUEUE_SETTINGS.archiveQueueFifo,
      visibilityTimeout: Duration.seconds(ARCHIVE_TIMEOUT.toSeconds() * 6),
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: QUEUE_SETTINGS.archiveMaxReceiveCount },
    });

    // EVENT_BUS_NAME comes with the grant to publish (domain-events.ts).
    const environment: EnvironmentBesidesEvents<ArchiveEnvironment> = {
      TABLE_NAME: props.table.tableName,
      RECORDINGS_BUCKET: this.bucket.bucketName,
      ...upstreamEnvironment(props),
      MAX_RECORDING_BYTES: String(props.maxRecordingBytes),
      ARCHIVE_QUEUE_URL: this.queue.queueUrl,
      RECORDING_WAIT_MINUTES: String(props.recordingWaitMinutes),
      RECORDING_DOWNLOAD_MINUTES: String(props.recordingDownloadMinutes),
      RECORDING_DOWNLOAD_MIN_KIB_PER_SECOND: String(props.recordingDownloadMinKiBPerSecond),
      ALLOW_LOOPBACK_DOWNLOADS: 'false',
      RECORDING_UPLOAD_PART_MIB: String(props.uploadPartMiB),
    };
    this.function = new PipelineFunction(this, 'ArchiveFunction', {
      entry: 'lambdas/archive/handler.ts',
      description: 'Copies an ended meeting’s recording, transcript and participants into S3',
      serviceName: SERVICES.archive,
      timeout: ARCHIVE_TIMEOUT,
      // Hashing and TLS over gigabytes are CPU-bound: less memory only runs longer for the same GB-seconds.
      // Streaming keeps memory near parts × 4 in flight (64 MiB at 16 MiB parts).
      memorySize: 1024,
      settings: props.functions,
      environment,
      failureHandling: `Driven by the archive queue: a failed job is retried with growing delays and moves to the archive DLQ after ${QUEUE_SETTINGS.archiveMaxReceiveCount} receives.`,
    });
    acknowledge(
      this.function,
      'Serverless-LambdaEventSourceMappingDestination',
      "On-failure destinations apply to stream sources; for SQS the queue's redrive policy moves failed jobs to its DLQ.",
    );
    acknowledge(
      this.deadLetterQueue,
      'Serverless-SQSRedrivePolicy',
      'This is the dead-letter queue; its jobs are re-driven by hand once the cause is fixed (runbook: docs/operating.md).',
    );
    // Capped so that meetings ending together neither take the account's concurrency from the ingress
    // nor write to the table all at once; jobs wait on the queue instead.
    this.function.addEventSource(
      new SqsEventSource(this.queue, {
        batchSize: 1,
        reportBatchItemFailures: true,
        maxConcurrency: props.maxConcurrency,
      }),
    );
    // Queries a meeting's utterances and participants (one partition, never an index) before filling gaps.
    grantTableItems(this.function, props.table, [
      'dynamodb:GetItem',
      'dynamodb:PutItem',
      'dynamodb:UpdateItem',
      'dynamodb:Query',
    ]);
    // PutObject covers the multipart calls that create and complete an upload; aborting is its own action.
    // GetObject (HEAD and GET) lets a resumed job adopt a recording an earlier run already uploaded.
    this.function.addToRolePolicy(
      new PolicyStatement({
        actions: ['s3:PutObject', 's3:AbortMultipartUpload', 's3:GetObject'],
        resources: [this.bucket.arnForObjects(`${MEETINGS_PREFIX}*`)],
      }),
    );
    this.function.addToRolePolicy(
      new PolicyStatement({
        actions: ['s3:ListBucket'],
        resources: [this.bucket.bucketArn],
        conditions: { StringLike: { 's3:prefix': `${MEETINGS_PREFIX}*` } },
      }),
    );
    acknowledge(
      required(this.function.role, 'the archive function role'),
      wildcardResourceId(this.bucket, `/${MEETINGS_PREFIX}*`),
      'Put, read back and abort uploads under meetings/ only: one folder per meeting.',
    );
    grantApiKey(this.function, props);
  }
}
