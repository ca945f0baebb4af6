/**
 * After the meeting, the service's final transcript is authoritative: each of its
 * utterances is written whole, marked final, and no webhook delivered or re-driven
 * later changes it (their writes require an item that is not final). Participants
 * the webhooks never delivered are only filled in, with the lowest version, so any
 * later webhook still wins.
 */
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { type TableAccess, writeIfCondition } from '../store/dynamo';
import { keys } from '../store/table-layout';
import type { Participant, TranscriptLine } from '../upstream/rest-contract';

const LOWEST_VERSION = '0';

/** What writing the final transcript changed: utterances no webhook had delivered, and ones it corrected. */
export interface FinalTranscriptWrite {
  created: number;
  corrected: number;
}

export async function writeFinalTranscript(
  table: TableAccess,
  botId: string,
  lines: TranscriptLine[],
): Promise<FinalTranscriptWrite> {
  const counts: FinalTranscriptWrite = { created: 0, corrected: 0 };
  for (const line of lines) {
    const text = line.transcription?.transcript ?? '';
    const { Attributes: before } = await table.db.send(
      new PutCommand({
        TableName: table.tableName,
        Item: {
          ...keys.utterance(botId, line.timestamp_ms, line.speaker_uuid),
          botId,
          timestampMs: line.timestamp_ms,
          speakerUuid: line.speaker_uuid,
          speakerName: line.speaker_name ?? null,
          speakerUserUuid: line.speaker_user_uuid ?? null,
          speakerIsHost: line.speaker_is_host ?? null,
          durationMs: line.duration_ms ?? null,
          text,
          transcribed: line.transcription != null && line.transcription.transcript != null,
          finalized: true,
          writtenFrom: 'final-transcript',
        },
        ReturnValues: 'ALL_OLD',
      }),
    );
    if (before === undefined) counts.created++;
    else if (before.finalized !== true && before.text !== text) counts.corrected++;
  }
  return counts;
}

export async function fillMissingParticipants(
  table: TableAccess,
  botId: string,
  participants: Participant[],
): Promise<number> {
  let filled = 0;
  for (const participant of participants) {
    const written = await writeIfCondition(() =>
      table.db.send(
        new PutCommand({
          TableName: table.tableName,
          Item: {
            ...keys.participant(botId, participant.uuid),
            botId,
            participantUuid: participant.uuid,
            name: participant.name ?? null,
            userUuid: participant.user_uuid ?? null,
            isHost: participant.is_host ?? null,
            profileVersion: LOWEST_VERSION,
            filledFrom: 'archive',
          },
          ConditionExpression: 'attribute_not_exists(sk)',
        }),
      ),
    );
    if (written) filled++;
  }
  return filled;
}
