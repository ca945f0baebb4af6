import { BatchGetCommand, type BatchGetCommandOutput } from '@aws-sdk/lib-dynamodb';
import type { TableAccess } from '../store/dynamo';
import { keys } from '../store/table-layout';
import type { Item } from './table-reads';

/** BatchGetItem's ceiling of keys per request. */
const BATCH_KEYS = 100;

/** Meeting items by bot, projected to `attributes` (a bot without one is absent from the map). */
export async function meetingItems(
  table: TableAccess,
  botIds: readonly string[],
  attributes: readonly string[],
): Promise<Map<string, Item>> {
  const found = new Map<string, Item>();
  const projection = [...attributes, 'pk'].join(', ');
  const names = { '#state': 'state', '#archive': 'archive' };
  for (let i = 0; i < botIds.length; i += BATCH_KEYS) {
    let request: Record<string, unknown>[] | undefined = botIds
      .slice(i, i + BATCH_KEYS)
      .map((bot) => keys.meeting(bot));
    for (let attempt = 0; request !== undefined && request.length > 0; attempt++) {
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, Math.min(1000, 50 * 2 ** attempt)));
      const answer: BatchGetCommandOutput = await table.db.send(
        new BatchGetCommand({
          RequestItems: {
            [table.tableName]: { Keys: request, ProjectionExpression: projection, ExpressionAttributeNames: names },
          },
        }),
      );
      for (const item of answer.Responses?.[table.tableName] ?? []) {
        found.set(String(item.pk).slice(keys.bot('').length), item);
      }
      // Throttled keys come back unprocessed: asked again after a short wait.
      request = answer.UnprocessedKeys?.[table.tableName]?.Keys;
    }
  }
  return found;
}
