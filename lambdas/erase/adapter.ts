import { randomUUID } from 'node:crypto';
import type { S3Client } from '@aws-sdk/client-s3';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { apiError } from '../core/api-error';
import type { DomainEventPublisher } from '../core/domain-events/publisher';
import { FORCE_PARAMETER } from '../core/erase/erase-contract';
import type { EraseDependencies, UpstreamEraser } from '../core/erase/erase-dependencies';
import { eraseMeeting, resweepErasedMeeting } from '../core/erase/erase-meeting';
import { eraseOnRequest } from '../core/erase/erase-request';
import { type ErasureQueue, erasureJobSchema } from '../core/erase/erasure-job';
import { PITR_RETENTION_DAYS, QUEUE_RETENTION_DAYS } from '../core/erase/receipt';
import type { LakeObjects } from '../core/lake/lake-contract';
import type { ObjectVersionStore } from '../core/store/object-versions';
import type { Telemetry } from '../core/telemetry';
import { eventBridgeClient, eventBridgePublisher } from '../shared/eventbridge-publisher';
import { s3LakeObjects } from '../shared/s3-lake-objects';
import { s3ObjectVersions } from '../shared/s3-object-versions';
import { s3Quarantine } from '../shared/s3-quarantine';
import { sqsErasureQueue } from '../shared/sqs-erasure-queue';
import type { EraseEnvironment } from './environment';

/** Wires the erase core to its clients; the Lambda, local mode and tests all build it this way. */
export function eraseDependencies(
  env: EraseEnvironment,
  clients: {
    db: DynamoDBDocumentClient;
    s3: S3Client;
    sqs: SQSClient;
    upstream?: UpstreamEraser;
    events?: DomainEventPublisher;
    queue?: ErasureQueue;
    /** S3's object versions unless given (local mode's emulator keeps no versions). */
    objects?: ObjectVersionStore;
    /** The lake's objects unless given; by default LAKE_BUCKET's. */
    lake?: LakeObjects;
  },
  telemetry: Telemetry,
  now: () => Date = () => new Date(),
): EraseDependencies & Required<Pick<EraseDependencies, 'lake'>> {
  const queue = clients.queue ?? sqsErasureQueue(clients.sqs, env.ERASURE_QUEUE_URL);
  const objects = clients.objects ?? s3ObjectVersions(clients.s3);
  const lake = clients.lake ?? s3LakeObjects(clients.s3, env.LAKE_BUCKET, objects);
  return {
    table: { db: clients.db, tableName: env.TABLE_NAME },
    objects,
    lake,
    payloadBucket: env.PAYLOAD_BUCKET,
    recordingsBucket: env.RECORDINGS_BUCKET,
    quarantine: s3Quarantine(clients.s3, env.PAYLOAD_BUCKET),
    events: clients.events ?? eventBridgePublisher(eventBridgeClient(), env.EVENT_BUS_NAME),
    ...(env.ERASE_UPSTREAM && clients.upstream !== undefined && { upstream: clients.upstream }),
    resweep: {
      schedule: (botId) => queue.send({ kind: 'resweep', bot_id: botId }, env.RESWEEP_DELAY_SECONDS),
    },
    retained: {
      queueRetentionDays: QUEUE_RETENTION_DAYS,
      backupRetentionDays: PITR_RETENTION_DAYS,
      eventArchiveRetentionDays: env.EVENT_ARCHIVE_RETENTION_DAYS,
      logRetentionDays: env.LOG_RETENTION_DAYS,
    },
    telemetry,
    now,
    newId: () => `er_${randomUUID().replaceAll('-', '')}`,
  };
}

const json = (statusCode: number, body: unknown): APIGatewayProxyStructuredResultV2 => ({
  statusCode,
  headers: { 'content-type': 'application/json', 'cache-control': 'no-store' },
  body: JSON.stringify(body),
});

/**
 * `DELETE /meetings/{bot_id}[?force=true]`: the receipt (200), the same on every call; a bot the
 * pipeline never saw is a 404 unless forced (erase-request.ts).
 */
export function createEraseApiHandler(deps: EraseDependencies) {
  return async (event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> => {
    const botId = event.pathParameters?.bot_id ?? '';
    if (botId === '') return json(400, apiError('missing-bot-id', 'the path names no bot: DELETE /meetings/{bot_id}'));
    try {
      const force = event.queryStringParameters?.[FORCE_PARAMETER] === 'true';
      const result = await eraseOnRequest(botId, { force }, deps);
      if (result.outcome === 'unknown-bot') return json(404, apiError('not-found', result.message));
      return json(200, result.receipt);
    } catch (failure) {
      deps.telemetry.log.error('erasure failed; call again to finish it', {
        bot_id: botId,
        request_id: event.requestContext.requestId,
        error: failure instanceof Error ? `${failure.name}: ${failure.message}` : String(failure),
      });
      return json(
        500,
        apiError(
          'erasure-unfinished',
          `the erasure of ${botId} did not finish (logged as request ${event.requestContext.requestId}); call again: it resumes where it stopped`,
        ),
      );
    }
  };
}

/** The erasure queue: each job on its own, failures reported back for SQS to retry (then its DLQ). */
export function createErasureQueueHandler(deps: EraseDependencies) {
  return async (event: SQSEvent): Promise<SQSBatchResponse> => {
    const batchItemFailures: SQSBatchResponse['batchItemFailures'] = [];
    for (const record of event.Records) {
      try {
        const job = erasureJobSchema.parse(JSON.parse(record.body));
        if (job.kind === 'erase') await eraseMeeting(job.bot_id, job.reason, deps);
        else await resweepErasedMeeting(job.bot_id, deps);
      } catch (failure) {
        deps.telemetry.log.error('erasure job failed; it will be retried', {
          message_id: record.messageId,
          error: failure instanceof Error ? `${failure.name}: ${failure.message}` : String(failure),
        });
        batchItemFailures.push({ itemIdentifier: record.messageId });
      }
    }
    return { batchItemFailures };
  };
}
