import { processPartialResponse, SqsFifoPartialProcessorAsync } from '@aws-lambda-powertools/batch';
import type { S3Client } from '@aws-sdk/client-s3';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { archiveJobSchema } from '../core/archive/archive-job';
import { type ArchiveDependencies, archiveMeeting } from '../core/archive/archive-meeting';
import { openDownload } from '../core/archive/download-guard';
import { METRICS, type Telemetry } from '../core/telemetry';
import type { UpstreamClient } from '../core/upstream/client';
import { s3Recordings } from '../shared/s3-recordings';
import type { ArchiveEnvironment } from './environment';

export type ArchiveHandler = (event: SQSEvent) => Promise<SQSBatchResponse>;

export function archiveDependencies(
  env: ArchiveEnvironment,
  clients: { db: DynamoDBDocumentClient; s3: S3Client; upstream: UpstreamClient },
  telemetry: Telemetry,
): ArchiveDependencies {
  const policy = {
    allowLoopback: env.ALLOW_LOOPBACK_DOWNLOADS === 'true',
    maxBytes: env.MAX_RECORDING_BYTES,
    timeoutMs: 30_000,
  };
  return {
    table: { db: clients.db, tableName: env.TABLE_NAME },
    upstream: clients.upstream,
    recordings: s3Recordings(clients.s3, env.RECORDINGS_BUCKET),
    openDownload: (url) => openDownload(url, policy),
    maxRecordingBytes: env.MAX_RECORDING_BYTES,
    downloadAttempts: 3,
    telemetry,
    now: () => new Date(),
  };
}

/** Archive jobs from the FIFO queue; a failed job (and those after it in the batch) is retried, then dead-lettered. */
export function createArchiveHandler(deps: ArchiveDependencies): ArchiveHandler {
  const processor = new SqsFifoPartialProcessorAsync();
  const processRecord = async (record: SQSRecord) => {
    const job = archiveJobSchema.parse(JSON.parse(record.body));
    try {
      return await archiveMeeting(job.bot_id, deps);
    } catch (error) {
      deps.telemetry.log.error('archive failed; it will be retried', {
        bot_id: job.bot_id,
        receive_count: record.attributes?.ApproximateReceiveCount,
        error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
      });
      deps.telemetry.metrics.emit(METRICS.archiveFailed, 1);
      throw error;
    }
  };
  return (event) => processPartialResponse(event, processRecord, processor);
}
