/**
 * writeMeetingToLake: an archived meeting's rows into its recent files, one whole-object PUT per
 * table (`lakeKeys.recentFile`), each carrying the write's `lake_version` in its footer, the meetings
 * file last: it is the commit marker. A reader that sees the meeting row sees its lines and
 * participants, and a fold takes a meeting only once its meetings file is as new as its others. A rewrite (a corrected transcript, an archive re-run) replaces the
 * three files: a meeting's rows are only ever in its own files, never added to.
 *
 * Idempotent by content: the SHA-256 of the rows (their `lake_version` aside) is recorded on the
 * meeting item with the day and version (LAKE_ATTRIBUTE); the same rows again write nothing, so a
 * re-run adds no object version to the versioned bucket.
 *
 * Erasure: a tombstone found before writing writes nothing; one set while writing makes the
 * record's conditional update fail, and what was written is deleted, every version (the erasure's
 * second sweep of the lake is the backstop for a crash in between).
 *
 * Compaction: a day already compacted is read from its compacted files only, so rows written to
 * such a day (a late archive, a correction) are folded into them (`fold.foldDay`).
 */
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ReadApiError } from '../read/read-errors';
import { writeIfCondition } from '../store/dynamo';
import { versionsOfKey } from '../store/object-versions';
import { ERASURE_ATTRIBUTE, keys } from '../store/table-layout';
import { METRICS } from '../telemetry';
import { LAKE_ATTRIBUTE, type LakeDependencies, type LakeRecord, type LakeWriteOutcome } from './lake-contract';
import { lakeKeys } from './lake-layout';
import { buildMeetingRows, lakeRowsSha256, type MeetingLakeRows, type SummaryTexts } from './lake-rows';
import type { LakeTableName } from './lake-tables';
import { encodeLakeRows } from './parquet-codec';

/** The compaction state a writer consults (lake-compaction.ts implements it). */
export interface LakeFold {
  /** The last compacted day (`NOTHING_COMPACTED` before the first). */
  compactedThrough(): Promise<string>;
  /** Merges the day's recent files into its compacted files (under the day's lease). */
  foldDay(day: string): Promise<unknown>;
}

export interface LakeWriterDependencies extends LakeDependencies {
  fold: LakeFold;
  /** Long summaries are kept in the payload bucket; the meetings row carries their text. */
  summaries: SummaryTexts;
}

/** Recent files in write order: the meetings file last. */
const WRITE_ORDER: readonly LakeTableName[] = ['utterances', 'participants', 'meetings'];

export class LakeWriteError extends Error {
  override name = 'LakeWriteError';
}

export async function writeMeetingToLake(botId: string, deps: LakeWriterDependencies): Promise<LakeWriteOutcome> {
  const { table, telemetry } = deps;
  const { Item: meeting } = await table.db.send(
    new GetCommand({ TableName: table.tableName, Key: keys.meeting(botId), ConsistentRead: true }),
  );
  const noRows = { meetings: 0, utterances: 0, participants: 0 };
  if (meeting === undefined) throw new LakeWriteError(`meeting ${botId} has no meeting item to write to the lake`);
  if (meeting[ERASURE_ATTRIBUTE] !== undefined) return { day: '', status: 'erased', rows: noRows, folded: false };
  const archivedAt = (meeting.archive as { archivedAt?: unknown } | undefined)?.archivedAt;
  if (typeof archivedAt !== 'string') throw new LakeWriteError(`meeting ${botId} is not archived yet`);

  const version = deps.now().toISOString();
  let built: Awaited<ReturnType<typeof buildMeetingRows>>;
  try {
    built = await buildMeetingRows(botId, { meeting, archivedAt, version }, deps);
  } catch (error) {
    // Erased while its rows were read (the read core refuses a tombstoned meeting): nothing was written.
    if (error instanceof ReadApiError && error.code === 'meeting-erased')
      return { day: '', status: 'erased', rows: noRows, folded: false };
    throw error;
  }
  const { day, rows } = built;
  const counts = {
    meetings: rows.meetings.length,
    utterances: rows.utterances.length,
    participants: rows.participants.length,
  };
  const sha256 = lakeRowsSha256(day, rows);
  const recorded = meeting[LAKE_ATTRIBUTE] as LakeRecord | undefined;
  if (recorded?.sha256 === sha256 && recorded.day === day) {
    // Written before; a run cut off after its record but before its fold folds now.
    const folded = await foldIfCompacted(botId, day, deps, { onlyIfRecentFilesLeft: true });
    return { day, status: 'unchanged', rows: counts, folded };
  }

  const written = await putRecentFiles(botId, day, rows, version, deps);
  const record: LakeRecord = { day, sha256, version };
  const recordedNow = await writeIfCondition(() =>
    table.db.send(
      new UpdateCommand({
        TableName: table.tableName,
        Key: keys.meeting(botId),
        UpdateExpression: 'SET #lake = :lake',
        ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(#erasure)',
        ExpressionAttributeNames: { '#lake': LAKE_ATTRIBUTE, '#erasure': ERASURE_ATTRIBUTE },
        ExpressionAttributeValues: { ':lake': record },
      }),
    ),
  );
  if (!recordedNow) {
    // Erased while the files were written: none of them may stay.
    await deleteEveryVersion(written, deps);
    telemetry.log.info('meeting erased while its lake rows were written; they were deleted', { bot_id: botId, day });
    return { day, status: 'erased', rows: noRows, folded: false };
  }
  // The meeting's listing day changed (it had none before): the old day's files are not its rows any more.
  if (recorded !== undefined && recorded.day !== day) {
    await deleteEveryVersion(
      WRITE_ORDER.map((name) => lakeKeys.recentFile(name, recorded.day, botId)),
      deps,
    );
  }
  for (const name of WRITE_ORDER) telemetry.metrics.emit(METRICS.lakeRowsWritten, counts[name], { table: name });
  const folded = await foldIfCompacted(botId, day, deps, { onlyIfRecentFilesLeft: false });
  telemetry.log.info('meeting written to the lake', { bot_id: botId, day, folded, ...counts });
  return { day, status: 'written', rows: counts, folded };
}

/** PUTs the three recent files in write order, the meetings file last; answers their keys. */
export async function putRecentFiles(
  botId: string,
  day: string,
  rows: MeetingLakeRows,
  version: string,
  deps: Pick<LakeDependencies, 'objects'>,
): Promise<string[]> {
  const keysWritten: string[] = [];
  for (const name of WRITE_ORDER) {
    const key = lakeKeys.recentFile(name, day, botId);
    // Recorded before the PUT: a PUT that fails after S3 stored it is still cleaned up.
    keysWritten.push(key);
    await deps.objects.put(key, encodeLakeRows(name, rows[name], version));
  }
  return keysWritten;
}

/**
 * Folds the day into its compacted files when it is compacted already (read after writing: a
 * compaction that moved the mark before our write is seen here). `onlyIfRecentFilesLeft`: on an
 * unchanged re-run, only when the meeting's recent file is still there to fold.
 */
export async function foldIfCompacted(
  botId: string,
  day: string,
  deps: Pick<LakeWriterDependencies, 'fold' | 'objects'>,
  options: { onlyIfRecentFilesLeft: boolean },
): Promise<boolean> {
  if (day > (await deps.fold.compactedThrough())) return false;
  if (options.onlyIfRecentFilesLeft && (await deps.objects.head(lakeKeys.recentFile('meetings', day, botId))) === null)
    return false;
  await deps.fold.foldDay(day);
  return true;
}

async function deleteEveryVersion(keysToDelete: readonly string[], deps: LakeDependencies): Promise<void> {
  const { objects } = deps;
  for (const key of keysToDelete) {
    const versions = await versionsOfKey(objects, objects.bucket, key);
    if (versions.length > 0) await objects.deleteVersions(objects.bucket, versions);
  }
}
