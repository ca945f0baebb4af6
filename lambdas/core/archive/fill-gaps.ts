/**
 * After the meeting, the service's final transcript is authoritative: each of its
 * utterances is written whole, marked final, and no webhook delivered or re-driven
 * later changes it (their writes require an item that is not final). Participants
 * the webhooks never delivered are only filled in, with the lowest version, so any
 * later webhook still wins.
 *
 * What the archive added or corrected is marked on the item itself, so a job that
 * runs again after a crash counts the same gaps, not zero.
 *
 * Every utterance not yet final is written, even one whose text the webhooks got
 * right: only the mark on the item itself refuses a later webhook without a race
 * (a conditional write sees no other item). One already final with the same
 * content is skipped: nothing but the archive writes a final item, so a run after
 * a crash writes only what the earlier run did not.
 */
import { PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { type TableAccess, writeIfCondition } from '../store/dynamo';
import { keys, SK_PREFIX } from '../store/table-layout';
import type { Participant, TranscriptLine } from '../upstream/rest-contract';

const LOWEST_VERSION = '0';
const FROM_ARCHIVE = 'archive';

/** What a final utterance says, compared to skip writing it again unchanged. */
const FINAL_CONTENT = ['speakerName', 'speakerUserUuid', 'speakerIsHost', 'durationMs', 'text', 'transcribed'];

/** What the final transcript did to an utterance the webhooks had (or had not) delivered. */
type ArchiveFill = 'created' | 'corrected';

/** What writing the final transcript changed: utterances no webhook had delivered, and ones it corrected. */
export interface FinalTranscriptWrite {
  created: number;
  corrected: number;
}

type Item = Record<string, unknown>;

/** One kind of a meeting's items by sort key, read before the archive writes over them. */
async function itemsBySortKey(
  table: TableAccess,
  botId: string,
  prefix: string,
  attributes: string[],
): Promise<Map<string, Item>> {
  const found = new Map<string, Item>();
  const names = Object.fromEntries(attributes.map((name, i) => [`#a${i}`, name]));
  let cursor: Record<string, unknown> | undefined;
  do {
    const page = await table.db.send(
      new QueryCommand({
        TableName: table.tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': keys.bot(botId), ':prefix': prefix },
        ProjectionExpression: ['sk', ...Object.keys(names)].join(', '),
        ExpressionAttributeNames: names,
        ConsistentRead: true,
        ExclusiveStartKey: cursor,
      }),
    );
    for (const item of page.Items ?? []) found.set(String(item.sk), item);
    cursor = page.LastEvaluatedKey;
  } while (cursor !== undefined);
  return found;
}

export async function writeFinalTranscript(
  table: TableAccess,
  botId: string,
  lines: TranscriptLine[],
): Promise<FinalTranscriptWrite> {
  const counts: FinalTranscriptWrite = { created: 0, corrected: 0 };
  const existing = await itemsBySortKey(table, botId, SK_PREFIX.utterance, [
    'finalized',
    'archiveFill',
    ...FINAL_CONTENT,
  ]);
  for (const line of lines) {
    const text = line.transcription?.transcript ?? '';
    const key = keys.utterance(botId, line.timestamp_ms, line.speaker_uuid);
    const before = existing.get(key.sk);
    // An item already final was written by an earlier run of this job: its mark says what that run found.
    const fill: ArchiveFill | undefined =
      before === undefined
        ? 'created'
        : before.finalized === true
          ? (before.archiveFill as ArchiveFill | undefined)
          : before.text !== text
            ? 'corrected'
            : undefined;
    if (fill !== undefined) counts[fill]++;
    const content: Item = {
      speakerName: line.speaker_name ?? null,
      speakerUserUuid: line.speaker_user_uuid ?? null,
      speakerIsHost: line.speaker_is_host ?? null,
      durationMs: line.duration_ms ?? null,
      text,
      transcribed: line.transcription != null && line.transcription.transcript != null,
    };
    // A line the webhooks already hold as the service has it is not written again: the meeting's
    // `transcriptFinalAt` (set before this runs) keeps any later webhook off it.
    if (before !== undefined && FINAL_CONTENT.every((name) => before[name] === content[name])) continue;
    await table.db.send(
      new PutCommand({
        TableName: table.tableName,
        Item: {
          ...key,
          botId,
          timestampMs: line.timestamp_ms,
          speakerUuid: line.speaker_uuid,
          ...content,
          finalized: true,
          writtenFrom: 'final-transcript',
          ...(fill !== undefined && { archiveFill: fill }),
        },
      }),
    );
  }
  return counts;
}

export async function fillMissingParticipants(
  table: TableAccess,
  botId: string,
  participants: Participant[],
): Promise<number> {
  let filled = 0;
  const existing = await itemsBySortKey(table, botId, SK_PREFIX.participant, ['filledFrom']);
  for (const participant of participants) {
    const key = keys.participant(botId, participant.uuid);
    const before = existing.get(key.sk);
    if (before !== undefined) {
      // Filled by an earlier run of this job (a later webhook updates the profile, not the mark).
      if (before.filledFrom === FROM_ARCHIVE) filled++;
      continue;
    }
    const written = await writeIfCondition(() =>
      table.db.send(
        new PutCommand({
          TableName: table.tableName,
          Item: {
            ...key,
            botId,
            participantUuid: participant.uuid,
            name: participant.name ?? null,
            userUuid: participant.user_uuid ?? null,
            isHost: participant.is_host ?? null,
            profileVersion: LOWEST_VERSION,
            filledFrom: FROM_ARCHIVE,
          },
          ConditionExpression: 'attribute_not_exists(sk)',
        }),
      ),
    );
    if (written) filled++;
  }
  return filled;
}
