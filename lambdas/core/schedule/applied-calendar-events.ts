/**
 * Calendar events from EventBridge applied once each. EventBridge delivers an event
 * at least once, and Lambda retries a failed invocation: the same event (same id)
 * can come again after later events of its schedule were applied, and an Upserted
 * applied again would bring a cancelled meeting back. So each event id is taken
 * before the change is made and marked applied after; a delivery finding it applied
 * changes nothing. A taking held by an invocation that died expires after a lease,
 * so the event is never lost, only delayed to its next retry.
 */
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { type TableAccess, writeIfCondition } from '../store/dynamo';
import { keys, TTL_ATTRIBUTE } from '../store/table-layout';

/** Longer than the schedules function's timeout (15 s, lib/bot-scheduler.ts), shorter than Lambda's first retry. */
export const CALENDAR_EVENT_LEASE_MS = 45_000;
/** Event ids are kept beyond EventBridge's retries and Lambda's (2 h each, lib/bot-scheduler.ts). */
export const CALENDAR_EVENT_IDS_KEPT_SECONDS = 86_400;

/** `apply`: this delivery makes the change; `applied`: an earlier one did; `in-flight`: another delivery is making it. */
export type CalendarEventTurn = 'apply' | 'applied' | 'in-flight';

export async function takeCalendarEvent(
  table: TableAccess,
  scheduleId: string,
  eventId: string,
  nowMs: number,
): Promise<CalendarEventTurn> {
  const Key = keys.appliedCalendarEvent(scheduleId, eventId);
  const taken = await writeIfCondition(() =>
    table.db.send(
      new PutCommand({
        TableName: table.tableName,
        Item: {
          ...Key,
          state: 'applying',
          leaseUntil: nowMs + CALENDAR_EVENT_LEASE_MS,
          [TTL_ATTRIBUTE]: Math.floor(nowMs / 1000) + CALENDAR_EVENT_IDS_KEPT_SECONDS,
        },
        ConditionExpression: 'attribute_not_exists(pk) OR (#state = :applying AND leaseUntil < :now)',
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: { ':applying': 'applying', ':now': nowMs },
      }),
    ),
  );
  if (taken) return 'apply';
  const { Item } = await table.db.send(new GetCommand({ TableName: table.tableName, Key, ConsistentRead: true }));
  return Item?.state === 'applied' ? 'applied' : 'in-flight';
}

export async function markCalendarEventApplied(table: TableAccess, scheduleId: string, eventId: string): Promise<void> {
  await table.db.send(
    new UpdateCommand({
      TableName: table.tableName,
      Key: keys.appliedCalendarEvent(scheduleId, eventId),
      UpdateExpression: 'SET #state = :applied REMOVE leaseUntil',
      ExpressionAttributeNames: { '#state': 'state' },
      ExpressionAttributeValues: { ':applied': 'applied' },
    }),
  );
}

/** The change failed and will be retried: let the retry take the event at once instead of after the lease. */
export async function releaseCalendarEvent(table: TableAccess, scheduleId: string, eventId: string): Promise<void> {
  await writeIfCondition(() =>
    table.db.send(
      new UpdateCommand({
        TableName: table.tableName,
        Key: keys.appliedCalendarEvent(scheduleId, eventId),
        UpdateExpression: 'SET leaseUntil = :expired',
        ConditionExpression: '#state = :applying',
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: { ':applying': 'applying', ':expired': 0 },
      }),
    ),
  );
}
