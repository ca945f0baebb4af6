import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { TableAccess } from '../store/dynamo';
import { keys } from '../store/table-layout';
import { erasedMessage, erasureOf } from '../store/tombstone';
import { notFound } from './read-errors';
import { type Item, partitionHasItems } from './table-reads';

/**
 * The bot's meeting item, or undefined for a bot known only by its other items or ledger records
 * (a transcript line or a webhook that came before any state). A bot with none of these is a 404, and
 * so is an erased one (its tombstone), saying so.
 */
export async function knownMeeting(table: TableAccess, botId: string): Promise<Item | undefined> {
  const { Item: meeting } = await table.db.send(
    new GetCommand({ TableName: table.tableName, Key: keys.meeting(botId) }),
  );
  const erasure = erasureOf(meeting);
  if (erasure !== undefined) throw notFound('meeting-erased', erasedMessage(botId, erasure));
  if (meeting !== undefined) return meeting;
  if (await holdsRecordsOf(table, botId)) return undefined;
  throw notFound('not-found', `no meeting is known for bot ${botId}: no webhook of it was received`);
}

/** Whether the table holds an item of the bot besides its meeting item, or a ledger record of its webhooks. */
export async function holdsRecordsOf(table: TableAccess, botId: string): Promise<boolean> {
  return (await partitionHasItems(table, keys.bot(botId))) || (await partitionHasItems(table, keys.eventsOfBot(botId)));
}
