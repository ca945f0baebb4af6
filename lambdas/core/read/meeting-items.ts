import { batchGetAll, type TableAccess } from '../store/dynamo';
import { keys } from '../store/table-layout';
import type { Item } from './table-reads';

/** Meeting items by bot, projected to `attributes` (a bot without one is absent from the map). */
export async function meetingItems(
  table: TableAccess,
  botIds: readonly string[],
  attributes: readonly string[],
): Promise<Map<string, Item>> {
  const items = await batchGetAll(
    table,
    botIds.map((bot) => keys.meeting(bot)),
    {
      projection: { expression: [...attributes, 'pk'].join(', '), names: { '#state': 'state', '#archive': 'archive' } },
    },
  );
  return new Map(items.map((item) => [String(item.pk).slice(keys.bot('').length), item as Item]));
}
