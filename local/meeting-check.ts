/**
 * Local mode's verdict: does each stored meeting equal what the simulated service
 * played? State, summary, every utterance and participant, and the archived
 * recording's checksum; for a bot that never joined, no summary, lines or recording.
 */
import { type DynamoDBDocumentClient, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { keys, SK_PREFIX } from '../lambdas/core/store/table-layout';
import { recordingSha256 } from './simulator/api-server';
import type { PlayedMeeting } from './simulator/meeting-player';

export interface MeetingCheck {
  botId: string;
  scheduleId: string;
  ok: boolean;
  problems: string[];
  state: string | undefined;
  utterances: number;
  participants: number;
  summary: string | undefined;
  recording: { key: string; bytes: number; sha256: string } | undefined;
}

export interface CheckSources {
  db: DynamoDBDocumentClient;
  tableName: string;
  played: Map<string, PlayedMeeting>;
  botIdOf(scheduleId: string): Promise<string | undefined>;
}

export async function checkMeetings(
  scheduleIds: string[],
  { db, tableName, played, botIdOf }: CheckSources,
): Promise<MeetingCheck[]> {
  const results: MeetingCheck[] = [];
  for (const scheduleId of scheduleIds) {
    const botId = (await botIdOf(scheduleId)) ?? '(not launched)';
    const meeting = played.get(botId);
    const item = async (key: Record<string, string>) =>
      (await db.send(new GetCommand({ TableName: tableName, Key: key, ConsistentRead: true }))).Item;
    const meetingItem = await item(keys.meeting(botId));
    const summary = (await item(keys.summary(botId)))?.summary as string | undefined;
    const items = async (prefix: string) =>
      (
        await db.send(
          new QueryCommand({
            TableName: tableName,
            KeyConditionExpression: 'pk = :pk AND begins_with(sk, :p)',
            ExpressionAttributeValues: { ':pk': keys.bot(botId), ':p': prefix },
            ConsistentRead: true,
          }),
        )
      ).Items ?? [];
    const utterances = await items(SK_PREFIX.utterance);
    const participants = await items(SK_PREFIX.participant);
    const archive = meetingItem?.archive as
      | { recordingStatus?: string; recording?: { key: string; bytes: number; sha256: string } | null }
      | undefined;
    const problems: string[] = [];
    if (meeting === undefined) problems.push('the simulated service never played this meeting');
    else {
      if (meetingItem?.state !== meeting.finalState)
        problems.push(`state is ${meetingItem?.state}, played ${meeting.finalState}`);
      if (summary !== meeting.summary)
        problems.push(`summary is ${JSON.stringify(summary)}, played ${JSON.stringify(meeting.summary)}`);
      const stored = new Map(utterances.map((u) => [`${u.timestampMs}/${u.speakerUuid}`, u.text]));
      for (const line of meeting.utterances) {
        if (stored.get(`${line.timestampMs}/${line.speakerUuid}`) !== line.text)
          problems.push(`utterance at ${line.timestampMs} ms by ${line.speakerName} is missing or wrong`);
      }
      if (utterances.length !== meeting.utterances.length)
        problems.push(`${utterances.length} utterances stored, ${meeting.utterances.length} played`);
      const names = new Map(participants.map((p) => [p.participantUuid, p.name]));
      for (const person of meeting.participants)
        if (names.get(person.uuid) !== person.name) problems.push(`participant ${person.name} is missing or misnamed`);
      if (participants.length !== meeting.participants.length)
        problems.push(`${participants.length} participants stored, ${meeting.participants.length} played`);
      if (meeting.recording === null) {
        // Never joined: the service has no recording, so none may be archived (an archive says `none`).
        if (archive !== undefined && (archive.recordingStatus !== 'none' || archive.recording != null))
          problems.push(`a recording is archived (${archive.recordingStatus}), but the bot never joined`);
      } else {
        const expectedSha = recordingSha256(meeting.recording.seed, meeting.recording.size);
        if (archive?.recording?.sha256 !== expectedSha)
          problems.push(`recording checksum ${archive?.recording?.sha256 ?? 'missing'} ≠ played ${expectedSha}`);
      }
    }
    results.push({
      botId,
      scheduleId,
      ok: problems.length === 0,
      problems,
      state: meetingItem?.state as string | undefined,
      utterances: utterances.length,
      participants: participants.length,
      summary,
      recording: archive?.recording ?? undefined,
    });
  }
  return results;
}
