import { PutCommand } from '@aws-sdk/lib-dynamodb';
import type { TableAccess } from '../store/dynamo';
import { keys } from '../store/table-layout';
import { isoToMicros } from './state-order';

/**
 * Set on the meeting item in the same update that creates it (`if_not_exists`), and asked back as
 * UPDATED_OLD: absent before means this write created the meeting and lists it (table-layout.ts).
 */
export const LISTED_AT_UPDATE = 'listedAt = if_not_exists(listedAt, :listedAt)';

/** True when the update's UPDATED_OLD values show the meeting had no listing time yet. */
export const isFirstListing = (before: Record<string, unknown> | undefined): boolean => before?.listedAt === undefined;

/**
 * The meeting's day-listing item, once per meeting (the caller knows it created the meeting). A launch
 * retried after a crash between the meeting's update and this put lists again (its `listedAt` is its own
 * join time); so does a state change's redelivery, which the state order refuses: it reads the meeting's
 * `listedAt`, and when that is its own `created_at` it lists again. The put is idempotent (same key).
 */
export async function listMeetingOnDay(table: TableAccess, botId: string, listedAt: string): Promise<void> {
  await table.db.send(
    new PutCommand({
      TableName: table.tableName,
      Item: { ...keys.dayListing(isoToMicros(listedAt), botId), botId, listedAt },
    }),
  );
}
