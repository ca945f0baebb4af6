/**
 * A meeting's lake rows, built from what the read API serves for it: the meeting item (state,
 * schedule, listing time), its state history (when the bot joined and when the meeting ended),
 * `readTranscript` (lines in time order with the same offsets the API answers),
 * `readParticipants`, and the summary (inline, or the long text kept in S3).
 *
 * Names and lines are the outside world's; they go in as strings unchanged (Parquet stores bytes,
 * the engines bind parameters), never interpreted here.
 */
import { createHash } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { StoredSummary } from '../apply/summary';
import { calendarOfSchedule } from '../calendar/calendar-ids';
import { meetingOutcomeOf } from '../read/meeting-entry';
import { readParticipants } from '../read/read-participants';
import { readTranscript } from '../read/read-transcript';
import type { ReadConsistency } from '../read/table-reads';
import { queryAllWithPrefix, type TableAccess } from '../store/dynamo';
import { keys, SK_PREFIX } from '../store/table-layout';
import { utcTimestampOrNull } from '../text/utc-timestamp';
import type { BotState } from '../upstream/webhook-contract';
import { lakeDayOf } from './lake-layout';
import type { LakeRow, LakeTableName } from './lake-tables';

export type MeetingLakeRows = Record<LakeTableName, LakeRow[]>;

/** Reads a long summary kept in S3 (its pointer is on the summary item). */
export interface SummaryTexts {
  readText(bucket: string, key: string): Promise<string>;
}

/** The archive has just written the final transcript: read it back consistently. */
const CONSISTENT: ReadConsistency = { consistent: true };
/** States whose first arrival is the bot's joining (the meeting's start as the lake records it). */
const JOINED_STATES: readonly BotState[] = ['joined_recording', 'joined_not_recording'];
/** States whose first arrival is the meeting's end. */
const ENDED_STATES: readonly BotState[] = ['ended', 'fatal_error'];

export interface MeetingRowsInput {
  /** The meeting item as stored (read consistently by the caller). */
  meeting: Record<string, unknown>;
  /** The archive record's time. */
  archivedAt: string;
  /** The `lake_version` of the rows. */
  version: string;
}

/**
 * The lake day and rows of one meeting. The day is its listing day (`listedAt`, the day the read
 * API lists it under); a meeting never listed (no state change ever applied) counts from its archive.
 */
export async function buildMeetingRows(
  botId: string,
  input: MeetingRowsInput,
  deps: { table: TableAccess; summaries: SummaryTexts },
): Promise<{ day: string; rows: MeetingLakeRows }> {
  const { meeting } = input;
  const [transcript, participants, history, summary] = await Promise.all([
    readTranscript(botId, deps.table, CONSISTENT),
    readParticipants(botId, deps.table, CONSISTENT),
    stateTimes(deps.table, botId),
    summaryText(botId, deps),
  ]);
  const listedAt = utcTimestampOrNull(meeting.listedAt);
  const utterances: LakeRow[] = transcript.utterances.map((line, seq) => ({
    bot_id: botId,
    seq,
    offset_ms: line.offset_ms,
    duration_ms: line.duration_ms,
    speaker: line.speaker_name,
    speaker_id: line.speaker_uuid,
    text: line.text,
    language: null,
  }));
  const participantRows: LakeRow[] = participants.participants.map((participant) => ({
    bot_id: botId,
    participant_id: participant.participant_uuid,
    name: participant.name,
    user_id: participant.user_uuid,
    is_host: participant.is_host,
    joined_at: participant.joined_at,
    left_at: participant.left_at,
  }));
  const startedAt = history.joinedAt ?? listedAt;
  const endedAt = history.endedAt;
  const scheduleId = typeof meeting.scheduleId === 'string' ? meeting.scheduleId : null;
  const outcome = meetingOutcomeOf(meeting);
  const meetingRow: LakeRow = {
    bot_id: botId,
    state: typeof meeting.state === 'string' ? meeting.state : null,
    started_at: startedAt,
    ended_at: endedAt,
    duration_ms:
      startedAt !== null && endedAt !== null ? Math.max(0, Date.parse(endedAt) - Date.parse(startedAt)) : null,
    utterance_count: utterances.length,
    participant_count: participantRows.length,
    speaker_count: new Set(transcript.utterances.map((line) => line.speaker_uuid)).size,
    schedule_id: scheduleId,
    calendar_id: scheduleId === null ? null : (calendarOfSchedule(scheduleId) ?? null),
    summary,
    archived_at: input.archivedAt,
    lake_version: input.version,
    outcome_status: outcome?.status ?? null,
    outcome_reason: outcome?.reason ?? null,
  };
  return {
    day: lakeDayOf(listedAt ?? input.archivedAt),
    rows: { meetings: [meetingRow], utterances, participants: participantRows },
  };
}

/**
 * SHA-256 of a meeting's day and rows, `lake_version` left out: equal when a re-run would write
 * the same rows, different when a line was corrected or a participant added.
 */
export function lakeRowsSha256(day: string, rows: MeetingLakeRows): string {
  const { lake_version: _version, ...meeting } = rows.meetings[0] ?? {};
  return createHash('sha256')
    .update(JSON.stringify([day, meeting, rows.utterances, rows.participants]))
    .digest('hex');
}

/** When the bot first joined and when the meeting first ended, from its state history. */
async function stateTimes(
  table: TableAccess,
  botId: string,
): Promise<{ joinedAt: string | null; endedAt: string | null }> {
  const changes = await queryAllWithPrefix(table, keys.bot(botId), SK_PREFIX.stateChange, {
    projection: { expression: 'newState, createdAt' },
  });
  const firstOf = (states: readonly string[]): string | null => {
    const times = changes
      .filter((change) => states.includes(String(change.newState)) && typeof change.createdAt === 'string')
      .map((change) => utcTimestampOrNull(change.createdAt) as string)
      .sort();
    return times[0] ?? null;
  };
  return { joinedAt: firstOf(JOINED_STATES), endedAt: firstOf(ENDED_STATES) };
}

async function summaryText(
  botId: string,
  deps: { table: TableAccess; summaries: SummaryTexts },
): Promise<string | null> {
  const { Item } = await deps.table.db.send(
    new GetCommand({
      TableName: deps.table.tableName,
      Key: keys.summary(botId),
      ConsistentRead: true,
      ProjectionExpression: 'summary, summaryStored',
    }),
  );
  if (typeof Item?.summary === 'string') return Item.summary;
  const stored = Item?.summaryStored as StoredSummary | undefined;
  return stored === undefined ? null : deps.summaries.readText(stored.bucket, stored.key);
}
