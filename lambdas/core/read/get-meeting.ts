/**
 * GET /meetings/{bot_id}: the meeting item, its summary (inline, or read from the payload bucket
 * when it was too long for its item), its utterance and participant counts (COUNT queries), and its
 * timeline: the stored state changes, as the outcome reads them.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { outcomeEventsOf } from '../apply/meeting-outcome-item';
import type { StoredSummary } from '../apply/summary';
import { meetingTimeline } from '../outcome/meeting-outcome';
import { queryAllWithPrefix } from '../store/dynamo';
import { keys, SK_PREFIX } from '../store/table-layout';
import { utcTimestamp } from '../text/utc-timestamp';
import { knownMeeting } from './known-bot';
import { archiveOf, meetingListEntry } from './meeting-entry';
import type { MeetingView, TimelineEntry } from './read-api-contract';
import type { ReadDependencies } from './read-dependencies';
import { countWithPrefix } from './table-reads';

export async function getMeeting(
  botId: string,
  deps: Pick<ReadDependencies, 'table' | 'objects'>,
): Promise<MeetingView> {
  const { table } = deps;
  const meeting = await knownMeeting(table, botId);
  const [summary, utterances, participants, timeline] = await Promise.all([
    summaryText(botId, deps),
    countWithPrefix(table, keys.bot(botId), SK_PREFIX.utterance),
    countWithPrefix(table, keys.bot(botId), SK_PREFIX.participant),
    timelineOf(botId, deps),
  ]);
  const archive = archiveOf(meeting);
  return {
    ...meetingListEntry(botId, meeting),
    summary,
    utterance_count: utterances,
    participant_count: participants,
    recording:
      archive === undefined
        ? null
        : {
            status: archive.recordingStatus,
            bytes: archive.recording?.bytes ?? null,
            sha256: archive.recording?.sha256 ?? null,
            content_type: archive.recording?.contentType ?? null,
          },
    timeline,
  };
}

async function timelineOf(botId: string, deps: Pick<ReadDependencies, 'table'>): Promise<TimelineEntry[]> {
  const history = await queryAllWithPrefix(deps.table, keys.bot(botId), SK_PREFIX.stateChange, {
    consistent: false,
    projection: { expression: 'eventType, eventSubType, oldState, newState, createdAt, eventMetadata' },
  });
  return meetingTimeline(history.flatMap(outcomeEventsOf)).map((event) => ({
    at: utcTimestamp(event.created_at),
    event_type: event.event_type,
    event_sub_type: event.event_sub_type ?? null,
    old_state: event.old_state ?? null,
    new_state: event.new_state ?? null,
  }));
}

async function summaryText(botId: string, deps: Pick<ReadDependencies, 'table' | 'objects'>): Promise<string | null> {
  const { Item } = await deps.table.db.send(
    new GetCommand({
      TableName: deps.table.tableName,
      Key: keys.summary(botId),
      ProjectionExpression: 'summary, summaryStored',
    }),
  );
  if (typeof Item?.summary === 'string') return Item.summary;
  const stored = Item?.summaryStored as StoredSummary | undefined;
  return stored === undefined ? null : deps.objects.readText(stored.bucket, stored.key);
}
