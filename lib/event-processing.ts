/**
 * The events consumer: the process-events function on the events queue (batches,
 * partial failures, capped concurrency), the meetings table it keeps, and the
 * archive queue it feeds when a meeting ends.
 */
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { AttributeType, Billing, TableEncryptionV2, TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import { Queue, QueueEncryption, type IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { QUEUE_SETTINGS } from '../lambdas/core/events/queue-settings';
import { CLAIM_CHECK_PREFIX } from '../lambdas/core/events/queued-event';
import { GSI, TABLE_KEYS, TTL_ATTRIBUTE } from '../lambdas/core/store/table-layout';
import type { ProcessEventsEnvironment } from '../lambdas/process-events/environment';
import { PipelineFunction } from './function';

/** The consumer's timeout; the events queue's visibility timeout is six times this. */
export const EVENT_CONSUMER_TIMEOUT = Duration.seconds(30);

/** A claim outlives any one processing attempt, and lapses before SQS redelivers. */
const LEASE = Duration.seconds(60);

export interface EventProcessingProps {
  eventsQueue: IQueue;
  payloadBucket: IBucket;
  dedupRetentionDays: number;
  /** Most concurrent function instances the events queue drives (protects the table and the service). */
  maxConcurrency: number;
  logRetention: RetentionDays;
  removalPolicy: RemovalPolicy;
}

export class EventProcessing extends Construct {
  readonly table: TableV2;
  readonly function: PipelineFunction;
  readonly archiveQueue: Queue;
  readonly archiveDeadLetterQueue: Queue;

  constructor(scope: Construct, id: string, props: EventProcessingProps) {
    super(scope, id);

    const key = (name: string) => ({ name, type: AttributeType.STRING });
    this.table = new TableV2(this, 'MeetingsTable', {
      partitionKey: key(TABLE_KEYS.partitionKey),
      sortKey: key(TABLE_KEYS.sortKey),
      globalSecondaryIndexes: [GSI.byDay, GSI.byState].map((index) => ({
        indexName: index.name,
        partitionKey: key(index.partitionKey),
        sortKey: key(index.sortKey),
      })),
      billing: Billing.onDemand(),
      encryption: TableEncryptionV2.awsManagedKey(),
      timeToLiveAttribute: TTL_ATTRIBUTE,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      deletionProtection: props.removalPolicy === RemovalPolicy.RETAIN,
      removalPolicy: props.removalPolicy,
    });

    // FIFO so that SQS drops a repeated job for the same bot (dedup id = bot id) within 5 minutes.
    this.archiveDeadLetterQueue = new Queue(this, 'ArchiveDeadLetterQueue', {
      fifo: QUEUE_SETTINGS.archiveQueueFifo,
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    this.archiveQueue = new Queue(this, 'ArchiveQueue', {
      fifo: QUEUE_SETTINGS.archiveQueueFifo,
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
      // Sized for the archive function (recording copies take minutes); it arrives with the archive capability.
      visibilityTimeout: Duration.minutes(90),
      deadLetterQueue: { queue: this.archiveDeadLetterQueue, maxReceiveCount: QUEUE_SETTINGS.maxReceiveCount },
    });

    const environment: { [K in keyof ProcessEventsEnvironment]: string } = {
      TABLE_NAME: this.table.tableName,
      ARCHIVE_QUEUE_URL: this.archiveQueue.queueUrl,
      PAYLOAD_BUCKET: props.payloadBucket.bucketName,
      DEDUP_RETENTION_DAYS: String(props.dedupRetentionDays),
      LEASE_SECONDS: String(LEASE.toSeconds()),
    };
    this.function = new PipelineFunction(this, 'ProcessEventsFunction', {
      entry: 'lambdas/process-events/handler.ts',
      description: 'Applies queued meeting assistant webhooks to the meetings table, exactly once in effect',
      serviceName: 'process-events',
      timeout: EVENT_CONSUMER_TIMEOUT,
      memorySize: 512,
      logRetention: props.logRetention,
      environment,
    });
    this.function.addEventSource(
      new SqsEventSource(props.eventsQueue, {
        batchSize: 10,
        maxBatchingWindow: Duration.seconds(1),
        reportBatchItemFailures: true,
        maxConcurrency: props.maxConcurrency,
      }),
    );

    // Exactly the item operations the core performs, on the table alone.
    this.function.addToRolePolicy(
      new PolicyStatement({
        actions: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'],
        resources: [this.table.tableArn],
      }),
    );
    this.archiveQueue.grantSendMessages(this.function);
    // Claim-checked bodies: read the ingress's, store large ones for replay.
    this.function.addToRolePolicy(
      new PolicyStatement({ actions: ['s3:GetObject', 's3:PutObject'], resources: [props.payloadBucket.arnForObjects(`${CLAIM_CHECK_PREFIX}*`)] }),
    );
  }
}
