import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { writeIfCondition } from '../store/dynamo';
import { ERASURE_ATTRIBUTE, keys, TRANSCRIPT_FINAL_ATTRIBUTE } from '../store/table-layout';
import type { TranscriptUpdateData } from '../upstream/webhook-contract';
import { type ApplyContext, arrivalVersion, rememberAppliedKey } from './context';

/**
 * One item per utterance, keyed by (bot, timestamp_ms, speaker_uuid): the service
 * has no utterance id and re-sends an utterance with corrected text under a new
 * idempotency key; the one first accepted last wins (every delivery carries its
 * event's first acceptance time). The item remembers the keys applied to it, so a
 * late resend of an old version never overwrites a correction; once the
 * archive took the service's final transcript (the meeting's transcriptFinalAt,
 * and lines it wrote are marked final), no webhook changes it. No
 * transcription is an empty utterance.
 */
export async function applyTranscriptUpdate(
  ctx: ApplyContext,
  data: TranscriptUpdateData,
): Promise<{ written: boolean; seenBefore: boolean; erased?: boolean }> {
  // After the archive took the service's final transcript, or once the meeting is erased, a webhook
  // changes nothing: one small read, which is also the hot path's only tombstone check.
  const { Item: meeting } = await ctx.table.db.send(
    new GetCommand({
      TableName: ctx.table.tableName,
      Key: keys.meeting(ctx.botId),
      ConsistentRead: true,
      ProjectionExpression: '#final, #erasure',
      ExpressionAttributeNames: { '#final': TRANSCRIPT_FINAL_ATTRIBUTE, '#erasure': ERASURE_ATTRIBUTE },
    }),
  );
  if (meeting?.[ERASURE_ATTRIBUTE] !== undefined) return { written: false, seenBefore: false, erased: true };
  if (meeting?.[TRANSCRIPT_FINAL_ATTRIBUTE] !== undefined) return { written: false, seenBefore: false };
  const text = data.transcription?.transcript ?? '';
  const key = keys.utterance(ctx.botId, data.timestamp_ms, data.speaker_uuid);
  const written = await writeIfCondition(() =>
    ctx.table.db.send(
      new UpdateCommand({
        TableName: ctx.table.tableName,
        Key: key,
        UpdateExpression:
          'SET botId = :bot, timestampMs = :ts, speakerUuid = :speaker, speakerName = :name, speakerUserUuid = :user, ' +
          'speakerIsHost = :host, durationMs = :duration, #text = :text, transcribed = :transcribed, version = :version ADD appliedKeys :keys',
        ConditionExpression:
          '(attribute_not_exists(version) OR version < :version) AND NOT contains(appliedKeys, :key) AND attribute_not_exists(finalized)',
        ExpressionAttributeNames: { '#text': 'text' },
        ExpressionAttributeValues: {
          ':bot': ctx.botId,
          ':ts': data.timestamp_ms,
          ':speaker': data.speaker_uuid,
          ':name': data.speaker_name ?? null,
          ':user': data.speaker_user_uuid ?? null,
          ':host': data.speaker_is_host ?? null,
          ':duration': data.duration_ms ?? null,
          ':text': text,
          ':transcribed': data.transcription !== null && data.transcription.transcript != null,
          ':version': arrivalVersion(ctx),
          ':key': ctx.idempotencyKey,
          ':keys': new Set([ctx.idempotencyKey]),
        },
      }),
    ),
  );
  const seenBefore = !written && (await rememberAppliedKey(ctx, key, 'appliedKeys'));
  return { written, seenBefore };
}
