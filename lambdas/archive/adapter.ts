import { processPartialResponse, SqsFifoPartialProcessorAsync } from '@aws-lambda-powertools/batch';
import type { S3Client } from '@aws-sdk/client-s3';
import { ChangeMessageVisibilityCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { archiveJobSchema } from '../core/archive/archive-job';
import {
  type ArchiveDependencies,
  archiveMeeting,
  MeetingErasedError,
  type MeetingLakeWriter,
  RecordingPendingError,
} from '../core/archive/archive-meeting';
import { type DownloadNetwork, type DownloadPolicy, openDownload } from '../core/archive/download-guard';
import { recordingTransferLimits } from '../core/archive/recording-transfer';
import type { DomainEventPublisher } from '../core/domain-events/publisher';
import { createDayFolder } from '../core/lake/lake-compaction';
import { type LakeFold, type LakeWriterDependencies, writeMeetingToLake } from '../core/lake/lake-writer';
import type { TableAccess } from '../core/store/dynamo';
import type { ObjectVersionStore } from '../core/store/object-versions';
import { METRICS, type Telemetry } from '../core/telemetry';
import type { UpstreamClient } from '../core/upstream/client';
import { eventBridgeClient, eventBridgePublisher } from '../shared/eventbridge-publisher';
import { s3LakeObjects } from '../shared/s3-lake-objects';
import { s3ReadObjects } from '../shared/s3-read-objects';
import { s3Recordings, uploadSettings } from '../shared/s3-recordings';
import type { ArchiveEnvironment } from './environment';

export type ArchiveHandler = (event: SQSEvent) => Promise<SQSBatchResponse>;

/** The download policy the function enforces: loopback only when local mode says so. */
export function downloadPolicyFrom(env: ArchiveEnvironment): DownloadPolicy {
  return {
    allowLoopback: env.ALLOW_LOOPBACK_DOWNLOADS === 'true',
    maxBytes: env.MAX_RECORDING_BYTES,
    transfer: recordingTransferLimits(env.RECORDING_DOWNLOAD_MINUTES, env.RECORDING_DOWNLOAD_MIN_KIB_PER_SECOND),
  };
}

/**
 * The lake writer's clients (the lake in `bucket`, long summaries read wherever their pointer
 * says), and the writer the archive core calls (`write`): one object, so a test can hand it to the
 * archive and to writeMeetingToLake alike.
 */
export function lakeWriterDependencies(
  s3: S3Client,
  bucket: string,
  table: TableAccess,
  telemetry: Telemetry,
  options: { objects?: ObjectVersionStore; fold?: LakeFold; now?: () => Date } = {},
): LakeWriterDependencies & MeetingLakeWriter {
  const objects = s3LakeObjects(s3, bucket, options.objects);
  const now = options.now ?? (() => new Date());
  const deps: LakeWriterDependencies = {
    table,
    objects,
    summaries: s3ReadObjects(s3),
    // A write to a day already compacted is folded into its compacted files under the day's lease.
    fold: options.fold ?? createDayFolder({ table, objects, telemetry, now }),
    telemetry,
    now,
  };
  return { ...deps, write: (botId) => writeMeetingToLake(botId, deps) };
}

export function archiveDependencies(
  env: ArchiveEnvironment,
  /**
   * `events`: where domain events go; the stack's EventBridge bus when absent. `objects`: the
   * bucket's object versions (local mode's unversioned S3 passes its own). `fold`: the lake's
   * compaction state.
   */
  clients: {
    db: DynamoDBDocumentClient;
    s3: S3Client;
    upstream: UpstreamClient;
    events?: DomainEventPublisher;
    objects?: ObjectVersionStore;
    fold?: LakeFold;
  },
  telemetry: Telemetry,
  /** Tests only: a resolver and routes standing in for the internet (the policy is unchanged). */
  network?: DownloadNetwork,
): ArchiveDependencies {
  const policy = downloadPolicyFrom(env);
  const table = { db: clients.db, tableName: env.TABLE_NAME };
  return {
    table,
    upstream: clients.upstream,
    recordings: s3Recordings(clients.s3, env.RECORDINGS_BUCKET, uploadSettings(env.RECORDING_UPLOAD_PART_MIB)),
    events: clients.events ?? eventBridgePublisher(eventBridgeClient(), env.EVENT_BUS_NAME),
    openDownload: (url) => openDownload(url, policy, network),
    maxRecordingBytes: env.MAX_RECORDING_BYTES,
    downloadAttempts: 3,
    // The lake lives in the stack's own bucket, under `lake/`.
    lake: lakeWriterDependencies(clients.s3, env.RECORDINGS_BUCKET, table, telemetry, clients),
    telemetry,
    now: () => new Date(),
  };
}

/** When a failed or waiting job is tried again: sooner than the queue's 90-minute visibility. */
export interface ArchiveRetryPolicy {
  /** After `fatal_error`, how long a missing recording is waited for (the service uploads it after the crash). */
  recordingWaitMs: number;
  /** First wait for a recording not uploaded yet; doubles with each receive. */
  pendingDelaySeconds: number;
  /** First wait after a failure; doubles with each receive. */
  failureDelaySeconds: number;
  maxDelaySeconds: number;
}

export const DEFAULT_ARCHIVE_RETRY: ArchiveRetryPolicy = {
  recordingWaitMs: 30 * 60_000,
  pendingDelaySeconds: 120,
  failureDelaySeconds: 300,
  maxDelaySeconds: 3600,
};

export interface ArchiveHandlerOptions {
  retry: ArchiveRetryPolicy;
  /** Makes the job visible again after `seconds` (SQS ChangeMessageVisibility on its receipt handle). */
  retryLater(record: SQSRecord, seconds: number): Promise<void>;
}

/** The retry policy from the function's environment, and retries through the queue's own visibility. */
export function archiveHandlerOptions(env: ArchiveEnvironment, sqs: SQSClient): ArchiveHandlerOptions {
  return {
    retry: { ...DEFAULT_ARCHIVE_RETRY, recordingWaitMs: env.RECORDING_WAIT_MINUTES * 60_000 },
    retryLater: async (record, seconds) => {
      await sqs.send(
        new ChangeMessageVisibilityCommand({
          QueueUrl: env.ARCHIVE_QUEUE_URL,
          ReceiptHandle: record.receiptHandle,
          VisibilityTimeout: Math.min(seconds, SQS_MAX_VISIBILITY_SECONDS),
        }),
      );
    },
  };
}

/** SQS's ceiling for a message's visibility timeout (12 hours). */
const SQS_MAX_VISIBILITY_SECONDS = 43_200;

/**
 * Archive jobs from the FIFO queue; a failed job is retried with a growing delay,
 * then dead-lettered. After `fatal_error` a job whose recording the service has not
 * uploaded yet waits for it (growing delays, up to the policy's wait) before it
 * records that there is none.
 */
export function createArchiveHandler(deps: ArchiveDependencies, options?: ArchiveHandlerOptions): ArchiveHandler {
  const processor = new SqsFifoPartialProcessorAsync();
  const retry = options?.retry ?? DEFAULT_ARCHIVE_RETRY;
  const processRecord = async (record: SQSRecord) => {
    const job = archiveJobSchema.parse(JSON.parse(record.body));
    const receives = Number(record.attributes?.ApproximateReceiveCount ?? '1');
    const sentAt = Number(record.attributes?.SentTimestamp ?? deps.now().getTime());
    const awaitRecordingUntilMs = job.reason === 'fatal_error' ? sentAt + retry.recordingWaitMs : undefined;
    const backoff = (first: number) => Math.min(retry.maxDelaySeconds, first * 2 ** (receives - 1));
    try {
      return await archiveMeeting(job.bot_id, deps, { awaitRecordingUntilMs });
    } catch (error) {
      if (error instanceof MeetingErasedError) {
        deps.telemetry.log.info('archive job of an erased meeting dropped', { bot_id: job.bot_id });
        return undefined;
      }
      if (error instanceof RecordingPendingError) {
        const remaining = Math.ceil((error.waitUntilMs - deps.now().getTime()) / 1000);
        const delay = Math.max(1, Math.min(backoff(retry.pendingDelaySeconds), remaining));
        deps.telemetry.log.info('recording not uploaded yet; the archive job waits', {
          bot_id: job.bot_id,
          receive_count: receives,
          retry_in_seconds: delay,
        });
        await options?.retryLater(record, delay).catch(() => undefined);
        throw error;
      }
      deps.telemetry.log.error('archive failed; it will be retried', {
        bot_id: job.bot_id,
        receive_count: receives,
        error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
      });
      deps.telemetry.metrics.emit(METRICS.archiveFailed, 1);
      await options?.retryLater(record, backoff(retry.failureDelaySeconds)).catch(() => undefined);
      throw error;
    }
  };
  return (event) => processPartialResponse(event, processRecord, processor);
}
