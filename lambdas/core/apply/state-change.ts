import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { ArchiveQueue } from '../archive/archive-job';
import type { MeetingOutcome } from '../outcome/meeting-outcome';
import { type TableAccess, writeIfCondition } from '../store/dynamo';
import { GSI, keys } from '../store/table-layout';
import type { StateChangeData } from '../upstream/webhook-contract';
import { type ApplyContext, jsonText } from './context';
import { isFirstListing, LISTED_AT_UPDATE, listMeetingOnDay } from './day-listing';
import { refreshMeetingOutcome } from './meeting-outcome-item';
import { ARCHIVABLE_STATES, isoToMicros, stateOrderKey } from './state-order';

/** The meeting's entry in the state index (table-layout.ts), set with `indexValues`. */
const INDEX_UPDATE = '#statePk = :statePk, #stateSk = :byTime';
const INDEX_NAMES = { '#statePk': GSI.byState.partitionKey, '#stateSk': GSI.byState.sortKey };
const indexValues = (botId: string, state: string, atMicros: number) => ({
  ':byTime': keys.meetingAt(atMicros, botId),
  ':statePk': keys.meetingsInState(state, botId),
});

export interface StateChangeResult {
  /** The event's state is now the meeting's state (false: a later or final state holds). */
  stateApplied: boolean;
  /** An archive job was queued for the meeting by this event. */
  archiveRequested: boolean;
  /** The meeting's outcome with this event counted (undefined: the meeting is erased). */
  outcome?: MeetingOutcome;
  /** This event made the meeting's outcome final (once per meeting: see refreshMeetingOutcome). */
  outcomeBecameFinal?: boolean;
}

/**
 * Records the state change in the meeting's history, moves the meeting's state
 * by the order rule (state-order.ts), keeps the last event time, and queues the
 * meeting's archive job once when it reaches `ended` or `fatal_error`, then derives the meeting's outcome
 * again from its whole history (meeting-outcome-item.ts).
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
  let before: Record<string, unknown> | undefined;
  const stateApplied = await writeIfCondition(async () => {
    ({ Attributes: before } = await db.send(
      new UpdateCommand({
        TableName: tableName,
        Key: meeting,
        UpdateExpression: `SET botId = :bot, #state = :state, stateAt = :at, stateOrder = :order, ${INDEX_UPDATE}, ${LISTED_AT_UPDATE}`,
        ConditionExpression: 'attribute_not_exists(stateOrder) OR stateOrder < :order',
        ExpressionAttributeNames: { '#state': 'state', ...INDEX_NAMES },
        ExpressionAttributeValues: {
          ':bot': ctx.botId,
          ':state': data.new_state,
          ':at': data.created_at,
          ':order': order,
          ':listedAt': data.created_at,
          ...indexValues(ctx.botId, data.new_state, createdAtMicros),
        },
        ReturnValues: 'UPDATED_OLD', // free: says whether this write created the meeting
      }),
    ));
  });
  if (stateApplied) {
    if (isFirstListing(before)) await listMeetingOnDay(ctx.table, ctx.botId, data.created_at);
  } else {
    // Refused: a state change at least this late was applied. If it was this one's own earlier delivery
    // and that one created the meeting, it may have crashed before listing it: list it again (same item).
    const { Item } = await db.send(
      new GetCommand({ TableName: tableName, Key: meeting, ConsistentRead: true, ProjectionExpression: 'listedAt' }),
    );
    if (Item?.listedAt === data.created_at) await listMeetingOnDay(ctx.table, ctx.botId, data.created_at);
  }

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
  // Last, from every stored state change: a crash before this is healed by the event's retry.
  const refreshed = await refreshMeetingOutcome(ctx.table, ctx.botId);
  return {
    stateApplied,
    archiveRequested,
    ...(refreshed !== undefined && { outcome: refreshed.outcome, outcomeBecameFinal: refreshed.becameFinal }),
  };
}

/** What the launcher knows of a meeting once it has created the bot. */
export interface LaunchedMeeting {
  botId: string;
  scheduleId: string;
  /** ISO 8601 with a zone. */
  joinAt: string;
  meetingUrl: string;
  /**
   * The bot's state as the service last answered it (`scheduled` when it has a join time), or undefined
   * when not known (then `scheduled` is assumed, for a meeting that shows no state yet).
   */
  state: string | undefined;
}

/**
 * Records a launched bot on its meeting. Until a state change is heard of, the
 * meeting shows the state the service answered the launch with, indexed at its
 * join time: a bot that never sends a webhook is then seen by the reconciler
 * once its join time has passed, and not before (the service starts it only
 * minutes ahead). That state has no order key, so every state change (webhook
 * or the reconciler's observation) wins over it, and one applied first is kept.
 */
export async function recordLaunchedMeeting(table: TableAccess, launch: LaunchedMeeting): Promise<void> {
  const { botId } = launch;
  const state = launch.state ?? 'scheduled';
  const launchFields = 'SET botId = :bot, scheduleId = :schedule, scheduledJoinAt = :joinAt, meetingUrl = :url';
  const values = { ':bot': botId, ':schedule': launch.scheduleId, ':joinAt': launch.joinAt, ':url': launch.meetingUrl };
  let before: Record<string, unknown> | undefined;
  const shown = await writeIfCondition(async () => {
    ({ Attributes: before } = await table.db.send(
      new UpdateCommand({
        TableName: table.tableName,
        Key: keys.meeting(botId),
        UpdateExpression: `${launchFields}, #state = :state, ${INDEX_UPDATE}, ${LISTED_AT_UPDATE}`,
        // A known state replaces the launch's own until a state change is applied (it sets stateOrder): a
        // launched bot moved to another time is due then. An unknown one only fills a meeting without any.
        ConditionExpression:
          launch.state === undefined ? 'attribute_not_exists(#state)' : 'attribute_not_exists(stateOrder)',
        ExpressionAttributeNames: { '#state': 'state', ...INDEX_NAMES },
        ExpressionAttributeValues: {
          ...values,
          ':state': state,
          ':listedAt': launch.joinAt,
          ...indexValues(botId, state, isoToMicros(launch.joinAt)),
        },
        ReturnValues: 'UPDATED_OLD', // free: says whether this write created the meeting
      }),
    ));
  });
  if (!shown) {
    ({ Attributes: before } = await table.db.send(
      new UpdateCommand({
        TableName: table.tableName,
        Key: keys.meeting(botId),
        UpdateExpression: `${launchFields}, ${LISTED_AT_UPDATE}`,
        ExpressionAttributeValues: { ...values, ':listedAt': launch.joinAt },
        ReturnValues: 'UPDATED_OLD',
      }),
    ));
  }
  // Listed at its join time: the day a caller looks for a scheduled meeting. A launch retried after a
  // failure past the meeting's update finds its own join time there and lists again (the same item).
  if (isFirstListing(before) || before?.listedAt === launch.joinAt) await listMeetingOnDay(table, botId, launch.joinAt);
}
