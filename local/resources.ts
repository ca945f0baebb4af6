/**
 * Creates the pipeline's table, queues and bucket on the local emulators from the
 * definitions the CDK stack uses (lambdas/core/store/table-layout.ts,
 * queue-settings.ts), so local mode and tests run against the same shapes.
 */
import {
  CreateTableCommand,
  type CreateTableCommandInput,
  type DynamoDBClient,
  ResourceInUseException,
} from '@aws-sdk/client-dynamodb';
import { CreateBucketCommand, type S3Client } from '@aws-sdk/client-s3';
import { CreateQueueCommand, GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { QUEUE_SETTINGS } from '../lambdas/core/queue/queue-settings';
import { SQS_MAX_MESSAGE_BYTES } from '../lambdas/core/queue/queued-event';
import { required } from '../lambdas/core/required';
import { GSI, KEY_ATTRIBUTES, TABLE_KEYS } from '../lambdas/core/store/table-layout';
import { DEFAULT_QUARANTINE_ENVIRONMENT, type IngressEnvironment } from '../lambdas/ingress/environment';
import type { ProcessEventsEnvironment } from '../lambdas/process-events/environment';
import { DEFAULT_MAX_WEBHOOK_BODY_BYTES } from '../lib/config';
import { LOCAL_EVENT_BUS_NAME } from './event-log-publisher';

export interface LocalResources {
  tableName: string;
  eventsQueueUrl: string;
  eventsDeadLetterQueueUrl: string;
  archiveQueueUrl: string;
  archiveDeadLetterQueueUrl: string;
  /** Erasure jobs (the service's data_deleted, retention, second sweeps) and their DLQ. */
  erasureQueueUrl: string;
  erasureDeadLetterQueueUrl: string;
  payloadBucket: string;
}

export function createTableInput(tableName: string): CreateTableCommandInput {
  return {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: KEY_ATTRIBUTES.map((name) => ({ AttributeName: name, AttributeType: 'S' })),
    KeySchema: [
      { AttributeName: TABLE_KEYS.partitionKey, KeyType: 'HASH' },
      { AttributeName: TABLE_KEYS.sortKey, KeyType: 'RANGE' },
    ],
    GlobalSecondaryIndexes: Object.values(GSI).map((index) => ({
      IndexName: index.name,
      KeySchema: [
        { AttributeName: index.partitionKey, KeyType: 'HASH' },
        { AttributeName: index.sortKey, KeyType: 'RANGE' },
      ],
      Projection: { ProjectionType: 'ALL' },
    })),
  };
}

async function queueWithDeadLetterQueue(
  sqs: SQSClient,
  name: string,
  options: { fifo: boolean; visibilityTimeoutSeconds: number },
): Promise<{ url: string; deadLetterUrl: string }> {
  const suffix = options.fifo ? '.fifo' : '';
  const fifo = options.fifo ? { FifoQueue: 'true' } : {};
  const dlq = await sqs.send(new CreateQueueCommand({ QueueName: `${name}-dlq${suffix}`, Attributes: fifo }));
  const { Attributes } = await sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: dlq.QueueUrl, AttributeNames: ['QueueArn'] }),
  );
  const queue = await sqs.send(
    new CreateQueueCommand({
      QueueName: `${name}${suffix}`,
      Attributes: {
        ...fifo,
        VisibilityTimeout: String(options.visibilityTimeoutSeconds),
        RedrivePolicy: JSON.stringify({
          deadLetterTargetArn: Attributes?.QueueArn,
          maxReceiveCount: QUEUE_SETTINGS.maxReceiveCount,
        }),
      },
    }),
  );
  return {
    url: required(queue.QueueUrl, 'CreateQueue QueueUrl'),
    deadLetterUrl: required(dlq.QueueUrl, 'CreateQueue QueueUrl'),
  };
}

export async function createLocalResources(
  clients: { dynamo: DynamoDBClient; sqs: SQSClient; s3: S3Client },
  options: {
    prefix: string;
    visibilityTimeoutSeconds: number /** Keep a table that exists (dynalite's data on disk). */;
    reuseTable?: boolean;
  },
): Promise<LocalResources> {
  const { prefix } = options;
  const tableName = `${prefix}-meetings`;
  try {
    await clients.dynamo.send(new CreateTableCommand(createTableInput(tableName)));
  } catch (error) {
    if (!(options.reuseTable === true && error instanceof ResourceInUseException)) throw error;
  }
  const queueOptions = { visibilityTimeoutSeconds: options.visibilityTimeoutSeconds };
  const events = await queueWithDeadLetterQueue(clients.sqs, `${prefix}-events`, { fifo: false, ...queueOptions });
  const archive = await queueWithDeadLetterQueue(clients.sqs, `${prefix}-archive`, {
    fifo: QUEUE_SETTINGS.archiveQueueFifo,
    ...queueOptions,
  });
  const erasure = await queueWithDeadLetterQueue(clients.sqs, `${prefix}-erasure`, { fifo: false, ...queueOptions });
  const payloadBucket = `${prefix}-payloads`;
  await clients.s3.send(new CreateBucketCommand({ Bucket: payloadBucket }));
  return {
    tableName,
    eventsQueueUrl: events.url,
    eventsDeadLetterQueueUrl: events.deadLetterUrl,
    archiveQueueUrl: archive.url,
    archiveDeadLetterQueueUrl: archive.deadLetterUrl,
    erasureQueueUrl: erasure.url,
    erasureDeadLetterQueueUrl: erasure.deadLetterUrl,
    payloadBucket,
  };
}

/** The ingress's environment for local resources (its signing secret comes from local configuration). */
/** The consumer's environment in local mode, benches and tests: the local resources, the local event bus. */
export function localProcessEventsEnvironment(resources: LocalResources): ProcessEventsEnvironment {
  return {
    TABLE_NAME: resources.tableName,
    ARCHIVE_QUEUE_URL: resources.archiveQueueUrl,
    PAYLOAD_BUCKET: resources.payloadBucket,
    DEDUP_RETENTION_DAYS: 7,
    EVENT_BUS_NAME: LOCAL_EVENT_BUS_NAME,
  };
}

export function localIngressEnvironment(resources: LocalResources): IngressEnvironment {
  return {
    EVENTS_QUEUE_URL: resources.eventsQueueUrl,
    PAYLOAD_BUCKET: resources.payloadBucket,
    SIGNING_SECRET_ID: 'local',
    MAX_BODY_BYTES: DEFAULT_MAX_WEBHOOK_BODY_BYTES,
    INLINE_MESSAGE_LIMIT_BYTES: SQS_MAX_MESSAGE_BYTES,
    SECRET_CACHE_SECONDS: 60,
    TABLE_NAME: resources.tableName,
    DEDUP_RETENTION_DAYS: 7,
    ...DEFAULT_QUARANTINE_ENVIRONMENT,
  };
}
