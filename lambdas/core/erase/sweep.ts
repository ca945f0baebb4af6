/**
 * Deleting everything of a meeting but its tombstone. Every step lists what is there
 * now and deletes it, so a sweep run again after a crash (or as the delayed second
 * sweep) finishes the work and does nothing twice. Objects go first: the ledger
 * records are what point to claim-checked bodies.
 */
import { DeleteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { eraseFromLake } from '../lake/lake-erasure';
import { writeIfCondition } from '../store/dynamo';
import { versionsOfKey } from '../store/object-versions';
import { keys } from '../store/table-layout';
import type { EraseDependencies } from './erase-dependencies';
import {
  claimCheckKeys,
  dayListingKey,
  type ErasurePlan,
  feedCopyKey,
  lakeDaysOf,
  lakeOf,
  meetingPrefixes,
} from './inventory';
import { deleteItems, itemKey, partitionItems } from './table-sweep';

/** What one sweep removed (the delayed sweep reports it: anything there was written late). */
export interface SweepResult {
  items: number;
  objects: number;
}

/** `listedAt`: every listing time known of the meeting (the plan's, and one a late writer set on the tombstone). */
export async function sweepMeeting(
  botId: string,
  plan: Omit<ErasurePlan, 'listedAt'> & { listedAt?: string | readonly string[] },
  deps: EraseDependencies,
): Promise<SweepResult> {
  const { table, objects } = deps;
  const ledger = await partitionItems(table, keys.eventsOfBot(botId), ['bodyRef']);
  let removedObjects = 0;
  // Records written since the plan was made may point to bodies of their own.
  for (const key of new Set([...(plan.payloadKeys ?? []), ...claimCheckKeys(ledger, deps)])) {
    const versions = await versionsOfKey(objects, deps.payloadBucket, key);
    if (versions.length > 0) await objects.deleteVersions(deps.payloadBucket, versions);
    removedObjects += versions.length;
  }
  for (const { bucket, prefix } of meetingPrefixes(botId, deps)) {
    const versions = await objects.listVersions(bucket, prefix);
    if (versions.length > 0) await objects.deleteVersions(bucket, versions);
    removedObjects += versions.length;
  }
  if (deps.lake !== undefined) {
    const lake = await eraseFromLake(botId, lakeDaysOf(plan), lakeOf(deps, deps.lake));
    removedObjects += lake.lake_objects + lake.query_results;
  }
  // After the lake's objects are deleted and rewritten: a mirror resynced earlier would fetch them back.
  await deps.lakeCopies?.resync();

  const items = [...ledger, ...(await partitionItems(table, keys.bot(botId)))].map(itemKey);
  await deleteItems(table, items);
  let listings = 0;
  for (const listedAt of new Set([plan.listedAt ?? []].flat())) listings += await deleteListing(deps, botId, listedAt);
  if (plan.scheduleId !== undefined) await unlinkSchedule(deps, plan.scheduleId, botId);
  const feed = await feedCopyKey(plan, deps);
  if (feed !== undefined) await deps.table.db.send(new DeleteCommand({ TableName: deps.table.tableName, Key: feed }));
  return { items: items.length + listings + (feed === undefined ? 0 : 1), objects: removedObjects };
}

/** 1 when the listing was there: the second sweep counts only what it found. */
async function deleteListing(deps: EraseDependencies, botId: string, listedAt: string): Promise<number> {
  const { Attributes } = await deps.table.db.send(
    new DeleteCommand({
      TableName: deps.table.tableName,
      Key: dayListingKey(botId, listedAt),
      ReturnValues: 'ALL_OLD',
    }),
  );
  return Attributes === undefined ? 0 : 1;
}

/** The schedule stays (it is the caller's, keyed by their id); only its link to the bot goes. */
async function unlinkSchedule(deps: EraseDependencies, scheduleId: string, botId: string): Promise<void> {
  await writeIfCondition(() =>
    deps.table.db.send(
      new UpdateCommand({
        TableName: deps.table.tableName,
        Key: keys.schedule(scheduleId),
        UpdateExpression: 'REMOVE botId',
        ConditionExpression: 'botId = :bot',
        ExpressionAttributeValues: { ':bot': botId },
      }),
    ),
  );
}
