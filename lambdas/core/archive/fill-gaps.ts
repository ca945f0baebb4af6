/**
 * Writes into the table what the webhooks never delivered, from the service's
 * final transcript and participant list: only items that are missing, and with
 * the lowest version, so any webhook that arrives later still wins.
 */
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { type TableAccess, writeIfCondition } from '../store/dynamo';
import { keys } from '../store/table-layout';
import type { Participant, TranscriptLine } from '../upstream/rest-contract';

const LOWEST_VERSION = '0';

export async function fillMissingUtterances(
  table: TableAccess,
  botId: string,
  lines: TranscriptLine[],
): Promise<number> {
  let filled = 0;
  for (const line of lines) {
    const written = await writeIfCondition(() =>
      table.db.send(
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
            text: line.transcription?.transcript ?? '',
            transcribed: line.transcription != null && line.transcription.transcript != null,
            version: LOWEST_VERSION,
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
