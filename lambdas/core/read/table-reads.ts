/** The read core's queries on one partition: every item of a kind, a count, or whether any exists. */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { queryAllWithPrefix, type TableAccess } from '../store/dynamo';

export type Item = Record<string, unknown>;

/** How the read core reads: eventually consistent (half the cost) unless a writer reads back what it just wrote. */
export interface ReadConsistency {
  consistent: boolean;
}
export const EVENTUALLY_CONSISTENT: ReadConsistency = { consistent: false };

/** Every item under `pk` whose sort key starts with `prefix` (every item: ''), in key order, page after page. */
export async function itemsWithPrefix(
  table: TableAccess,
  pk: string,
  prefix: string,
  projection?: { expression: string; names?: Record<string, string> },
  reads: ReadConsistency = EVENTUALLY_CONSISTENT,
): Promise<Item[]> {
  return queryAllWithPrefix(table, pk, prefix, { consistent: reads.consistent, ...(projection && { projection }) });
}

/** How many items under `pk` start with `prefix`: Select COUNT, so no item crosses the wire. */
export async function countWithPrefix(table: TableAccess, pk: string, prefix: string): Promise<number> {
  let count = 0;
  let start: Record<string, unknown> | undefined;
  do {
    const page = await table.db.send(
      new QueryCommand({
        TableName: table.tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': pk, ':prefix': prefix },
        Select: 'COUNT',
        ExclusiveStartKey: start,
      }),
    );
    count += page.Count ?? 0;
    start = page.LastEvaluatedKey;
  } while (start !== undefined);
  return count;
}

/** Whether the partition holds any item: one key read at most. */
export async function partitionHasItems(table: TableAccess, pk: string): Promise<boolean> {
  const page = await table.db.send(
    new QueryCommand({
      TableName: table.tableName,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': pk },
      ProjectionExpression: 'pk',
      Limit: 1,
    }),
  );
  return (page.Items?.length ?? 0) > 0;
}
