/** Reading and writing the tombstone (store/tombstone.ts says what it is). */
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { LAKE_ATTRIBUTE, type LakeRecord } from '../lake/lake-contract';
import { type TableAccess, writeIfCondition } from '../store/dynamo';
import { ERASURE_ATTRIBUTE, keys } from '../store/table-layout';
import { erasureOf } from '../store/tombstone';
import type { EraseDependencies } from './erase-dependencies';
import type { ErasureLeads } from './inventory';
import type { ErasureReason } from './receipt';

export async function readTombstone(table: TableAccess, botId: string): Promise<Record<string, unknown> | undefined> {
  const { Item } = await table.db.send(
    new GetCommand({ TableName: table.tableName, Key: keys.meeting(botId), ConsistentRead: true }),
  );
  return Item;
}

/** What the meeting item names that the sweeps need: the attributes the intent's write is conditional on. */
const LEAD_ATTRIBUTES = ['listedAt', 'scheduleId'] as const satisfies readonly (keyof ErasureLeads)[];

/**
 * The meeting's first state change or its launch may create the item, or set its listing time, between
 * the read and this write: each try is conditional on the leads read, and one that lost reads again.
 * A lead is set once (`if_not_exists`), so a few tries always settle.
 */
const INTENT_TRIES = 5;

/**
 * Replaces the meeting item (read just before) by the tombstone with the erasure's intent,
 * unless another erasure wrote one first: then that one is read and continued. The replace is
 * conditional on the leads read (the listing time, the schedule id), so a writer that created
 * or listed the meeting meanwhile makes it read again rather than lose them: a lead lost is a
 * day listing no sweep finds.
 */
export async function writeIntent(
  botId: string,
  reason: ErasureReason,
  meeting: Record<string, unknown> | undefined,
  deps: EraseDependencies,
): Promise<Record<string, unknown> | undefined> {
  let read = meeting;
  for (let attempt = 1; attempt <= INTENT_TRIES; attempt++) {
    const leads: ErasureLeads = {};
    const values: Record<string, string> = {};
    const conditions = ['attribute_not_exists(#erasure)'];
    for (const name of LEAD_ATTRIBUTES) {
      const value = read?.[name];
      if (typeof value === 'string') {
        leads[name] = value;
        values[`:${name}`] = value;
        conditions.push(`${name} = :${name}`);
      } else {
        conditions.push(`attribute_not_exists(${name})`);
      }
    }
    // Not a condition: the lake's day is also its listing time's, which is one.
    const lakeDay = (read?.[LAKE_ATTRIBUTE] as Partial<LakeRecord> | undefined)?.day;
    if (typeof lakeDay === 'string') leads.lakeDay = lakeDay;
    const item = {
      ...keys.meeting(botId),
      botId,
      [ERASURE_ATTRIBUTE]: {
        receiptId: deps.newId(),
        reason,
        requestedAt: deps.now().toISOString(),
        status: 'erasing',
      },
      erasurePlan: leads,
    };
    const written = await writeIfCondition(() =>
      deps.table.db.send(
        new PutCommand({
          TableName: deps.table.tableName,
          Item: item,
          ConditionExpression: conditions.join(' AND '),
          ExpressionAttributeNames: { '#erasure': ERASURE_ATTRIBUTE },
          ...(Object.keys(values).length > 0 && { ExpressionAttributeValues: values }),
        }),
      ),
    );
    if (written) return item;
    read = await readTombstone(deps.table, botId);
    if (erasureOf(read) !== undefined) return read; // another erasure's intent: continue it
  }
  throw new Error(`meeting ${botId} changed under its erasure ${INTENT_TRIES} times running; try again`);
}
