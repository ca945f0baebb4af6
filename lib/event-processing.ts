/**
 * The events consumer: the process-events function on the events queue (batches,
 * partial failures, capped concurrency), applying events to the meetings table.
 */
import { Duration } from 'aws-cdk-lib';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { QUEUE_SETTINGS } from '../lambdas/core/queue/queue-settings';
import { SERVICES } from '../lambdas/core/telemetry';
import type { ProcessEventsEnvironment } from '../lambdas/process-events/environment';
import type { EnvironmentBesidesEvents } from './domain-events';
import { type FunctionSettings, PipelineFunction } from './function';
import { grantClaimChecks, grantErasedEventDrops, grantSummaryObjects, grantTableItems } from './grants';
import { acknowledge } from './nag';

/** The consumer's timeout; the events queue's visibility timeout is six times this. */
export const EVENT_CONSUMER_TIMEOUT = Duration.seconds(30);

// The ledger's lease must outlive one processing attempt and lapse before SQS redelivers.
if (
  QUEUE_SETTINGS.eventLeaseSeconds <= EVENT_CONSUMER_TIMEOUT.toSeconds() ||
  QUEUE_SETTINGS.eventLeaseSeconds >= EVENT_CONSUMER_TIMEOUT.toSeconds() * 6
) {
  throw new Error('the event lease must lie between the consumer timeout and the events queue visibility timeout');
}

export interface EventProcessingProps {
  table: ITableV2;
  eventsQueue: IQueue;
  /** Where an ended meeting's archive job goes (owned by the recording archive). */
  archiveQueue: IQueue;
  payloadBucket: IBucket;
  dedupRetentionDays: number;
  /** Where the service's `data_deleted` queues the meeting's erasure (`eraseOnUpstreamDelete`); none when absent. */
  erasureQueue?: IQueue;
  /** Most concurrent function instances the events queue drives (protects the table and the service). */
  maxConcurrency: number;
  functions: FunctionSettings;
}

export class EventProcessing extends Construct {
  readonly function: PipelineFunction;

  constructor(scope: Construct, id: string, props: EventProcessingProps) {
    super(scope, id);

    // EVENT_BUS_NAME comes with the grant to publish (domain-events.ts).
    const environment: EnvironmentBesidesEvents<ProcessEventsEnvironment> = {
      TABLE_NAME: props.table.tableName,
      ARCHIVE_QUEUE_URL: props.archiveQueue.queueUrl,
      PAYLOAD_BUCKET: props.payloadBucket.bucketName,
      DEDUP_RETENTION_DAYS: String(props.dedupRetentionDays),
      ...(props.erasureQueue !== undefined && { ERASURE_QUEUE_URL: props.erasureQueue.queueUrl }),
    };
    this.function = new PipelineFunction(this, 'ProcessEventsFunction', {
      entry: 'lambdas/process-events/handler.ts',
      description: 'Applies queued meeting assistant webhooks to the meetings table, exactly once in effect',
      serviceName: SERVICES.processEvents,
      timeout: EVENT_CONSUMER_TIMEOUT,
      // Parses and validates ten events and writes them concurrently: some CPU, mostly waiting on the table.
      memorySize: 512,
      settings: props.functions,
      environment,
      failureHandling:
        'Driven by the events queue: a failed record is redelivered and moves to the events DLQ after 5 receives.',
    });
    acknowledge(
      this.function,
      'Serverless-LambdaEventSourceMappingDestination',
      "On-failure destinations apply to stream sources; for SQS the queue's redrive policy moves failed records to its DLQ.",
    );
    this.function.addEventSource(
      new SqsEventSource(props.eventsQueue, {
        batchSize: 10,
        maxBatchingWindow: Duration.seconds(1),
        reportBatchItemFailures: true,
        maxConcurrency: props.maxConcurrency,
      }),
    );

    grantTableItems(this.function, props.table);
    // Each state change derives the meeting's outcome again from the meeting's state changes.
    grantTableItems(this.function, props.table, ['dynamodb:Query'], ['bot']);
    props.archiveQueue.grantSendMessages(this.function);
    grantClaimChecks(this.function, props.payloadBucket, 'get-and-put');
    grantSummaryObjects(this.function, props.payloadBucket);
    props.erasureQueue?.grantSendMessages(this.function);
    grantErasedEventDrops(this.function, props.table, props.payloadBucket);
  }
}
