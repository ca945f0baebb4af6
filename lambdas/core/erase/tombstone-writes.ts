/** Reading and writing the tombstone (store/tombstone.ts says what it is). */
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { type TableAccess, writeIfCondition } from '../store/dynamo';
import { ERASURE_ATTRIBUTE, keys } from '../store/table-layout';
import type { EraseDependencies } from './erase-dependencies';
import type { ErasureLeads } from './inventory';
import type { ErasureReason } from './receipt';

export async function readTombstone(table: TableAccess, botId: string): Promise<Record<string, unknown> | undefined> {
  const { Item } = await table.db.send(
    new GetCommand({ TableName: table.tableName, Key: keys.meeting(botId), ConsistentRead: true }),
  );
  return Item;
}

/**
 * Replaces the meeting item (read just before) by the tombstone with the erasure's
 * intent, unless another erasure wrote one first: then that one is read and continued.
 */
export async function writeIntent(
  botId: string,
  reason: ErasureReason,
  meeting: Record<string, unknown> | undefined,
  deps: EraseDependencies,
): Promise<Record<string, unknown> | undefined> {
  const leads: ErasureLeads = {
    ...(typeof meeting?.listedAt === 'string' && { listedAt: meeting.listedAt }),
    ...(typeof meeting?.scheduleId === 'string' && { scheduleId: meeting.scheduleId }),
  };
  const item = {
    ...keys.meeting(botId),
    botId,
    [ERASURE_ATTRIBUTE]: { receiptId: deps.newId(), reason, requestedAt: deps.now().toISOString(), status: 'erasing' },
    erasurePlan: leads,
  };
  const written = await writeIfCondition(() =>
    deps.table.db.send(
      new PutCommand({
        TableName: deps.table.tableName,
        Item: item,
        ConditionExpression: 'attribute_not_exists(#erasure)',
        ExpressionAttributeNames: { '#erasure': ERASURE_ATTRIBUTE },
      }),
    ),
  );
  return written ? item : readTombstone(deps.table, botId);
}
