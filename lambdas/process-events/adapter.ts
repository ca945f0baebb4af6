import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { S3Client } from '@aws-sdk/client-s3';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import type { DomainEventPublisher } from '../core/domain-events/publisher';
import { EventLedger } from '../core/events/event-ledger';
import { eventFailureReason } from '../core/events/failure-reasons';
import { type ProcessDependencies, processQueuedEvent, type QueuedMessage } from '../core/events/process-event';
import { QUEUE_SETTINGS } from '../core/queue/queue-settings';
import { EVENT_ATTRIBUTES } from '../core/queue/queued-event';
import { METRICS, type Telemetry } from '../core/telemetry';
import { eventBridgeClient, eventBridgePublisher } from '../shared/eventbridge-publisher';
import { forgetBodies, s3ObjectVersions } from '../shared/s3-object-versions';
import { s3Payloads } from '../shared/s3-payloads';
import { sqsArchiveQueue } from '../shared/sqs-archive-queue';
import { sqsErasureQueue } from '../shared/sqs-erasure-queue';
import type { ProcessEventsEnvironment } from './environment';

export type ProcessEventsHandler = (event: SQSEvent) => Promise<SQSBatchResponse>;

/** Wires the processing core to its clients; the Lambda, local mode and tests all build it this way. */
export function processEventsDependencies(
  env: ProcessEventsEnvironment,
  /** `events`: where domain events go; the stack's EventBridge bus when absent. */
  clients: { db: DynamoDBDocumentClient; sqs: SQSClient; s3: S3Client; events?: DomainEventPublisher },
  telemetry: Telemetry,
  now: () => number = Date.now,
): ProcessDependencies {
  const table = { db: clients.db, tableName: env.TABLE_NAME };
  return {
    table,
    ledger: new EventLedger(table, {
      leaseMs: QUEUE_SETTINGS.eventLeaseSeconds * 1000,
      retentionSeconds: env.DEDUP_RETENTION_DAYS * 86_400,
      now,
    }),
    archive: sqsArchiveQueue(clients.sqs, env.ARCHIVE_QUEUE_URL),
    payloads: s3Payloads(clients.s3, env.PAYLOAD_BUCKET),
    events: clients.events ?? eventBridgePublisher(eventBridgeClient(), env.EVENT_BUS_NAME),
    telemetry,
    forgetBody: forgetBodies(s3ObjectVersions(clients.s3)),
    ...(env.ERASURE_QUEUE_URL !== undefined && { erasure: sqsErasureQueue(clients.sqs, env.ERASURE_QUEUE_URL) }),
  };
}

export function toQueuedMessage(record: SQSRecord): QueuedMessage {
  const attributes: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(record.messageAttributes ?? {})) attributes[name] = value.stringValue;
  const sent = Number(record.attributes?.SentTimestamp);
  return {
    messageId: record.messageId,
    body: record.body,
    attributes,
    ...(Number.isFinite(sent) && { sentTimestamp: sent }),
  };
}

/** What happened to a batch's records, for its one INFO line. */
interface BatchTally {
  records: number;
  applied: number;
  duplicates: number;
  failed: number;
  /** Records by trigger, failed ones included. */
  triggers: Record<string, number>;
}

/**
 * SQS batch in, partial batch response out: records are applied concurrently and
 * only the failed ones are returned, to be redelivered (and moved to the DLQ
 * after maxReceiveCount). One INFO line per batch (`events batch`, counts by
 * outcome and trigger); per-event lines are DEBUG, except failures, which stay ERROR.
 */
export function createProcessEventsHandler(deps: ProcessDependencies): ProcessEventsHandler {
  const processor = new BatchProcessor(EventType.SQS);
  const processRecord = async (record: SQSRecord, tally: BatchTally) => {
    const count = (trigger: string | undefined) => {
      const key = trigger ?? 'undecoded';
      tally.triggers[key] = (tally.triggers[key] ?? 0) + 1;
    };
    try {
      const outcome = await processQueuedEvent(toQueuedMessage(record), deps);
      if (outcome.status === 'applied') tally.applied += 1;
      else tally.duplicates += 1;
      count(outcome.trigger);
      return outcome;
    } catch (error) {
      tally.failed += 1;
      count(record.messageAttributes?.[EVENT_ATTRIBUTES.trigger]?.stringValue);
      const reason = eventFailureReason(error);
      deps.telemetry.log.error('event failed; it will be retried', {
        message_id: record.messageId,
        receive_count: record.attributes?.ApproximateReceiveCount,
        reason,
        error_name: error instanceof Error ? error.name : typeof error,
        error: error instanceof Error ? error.message : String(error),
      });
      deps.telemetry.metrics.emit(METRICS.eventFailed, 1, { reason });
      throw error;
    }
  };
  return async (event) => {
    const tally: BatchTally = { records: event.Records.length, applied: 0, duplicates: 0, failed: 0, triggers: {} };
    try {
      return await processPartialResponse(event, (record: SQSRecord) => processRecord(record, tally), processor);
    } finally {
      deps.telemetry.log.info('events batch', { ...tally });
    }
  };
}
