import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { ArchiveQueue } from '../archive/archive-job';
import { writeIfCondition } from '../store/dynamo';
import { GSI, keys, padMicros } from '../store/table-layout';
import type { StateChangeData } from '../upstream/webhook-contract';
import { type ApplyContext, jsonText } from './context';
import { ARCHIVABLE_STATES, isoToMicros, stateOrderKey } from './state-order';

export interface StateChangeResult {
  /** The event's state is now the meeting's state (false: a later or final state holds). */
  stateApplied: boolean;
  /** An archive job was queued for the meeting by this event. */
  archiveRequested: boolean;
}

/**
 * Records the state change in the meeting's history, moves the meeting's state
 * by the order rule (state-order.ts), keeps the last event time, and queues the
 * meeting's archive job once when it reaches `ended` or `fatal_error`.
 */
export async function applyStateChange(
  ctx: ApplyContext,
  data: StateChangeData,
  archive: ArchiveQueue,
): Promise<StateChangeResult> {
  const { db, tableName } = ctx.table;
  const createdAtMicros = isoToMicros(data.created_at);
  const meeting = keys.meeting(ctx.botId);

  await db.send(
    new PutCommand({
      TableName: tableName,
      Item: {
        ...keys.stateChange(ctx.botId, createdAtMicros, ctx.idempotencyKey),
        botId: ctx.botId,
        eventType: data.event_type,
        eventSubType: data.event_sub_type ?? null,
        eventMetadata: jsonText(data.event_metadata),
        oldState: data.old_state,
        newState: data.new_state,
        createdAt: data.created_at,
        idempotencyKey: ctx.idempotencyKey,
      },
    }),
  );

  const order = stateOrderKey(data.new_state, createdAtMicros);
  const byTime = `${padMicros(createdAtMicros)}#${ctx.botId}`;
  const stateApplied = await writeIfCondition(() =>
    db.send(
      new UpdateCommand({
        TableName: tableName,
        Key: meeting,
        UpdateExpression:
          'SET botId = :bot, #state = :state, stateAt = :at, stateOrder = :order, #dayPk = :day, #daySk = :byTime, #statePk = :statePk, #stateSk = :byTime',
        ConditionExpression: 'attribute_not_exists(stateOrder) OR stateOrder < :order',
        ExpressionAttributeNames: {
          '#state': 'state',
          '#dayPk': GSI.byDay.partitionKey,
          '#daySk': GSI.byDay.sortKey,
          '#statePk': GSI.byState.partitionKey,
          '#stateSk': GSI.byState.sortKey,
        },
        ExpressionAttributeValues: {
          ':bot': ctx.botId,
          ':state': data.new_state,
          ':at': data.created_at,
          ':order': order,
          ':day': keys.meetingsOfDay(new Date(createdAtMicros / 1000).toISOString().slice(0, 10)),
          ':byTime': byTime,
          ':statePk': keys.meetingsInState(data.new_state),
        },
      }),
    ),
  );

  await writeIfCondition(() =>
    db.send(
      new UpdateCommand({
        TableName: tableName,
        Key: meeting,
        UpdateExpression: 'SET lastEventAt = :at, lastEventMicros = :micros',
        ConditionExpression: 'attribute_not_exists(lastEventMicros) OR lastEventMicros < :micros',
        ExpressionAttributeValues: { ':at': data.created_at, ':micros': createdAtMicros },
      }),
    ),
  );

  let archiveRequested = false;
  if (ARCHIVABLE_STATES.includes(data.new_state)) {
    // Queue first, then mark: a crash in between re-queues on retry, which the
    // FIFO queue's dedup window (and the archive job's own idempotence) absorbs.
    const { Item } = await db.send(
      new GetCommand({
        TableName: tableName,
        Key: meeting,
        ConsistentRead: true,
        ProjectionExpression: 'archiveRequested',
      }),
    );
    if (Item?.archiveRequested !== true) {
      await archive.send({ bot_id: ctx.botId, reason: data.new_state });
      await db.send(
        new UpdateCommand({
          TableName: tableName,
          Key: meeting,
          UpdateExpression: 'SET archiveRequested = :yes',
          ExpressionAttributeValues: { ':yes': true },
        }),
      );
      archiveRequested = true;
    }
  }
  return { stateApplied, archiveRequested };
}
