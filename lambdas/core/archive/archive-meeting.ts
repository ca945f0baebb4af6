/**
 * Archives one ended meeting: its recording streamed from the service's download
 * link into S3 (memory bounded whatever the size, SHA-256 computed on the way),
 * its final transcript and participants as JSON, anything the webhooks missed
 * filled into the table, and where everything is recorded on the meeting.
 * Running it twice does no harm: a meeting archived once is skipped.
 */
import { createHash } from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { TableAccess } from '../store/dynamo';
import { GSI, keys } from '../store/table-layout';
import { METRICS, type Telemetry } from '../telemetry';
import type { UpstreamClient } from '../upstream/client';
import { DownloadFailedError, DownloadRefusedError, LinkExpiredError, type OpenedDownload } from './download-guard';
import { fillMissingParticipants, writeFinalTranscript } from './fill-gaps';
import { archiveKeys, extensionFor, type RecordingStore } from './recording-store';

export interface ArchiveDependencies {
  table: TableAccess;
  upstream: Pick<UpstreamClient, 'getRecording' | 'getTranscript' | 'listParticipants'>;
  recordings: RecordingStore;
  /** Opens a download link under the download policy (download-guard.ts). */
  openDownload(url: string): Promise<OpenedDownload>;
  maxRecordingBytes: number;
  /** Fresh links tried when a download expires or breaks. */
  downloadAttempts: number;
  telemetry: Telemetry;
  now(): Date;
}

export interface ArchivedRecording {
  key: string;
  bytes: number;
  sha256: string;
  contentType: string;
}

export interface ArchiveRecord {
  archivedAt: string;
  bucket: string;
  recordingStatus: 'archived' | 'none';
  recording: ArchivedRecording | null;
  transcript: { key: string; lines: number; bytes: number };
  participants: { key: string; count: number; bytes: number };
  /** Utterances the final transcript added and corrected, participants it filled in. */
  filled: { utterances: number; correctedUtterances: number; participants: number };
}

/**
 * The service has no recording for the meeting yet. After a crash it sends
 * `fatal_error` first and uploads what was recorded afterwards, so until the
 * waiting time is over this means "later", not "none".
 */
export class RecordingPendingError extends Error {
  override name = 'RecordingPendingError';
  constructor(
    message: string,
    /** Until when (epoch ms) the job keeps waiting for the file. */
    readonly waitUntilMs: number,
  ) {
    super(message);
  }
}

export interface ArchiveOptions {
  /** Until this time (epoch ms) a missing recording is waited for instead of being recorded as none. */
  awaitRecordingUntilMs?: number;
}

export type ArchiveOutcome =
  | { status: 'archived'; record: ArchiveRecord }
  | { status: 'already-archived'; record: ArchiveRecord };

export async function archiveMeeting(
  botId: string,
  deps: ArchiveDependencies,
  options: ArchiveOptions = {},
): Promise<ArchiveOutcome> {
  const { table, upstream, recordings, telemetry } = deps;
  const { Item } = await table.db.send(
    new GetCommand({
      TableName: table.tableName,
      Key: keys.meeting(botId),
      ConsistentRead: true,
      ProjectionExpression: '#archive',
      ExpressionAttributeNames: { '#archive': 'archive' },
    }),
  );
  if (Item?.archive !== undefined) {
    await leaveStateIndex(table, botId); // a state that came after the archive put it back
    return { status: 'already-archived', record: Item.archive as ArchiveRecord };
  }

  const recording = await archiveRecording(botId, deps, options);
  const transcript = await upstream.getTranscript(botId);
  const participants = await upstream.listParticipants(botId);
  const transcriptKey = archiveKeys.transcript(botId);
  const participantsKey = archiveKeys.participants(botId);
  const transcriptJson = await recordings.putJson(transcriptKey, transcript);
  const participantsJson = await recordings.putJson(participantsKey, participants);
  const finalTranscript = await writeFinalTranscript(table, botId, transcript);
  const filled = {
    utterances: finalTranscript.created,
    correctedUtterances: finalTranscript.corrected,
    participants: await fillMissingParticipants(table, botId, participants),
  };

  const record: ArchiveRecord = {
    archivedAt: deps.now().toISOString(),
    bucket: recordings.bucket,
    recordingStatus: recording === null ? 'none' : 'archived',
    recording,
    transcript: { key: transcriptKey, lines: transcript.length, bytes: transcriptJson.bytes },
    participants: { key: participantsKey, count: participants.length, bytes: participantsJson.bytes },
    filled,
  };
  await table.db.send(
    new UpdateCommand({
      TableName: table.tableName,
      Key: keys.meeting(botId),
      // Out of the state index: the reconciler's backstop looks there only for unarchived meetings.
      UpdateExpression: 'SET botId = :bot, #archive = :archive REMOVE #statePk, #stateSk',
      ExpressionAttributeNames: {
        '#archive': 'archive',
        '#statePk': GSI.byState.partitionKey,
        '#stateSk': GSI.byState.sortKey,
      },
      ExpressionAttributeValues: { ':bot': botId, ':archive': record },
    }),
  );
  telemetry.log.info('meeting archived', {
    bot_id: botId,
    recording_status: record.recordingStatus,
    recording_bytes: recording?.bytes ?? 0,
    ...filled,
  });
  telemetry.metrics.emit(METRICS.meetingArchived, 1);
  if (recording !== null) telemetry.metrics.emit(METRICS.archiveBytes, recording.bytes);
  return { status: 'archived', record };
}

async function leaveStateIndex(table: TableAccess, botId: string): Promise<void> {
  await table.db.send(
    new UpdateCommand({
      TableName: table.tableName,
      Key: keys.meeting(botId),
      UpdateExpression: 'REMOVE #statePk, #stateSk',
      ExpressionAttributeNames: { '#statePk': GSI.byState.partitionKey, '#stateSk': GSI.byState.sortKey },
    }),
  );
}

/** Fetches a fresh link right before each download; an expired or broken download gets another link. */
async function archiveRecording(
  botId: string,
  deps: ArchiveDependencies,
  options: ArchiveOptions,
): Promise<ArchivedRecording | null> {
  for (let attempt = 1; ; attempt++) {
    const link = await deps.upstream.getRecording(botId);
    if (link === null) {
      const until = options.awaitRecordingUntilMs;
      if (until !== undefined && deps.now().getTime() < until) {
        throw new RecordingPendingError(
          `the service has no recording for ${botId} yet; waiting for it until ${new Date(until).toISOString()}`,
          until,
        );
      }
      return null;
    }
    try {
      return await copyRecording(botId, link.url, deps);
    } catch (error) {
      const retryable = error instanceof LinkExpiredError || error instanceof DownloadFailedError;
      if (!retryable || attempt >= deps.downloadAttempts) throw error;
      deps.telemetry.log.warn('recording download failed; trying a fresh link', {
        bot_id: botId,
        attempt,
        error: (error as Error).message,
      });
    }
  }
}

async function copyRecording(botId: string, url: string, deps: ArchiveDependencies): Promise<ArchivedRecording> {
  const download = await deps.openDownload(url);
  const meter = new RecordingMeter(deps.maxRecordingBytes);
  // A broken download fails the meter, which fails (and aborts) the upload.
  download.stream.on('error', (error) =>
    meter.destroy(new DownloadFailedError(`the recording download broke: ${error.message}`)),
  );
  download.stream.on('aborted', () => meter.destroy(new DownloadFailedError('the recording download was cut off')));
  download.stream.pipe(meter);
  const key = archiveKeys.recording(botId, extensionFor(download.contentType));
  await deps.recordings.upload(key, meter, download.contentType);
  if (download.contentLength !== undefined && meter.bytes !== download.contentLength) {
    throw new DownloadFailedError(
      `the recording download ended after ${meter.bytes} of ${download.contentLength} bytes`,
    );
  }
  return { key, bytes: meter.bytes, sha256: meter.sha256(), contentType: download.contentType };
}

/** Counts and hashes the bytes passing through, and stops past the size cap. */
class RecordingMeter extends Transform {
  bytes = 0;
  private readonly hash = createHash('sha256');

  constructor(private readonly maxBytes: number) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.bytes += chunk.length;
    if (this.bytes > this.maxBytes) {
      callback(new DownloadRefusedError(`the recording is larger than the ${this.maxBytes}-byte limit`));
      return;
    }
    this.hash.update(chunk);
    callback(null, chunk);
  }

  sha256(): string {
    return this.hash.digest('hex');
  }
}
