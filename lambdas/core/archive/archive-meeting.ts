/**
 * Archives one ended meeting: its recording streamed from the service's download
 * link into S3 (memory bounded whatever the size, SHA-256 computed on the way),
 * its final transcript and participants as JSON, anything the webhooks missed
 * filled into the table, and where everything is recorded on the meeting.
 * Running it twice does no harm: a meeting archived once is skipped.
 *
 * A run cut off part way resumes rather than repeats: the recording an earlier run
 * uploaded is found in the bucket (only whole objects exist: a short download fails
 * its upload) and adopted, never copied again nor downgraded to "none" by a later
 * 404 (the recording's record is kept on the meeting as `archiveProgress` until the
 * archive record replaces it, so it is not even read again); a JSON body already
 * stored unchanged is not written again (each write would be another version in
 * the versioned bucket); filled gaps are counted alike on every run (fill-gaps.ts).
 *
 * After the archive record, on every run (a re-run after a corrected transcript included), the
 * meeting's rows go to the lake (lake-writer.ts: nothing is written when they did not change). A
 * lake failure fails the job, which is retried and finds the meeting archived.
 */
import { createHash } from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { type DomainEvent, domainEvents } from '../domain-events/catalogue';
import type { DomainEventPublisher } from '../domain-events/publisher';
import { SERVICE_REASONS } from '../outcome/outcome-reasons';
import type { TableAccess } from '../store/dynamo';
import { ERASURE_ATTRIBUTE, GSI, keys, OUTCOME_ATTRIBUTE, TRANSCRIPT_FINAL_ATTRIBUTE } from '../store/table-layout';
import { METRICS, type Telemetry } from '../telemetry';
import type { UpstreamClient } from '../upstream/client';
import {
  DownloadCutOffError,
  DownloadFailedError,
  DownloadRefusedError,
  LinkExpiredError,
  type OpenedDownload,
} from './download-guard';
import { fillMissingParticipants, writeFinalTranscript } from './fill-gaps';
import { ARCHIVE_METADATA, archiveKeys, extensionFor, type RecordingStore } from './recording-store';

/**
 * What the archive asks of the lake: lake/lake-writer.ts, wired by the adapter. The archive core
 * never imports the lake, which reads meetings through the read core (itself a reader of archive
 * records): the dependency points one way.
 */
export interface MeetingLakeWriter {
  write(botId: string): Promise<LakeWriteOutcome>;
}

/** A meeting's rows were written to the lake (or were already there unchanged). */
export interface LakeWriteOutcome {
  day: string;
  status: 'written' | 'unchanged' | 'erased';
  rows: { meetings: number; utterances: number; participants: number };
  /** The day was compacted already: the rows were folded into its compacted files. */
  folded: boolean;
}

export interface ArchiveDependencies {
  table: TableAccess;
  upstream: Pick<UpstreamClient, 'getRecording' | 'getTranscript' | 'listParticipants'>;
  recordings: RecordingStore;
  /** `meeting.archived` goes here once the archive record is written. */
  events: DomainEventPublisher;
  /** Opens a download link under the download policy (download-guard.ts). */
  openDownload(url: string): Promise<OpenedDownload>;
  maxRecordingBytes: number;
  /** Fresh links tried when a download expires or breaks. */
  downloadAttempts: number;
  /** The lake the meeting's rows are written to once it is archived. */
  lake: MeetingLakeWriter;
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
  /** The outcome's reason when the service's events say the bot never recorded: no recording was asked for. */
  notRecordedReason?: string;
  /** A newer download of the recording that was smaller than the archived one: refused, the archived one kept. */
  refusedRecording?: RefusedRecording;
  /** `recorded`: false when the service had no recording, so no transcript (absent on records written before it). */
  transcript: { key: string; lines: number; bytes: number; recorded?: boolean };
  participants: { key: string; count: number; bytes: number };
  /** Utterances the final transcript added and corrected, participants it filled in. */
  filled: { utterances: number; correctedUtterances: number; participants: number };
}

/** Why a download did not replace the recording already archived for the meeting. */
export interface RefusedRecording {
  /** `empty`: the download had no bytes; `smaller`: fewer than the archived copy. */
  reason: 'empty' | 'smaller';
  /** The download's size: announced, else counted up to where it was refused. */
  bytes: number;
  /** The archived copy's size, kept. */
  keptBytes: number;
}

/** What an unfinished run completed, kept on the meeting until the archive record replaces it. */
interface ArchiveProgress {
  recording?: ArchivedRecording;
  refused?: RefusedRecording;
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
  | { status: 'archived'; record: ArchiveRecord; lake: LakeWriteOutcome }
  | { status: 'already-archived'; record: ArchiveRecord; lake: LakeWriteOutcome };

/** The meeting was erased (a job queued before it): nothing is fetched or written, the job is done. */
export class MeetingErasedError extends Error {
  override name = 'MeetingErasedError';
  constructor(botId: string) {
    super(`meeting ${botId} is erased: nothing to archive`);
  }
}

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
      ProjectionExpression: '#archive, #progress, #erasure, #outcome',
      ExpressionAttributeNames: {
        '#archive': 'archive',
        '#progress': 'archiveProgress',
        '#erasure': ERASURE_ATTRIBUTE,
        '#outcome': OUTCOME_ATTRIBUTE,
      },
    }),
  );
  if (Item?.[ERASURE_ATTRIBUTE] !== undefined) throw new MeetingErasedError(botId);
  if (Item?.archive !== undefined) {
    const record = Item.archive as ArchiveRecord;
    await leaveStateIndex(table, botId); // a state that came after the archive put it back
    // Again: the run that wrote the record may have failed before publishing (the same event id).
    await deps.events.publish([archivedEvent(botId, record)]);
    // Again too: a correction since (or a lake write that failed) is written now, an unchanged meeting is not.
    return { status: 'already-archived', record, lake: await deps.lake.write(botId) };
  }
  const progress = (Item?.archiveProgress as ArchiveProgress | undefined) ?? {};

  let recording = progress.recording ?? null;
  let refused = progress.refused;
  const neverRecorded = neverRecordedBecause(Item?.[OUTCOME_ATTRIBUTE]);
  if (recording === null && neverRecorded === undefined) {
    ({ recording, refused } = await archiveRecording(botId, deps, options));
    if (recording !== null)
      await saveProgress(table, botId, { ...progress, recording, ...(refused !== undefined && { refused }) });
  }
  // None when the service recorded nothing (a bot that never joined): an empty transcript, and the record says so.
  const served = await upstream.getTranscript(botId);
  const transcript = served ?? [];
  const participants = await upstream.listParticipants(botId);
  const transcriptKey = archiveKeys.transcript(botId);
  const participantsKey = archiveKeys.participants(botId);
  const transcriptJson = await putJsonOnce(recordings, transcriptKey, transcript);
  const participantsJson = await putJsonOnce(recordings, participantsKey, participants);
  // From here on the service's transcript is the meeting's: no webhook or re-drive changes a line.
  await table.db.send(
    new UpdateCommand({
      TableName: table.tableName,
      Key: keys.meeting(botId),
      UpdateExpression: 'SET botId = :bot, #final = if_not_exists(#final, :now)',
      ExpressionAttributeNames: { '#final': TRANSCRIPT_FINAL_ATTRIBUTE },
      ExpressionAttributeValues: { ':bot': botId, ':now': deps.now().toISOString() },
    }),
  );
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
    ...(neverRecorded !== undefined && recording === null && { notRecordedReason: neverRecorded }),
    ...(refused !== undefined && { refusedRecording: refused }),
    transcript: {
      key: transcriptKey,
      lines: transcript.length,
      bytes: transcriptJson.bytes,
      recorded: served !== null,
    },
    participants: { key: participantsKey, count: participants.length, bytes: participantsJson.bytes },
    filled,
  };
  await table.db.send(
    new UpdateCommand({
      TableName: table.tableName,
      Key: keys.meeting(botId),
      // Out of the state index: the reconciler's backstop looks there only for unarchived meetings.
      UpdateExpression: 'SET botId = :bot, #archive = :archive REMOVE #progress, #statePk, #stateSk',
      ExpressionAttributeNames: {
        '#archive': 'archive',
        '#progress': 'archiveProgress',
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
  // After the record: a failure here fails the job, whose retry finds the meeting archived and publishes.
  await deps.events.publish([archivedEvent(botId, record)]);
  return { status: 'archived', record, lake: await deps.lake.write(botId) };
}

function archivedEvent(botId: string, record: ArchiveRecord): DomainEvent {
  const { recording } = record;
  return domainEvents.archived({
    bot_id: botId,
    archived_at: record.archivedAt,
    recording: {
      status: record.recordingStatus,
      bytes: recording?.bytes ?? null,
      sha256: recording?.sha256 ?? null,
      content_type: recording?.contentType ?? null,
    },
    transcript_lines: record.transcript.lines,
    participant_count: record.participants.count,
  });
}

async function saveProgress(table: TableAccess, botId: string, progress: ArchiveProgress): Promise<void> {
  await table.db.send(
    new UpdateCommand({
      TableName: table.tableName,
      Key: keys.meeting(botId),
      UpdateExpression: 'SET botId = :bot, #progress = :progress',
      ExpressionAttributeNames: { '#progress': 'archiveProgress' },
      ExpressionAttributeValues: { ':bot': botId, ':progress': progress },
    }),
  );
}

/** Writes a JSON body unless the object already holds exactly these bytes (checked by their SHA-256). */
async function putJsonOnce(
  recordings: RecordingStore,
  key: string,
  value: unknown,
): Promise<{ bytes: number; sha256: string }> {
  const body = Buffer.from(JSON.stringify(value), 'utf8');
  const sha256 = createHash('sha256').update(body).digest('hex');
  const stored = await recordings.head(key);
  if (stored?.metadata[ARCHIVE_METADATA.sha256] !== sha256) {
    await recordings.put(key, body, 'application/json', { [ARCHIVE_METADATA.sha256]: sha256 });
  }
  return { bytes: body.length, sha256 };
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

/**
 * Why no recording can exist, when the service itself said the bot never recorded (missed or failed
 * with one of its own sub-types: not admitted, denied, not launched, out of credits); undefined
 * otherwise. An outcome we inferred (a bare fatal_error, no join event seen) is not enough: its join
 * webhooks may be lost, or a crashed bot's recording still on its way, and a recording must not be lost.
 */
function neverRecordedBecause(stored: unknown): string | undefined {
  if (typeof stored !== 'object' || stored === null) return undefined;
  const { status, reason } = stored as { status?: unknown; reason?: unknown };
  if ((status !== 'missed' && status !== 'failed') || typeof reason !== 'string') return undefined;
  return Object.hasOwn(SERVICE_REASONS, reason) ? reason : undefined;
}

/** The recording the run archives, and the download it refused for being smaller than the archived one. */
interface RecordingCopy {
  recording: ArchivedRecording | null;
  refused?: RefusedRecording;
}

/** Fetches a fresh link right before each download; an expired or broken download gets another link. */
async function archiveRecording(
  botId: string,
  deps: ArchiveDependencies,
  options: ArchiveOptions,
): Promise<RecordingCopy> {
  // Before asking the service: an upload completed by a run that crashed before recording it.
  const stored = await findUploadedRecording(botId, deps);
  if ('adopted' in stored) return { recording: stored.adopted };
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
      return { recording: null };
    }
    try {
      return { recording: await copyRecording(botId, link.url, deps, stored.largest) };
    } catch (error) {
      if (error instanceof RecordingShrankError && stored.largest !== undefined)
        return keepArchived(botId, stored.largest, error, deps);
      if (error instanceof DownloadCutOffError) {
        // Another link now could not finish in the time left: the queue tries again later.
        deps.telemetry.metrics.emit(METRICS.downloadCutOff, 1, { reason: error.reason });
        throw error;
      }
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

/** Size metadata of a recording whose length the download did not announce. */
const UNANNOUNCED = 'unannounced';

/**
 * A download smaller than the object already archived for the meeting. Told before a byte is read when
 * the download announces its length; else when the body ends, before its upload can complete (the meter
 * fails it), so the archived object is never overwritten and the recording is never held in memory.
 */
class RecordingShrankError extends Error {
  override name = 'RecordingShrankError';
  constructor(
    readonly bytes: number,
    readonly keptBytes: number,
  ) {
    super(`the download has ${bytes} bytes, fewer than the ${keptBytes} archived`);
  }
}

/** An object under the meeting's recording prefix, by size. */
interface StoredRecording {
  key: string;
  bytes: number;
}

/**
 * Copies the service's recording into the bucket. `archived`: the largest object already there (not
 * adopted as a whole upload of ours): a smaller download must not replace it (RecordingShrankError).
 */
async function copyRecording(
  botId: string,
  url: string,
  deps: ArchiveDependencies,
  archived: StoredRecording | undefined,
): Promise<ArchivedRecording> {
  const download = await deps.openDownload(url);
  const keptBytes = archived?.bytes ?? 0;
  if (download.contentLength !== undefined && download.contentLength < keptBytes) {
    download.stream.destroy();
    throw new RecordingShrankError(download.contentLength, keptBytes);
  }
  const meter = new RecordingMeter(deps.maxRecordingBytes, download.contentLength, keptBytes);
  // A broken download fails the meter, which fails (and aborts) the upload. A download the
  // guard cut off (deadline, rate) keeps that reason, whichever of the two events comes first.
  const broke = (fallback: DownloadFailedError) => {
    const cause = download.stream.errored;
    meter.destroy(cause instanceof DownloadCutOffError ? cause : fallback);
  };
  download.stream.on('error', (error) =>
    broke(new DownloadFailedError(`the recording download broke: ${error.message}`)),
  );
  download.stream.on('aborted', () => broke(new DownloadFailedError('the recording download was cut off')));
  download.stream.pipe(meter);
  const key = archiveKeys.recording(botId, extensionFor(download.contentType));
  await deps.recordings.upload(key, meter, download.contentType, {
    [ARCHIVE_METADATA.sourceBytes]: download.contentLength === undefined ? UNANNOUNCED : String(download.contentLength),
  });
  return { key, bytes: meter.bytes, sha256: meter.sha256(), contentType: download.contentType };
}

/**
 * A recording an earlier run uploaded whole: its size matches what the service
 * announced. Its SHA-256 is computed again from the bucket (a read within the
 * region), not from another download. Otherwise the largest object there (one
 * without our size on it: an earlier release's, a restored one), which a smaller
 * download must not replace.
 */
async function findUploadedRecording(
  botId: string,
  deps: ArchiveDependencies,
): Promise<{ adopted: ArchivedRecording } | { largest: StoredRecording | undefined }> {
  let largest: StoredRecording | undefined;
  for (const candidate of await deps.recordings.list(archiveKeys.recordingPrefix(botId))) {
    if (candidate.bytes > (largest?.bytes ?? 0)) largest = candidate;
    const stored = await deps.recordings.head(candidate.key);
    const announced = stored?.metadata[ARCHIVE_METADATA.sourceBytes];
    if (stored === null || announced === undefined) continue;
    if (announced !== UNANNOUNCED && Number(announced) !== stored.bytes) continue;
    const read = await readStored(stored.key, stored.contentType, deps);
    if (read.bytes !== stored.bytes) continue;
    deps.telemetry.log.info('recording already in the bucket; adopted instead of copied again', {
      bot_id: botId,
      key: stored.key,
      bytes: read.bytes,
    });
    return { adopted: read };
  }
  return { largest };
}

/** The stored object's size and SHA-256, streamed from the bucket. */
async function readStored(key: string, contentType: string, deps: ArchiveDependencies): Promise<ArchivedRecording> {
  const hash = createHash('sha256');
  let bytes = 0;
  for await (const chunk of await deps.recordings.read(key)) {
    hash.update(chunk as Buffer);
    bytes += (chunk as Buffer).length;
  }
  return { key, bytes, sha256: hash.digest('hex'), contentType };
}

/** The archived object stays the meeting's recording; the refused download is counted and recorded. */
async function keepArchived(
  botId: string,
  archived: StoredRecording,
  shrank: RecordingShrankError,
  deps: ArchiveDependencies,
): Promise<RecordingCopy> {
  const head = await deps.recordings.head(archived.key);
  const kept = await readStored(archived.key, head?.contentType ?? 'application/octet-stream', deps);
  const refused: RefusedRecording = {
    reason: shrank.bytes === 0 ? 'empty' : 'smaller',
    bytes: shrank.bytes,
    keptBytes: kept.bytes,
  };
  deps.telemetry.log.warn('recording download smaller than the archived one; the archived one is kept', {
    bot_id: botId,
    key: kept.key,
    ...refused,
  });
  deps.telemetry.metrics.emit(METRICS.recordingShrankRefused, 1);
  return { recording: kept, refused };
}

/**
 * Counts and hashes the bytes passing through, and stops past the size cap. A body
 * shorter than announced, or than the recording already archived (`keptBytes`),
 * fails at its end, before the upload can complete, so the bucket never holds a
 * truncated recording nor a smaller one over the archived one.
 */
class RecordingMeter extends Transform {
  bytes = 0;
  private readonly hash = createHash('sha256');

  constructor(
    private readonly maxBytes: number,
    private readonly expectedBytes: number | undefined,
    private readonly keptBytes: number,
  ) {
    super();
  }

  override _flush(callback: TransformCallback): void {
    if (this.expectedBytes !== undefined && this.bytes !== this.expectedBytes) {
      callback(
        new DownloadFailedError(`the recording download ended after ${this.bytes} of ${this.expectedBytes} bytes`),
      );
      return;
    }
    if (this.bytes < this.keptBytes) {
      callback(new RecordingShrankError(this.bytes, this.keptBytes));
      return;
    }
    callback();
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
