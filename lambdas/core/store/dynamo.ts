import {
  BatchGetCommand,
  type BatchGetCommandOutput,
  type DynamoDBDocumentClient,
  QueryCommand,
} from '@aws-sdk/lib-dynamodb';

export { isConditionFailed, writeIfCondition } from './condition';

/** The table and the client that reaches it; the core takes this instead of building clients. */
export interface TableAccess {
  db: DynamoDBDocumentClient;
  tableName: string;
}

/**
 * Every item under `pk` whose sort key starts with `prefix` (every item: ''), in key order, page
 * after page; read consistently unless told otherwise, projected when asked.
 */
export async function queryAllWithPrefix(
  table: TableAccess,
  pk: string,
  prefix: string,
  options: { consistent?: boolean; projection?: { expression: string; names?: Record<string, string> } } = {},
): Promise<Record<string, unknown>[]> {
  const { consistent = true, projection } = options;
  const items: Record<string, unknown>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await table.db.send(
      new QueryCommand({
        TableName: table.tableName,
        KeyConditionExpression: prefix === '' ? 'pk = :pk' : 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': pk, ...(prefix !== '' && { ':prefix': prefix }) },
        ...(consistent && { ConsistentRead: true }),
        ...(projection && {
          ProjectionExpression: projection.expression,
          ...(projection.names && { ExpressionAttributeNames: projection.names }),
        }),
        ...(start !== undefined && { ExclusiveStartKey: start }),
      }),
    );
    items.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start !== undefined);
  return items;
}

/** BatchGetItem's ceiling of keys per request. */
const BATCH_GET_KEYS = 100;

/**
 * The items at these keys (those that exist), `BATCH_GET_KEYS` per request; keys DynamoDB leaves
 * unprocessed (throttled) are asked again after a short, growing wait.
 */
export async function batchGetAll(
  table: TableAccess,
  itemKeys: readonly Record<string, unknown>[],
  options: { projection?: { expression: string; names?: Record<string, string> }; consistent?: boolean } = {},
): Promise<Record<string, unknown>[]> {
  const found: Record<string, unknown>[] = [];
  for (let i = 0; i < itemKeys.length; i += BATCH_GET_KEYS) {
    let request: Record<string, unknown>[] | undefined = itemKeys.slice(i, i + BATCH_GET_KEYS);
    for (let attempt = 0; request !== undefined && request.length > 0; attempt++) {
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, Math.min(1000, 50 * 2 ** attempt)));
      const answer: BatchGetCommandOutput = await table.db.send(
        new BatchGetCommand({
          RequestItems: {
            [table.tableName]: {
              Keys: request,
              ...(options.consistent && { ConsistentRead: true }),
              ...(options.projection && {
                ProjectionExpression: options.projection.expression,
                ...(options.projection.names && { ExpressionAttributeNames: options.projection.names }),
              }),
            },
          },
        }),
      );
      found.push(...(answer.Responses?.[table.tableName] ?? []));
      request = answer.UnprocessedKeys?.[table.tableName]?.Keys;
    }
  }
  return found;
}
