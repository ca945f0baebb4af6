/** The table side of an erasure: keys of the meeting's partitions, and deleting them in batches. */
import { BatchWriteCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { TableAccess } from '../store/dynamo';
import { MEETING_SK } from '../store/table-layout';

export type ItemKey = { pk: string; sk: string };

/** Every item of a partition (the meeting item excepted: it becomes the tombstone), with `attributes`. */
export async function partitionItems(
  table: TableAccess,
  pk: string,
  attributes: readonly string[] = [],
): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let cursor: Record<string, unknown> | undefined;
  const names = Object.fromEntries(['pk', 'sk', ...attributes].map((name, i) => [`#a${i}`, name]));
  do {
    const page = await table.db.send(
      new QueryCommand({
        TableName: table.tableName,
        KeyConditionExpression: '#a0 = :pk',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: { ':pk': pk },
        ProjectionExpression: Object.keys(names).join(', '),
        ConsistentRead: true,
        ExclusiveStartKey: cursor,
      }),
    );
    for (const item of page.Items ?? []) if (item.sk !== MEETING_SK) items.push(item);
    cursor = page.LastEvaluatedKey;
  } while (cursor !== undefined);
  return items;
}

/** BatchWriteItem takes 25 requests; what it leaves unprocessed is sent again. */
const BATCH = 25;

export async function deleteItems(table: TableAccess, items: readonly ItemKey[]): Promise<void> {
  for (let start = 0; start < items.length; start += BATCH) {
    let requests = items.slice(start, start + BATCH).map(({ pk, sk }) => ({ DeleteRequest: { Key: { pk, sk } } }));
    while (requests.length > 0) {
      const { UnprocessedItems } = await table.db.send(
        new BatchWriteCommand({ RequestItems: { [table.tableName]: requests } }),
      );
      requests = (UnprocessedItems?.[table.tableName] ?? []) as typeof requests;
    }
  }
}

export const itemKey = (item: Record<string, unknown>): ItemKey => ({ pk: String(item.pk), sk: String(item.sk) });
