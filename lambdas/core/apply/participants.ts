import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { writeIfCondition } from '../store/dynamo';
import { keys, padMs } from '../store/table-layout';
import type { ParticipantEventData } from '../upstream/webhook-contract';
import { type ApplyContext, jsonText } from './context';

/**
 * An item per participant event (by its id), and a participant record with the
 * newest name and host flag, the first join and the last leave. Each write is a
 * put of fixed content or a conditional min/max, so any order ends the same.
 * True when the event's item was there already (an earlier delivery).
 */
export async function applyParticipantEvent(ctx: ApplyContext, data: ParticipantEventData): Promise<boolean> {
  const { db, tableName } = ctx.table;
  const { Attributes: before } = await db.send(
    new PutCommand({
      TableName: tableName,
      Item: {
        ...keys.participantEvent(ctx.botId, data.id),
        botId: ctx.botId,
        eventId: data.id,
        participantUuid: data.participant_uuid,
        participantName: data.participant_name ?? null,
        participantUserUuid: data.participant_user_uuid ?? null,
        participantIsHost: data.participant_is_host ?? null,
        eventType: data.event_type,
        eventData: jsonText(data.event_data),
        timestampMs: data.timestamp_ms,
      },
      ReturnValues: 'ALL_OLD', // free: tells a redelivery without a read
    }),
  );
  const seenBefore = before !== undefined;

  const participant = keys.participant(ctx.botId, data.participant_uuid);
  await writeIfCondition(() =>
    db.send(
      new UpdateCommand({
        TableName: tableName,
        Key: participant,
        UpdateExpression:
          'SET botId = :bot, participantUuid = :uuid, #name = :name, userUuid = :user, isHost = :host, profileVersion = :version',
        ConditionExpression: 'attribute_not_exists(profileVersion) OR profileVersion < :version',
        ExpressionAttributeNames: { '#name': 'name' },
        ExpressionAttributeValues: {
          ':bot': ctx.botId,
          ':uuid': data.participant_uuid,
          ':name': data.participant_name ?? null,
          ':user': data.participant_user_uuid ?? null,
          ':host': data.participant_is_host ?? null,
          ':version': `${padMs(data.timestamp_ms)}#${data.id}`,
        },
      }),
    ),
  );

  const bound =
    data.event_type === 'join'
      ? { attribute: 'firstJoinMs', keepIf: '>' }
      : data.event_type === 'leave'
        ? { attribute: 'lastLeaveMs', keepIf: '<' }
        : undefined;
  if (bound === undefined) return seenBefore;
  await writeIfCondition(() =>
    db.send(
      new UpdateCommand({
        TableName: tableName,
        Key: participant,
        UpdateExpression: `SET ${bound.attribute} = :t`,
        ConditionExpression: `attribute_not_exists(${bound.attribute}) OR ${bound.attribute} ${bound.keepIf} :t`,
        ExpressionAttributeValues: { ':t': data.timestamp_ms },
      }),
    ),
  );
  return seenBefore;
}
