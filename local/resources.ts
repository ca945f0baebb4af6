/**
 * The pipeline's table, queues and buckets on the local emulators, created from the synthesized
 * template (local/template/), so local mode, benches and tests run against the shapes `cdk deploy`
 * creates, and each handler gets the environment the template gives it.
 */
import type { CreateTableCommandInput, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { S3Client } from '@aws-sdk/client-s3';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { DEAD_LETTER_QUEUE_OUTPUTS, dlqOutputs, STACK_OUTPUTS } from '../lambdas/core/stack-outputs';
import { GSI, KEY_ATTRIBUTES, TABLE_KEYS } from '../lambdas/core/store/table-layout';
import { SERVICES } from '../lambdas/core/telemetry';
import type { IngressEnvironment } from '../lambdas/ingress/environment';
import type { ProcessEventsEnvironment } from '../lambdas/process-events/environment';
import { deployLocally, type LocalDeployment } from './template/local-deployment';

export interface LocalResources {
  tableName: string;
  eventsQueueUrl: string;
  eventsDeadLetterQueueUrl: string;
  archiveQueueUrl: string;
  archiveDeadLetterQueueUrl: string;
  /** Erasure jobs (the service's data_deleted, retention, second sweeps) and their DLQ. */
  erasureQueueUrl: string;
  erasureDeadLetterQueueUrl: string;
  /** Company calendar user syncs and their DLQ. */
  userSyncQueueUrl: string;
  userSyncDeadLetterQueueUrl: string;
  payloadBucket: string;
  /** Archived recordings, transcripts and participants, and the lake under `lake/`. */
  recordingsBucket: string;
  /** The stack as synthesized and created here: every handler's environment comes from it. */
  deployment: LocalDeployment;
}

/** A table of the stack's key layout, for tests and benches that need a bare table of their own. */
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

export async function createLocalResources(
  clients: { dynamo: DynamoDBClient; sqs: SQSClient; s3: S3Client },
  options: {
    prefix: string;
    /** Local retries in seconds: every queue's visibility timeout (the deployed ones are minutes). */
    visibilityTimeoutSeconds: number;
    /** Keep a table that exists (dynalite's data on disk). */
    reuseTable?: boolean;
    /** Stack configuration on top of cdk.json's (e.g. `eraseOnUpstreamDelete: false`). */
    config?: Record<string, unknown>;
  },
): Promise<LocalResources> {
  const deployment = await deployLocally(clients, options);
  const output = (name: string) => deployment.resources.output(name);
  return {
    tableName: output(STACK_OUTPUTS.tableName),
    eventsQueueUrl: output(STACK_OUTPUTS.eventsQueueUrl),
    eventsDeadLetterQueueUrl: output(dlqOutputs(DEAD_LETTER_QUEUE_OUTPUTS.events).url),
    archiveQueueUrl: output(STACK_OUTPUTS.archiveQueueUrl),
    archiveDeadLetterQueueUrl: output(dlqOutputs(DEAD_LETTER_QUEUE_OUTPUTS.archive).url),
    erasureQueueUrl: output(STACK_OUTPUTS.erasureQueueUrl),
    erasureDeadLetterQueueUrl: output(dlqOutputs(DEAD_LETTER_QUEUE_OUTPUTS.erasure).url),
    userSyncQueueUrl: output(STACK_OUTPUTS.userSyncQueueUrl),
    userSyncDeadLetterQueueUrl: output(dlqOutputs(DEAD_LETTER_QUEUE_OUTPUTS.userSync).url),
    payloadBucket: output(STACK_OUTPUTS.payloadBucket),
    recordingsBucket: output(STACK_OUTPUTS.recordingsBucket),
    deployment,
  };
}

/** The consumer's environment as the template gives it, resolved for the local resources. */
export function localProcessEventsEnvironment(resources: LocalResources): ProcessEventsEnvironment {
  return resources.deployment.parsedEnvironmentOf(SERVICES.processEvents);
}

/** The ingress's environment as the template gives it (its signing secret comes from local configuration). */
export function localIngressEnvironment(resources: LocalResources): IngressEnvironment {
  return resources.deployment.parsedEnvironmentOf(SERVICES.ingress);
}
