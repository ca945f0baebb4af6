/**
 * A lease kept on an existing item (a calendar source, a company user): its expiry and an owner
 * token drawn anew at each take. Release removes it only while that token still holds it: a holder
 * that outran its lease (a stalled call, a clock ahead) must not free the lease another took over
 * since, or a third would run beside the second.
 */
import { randomUUID } from 'node:crypto';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { type TableAccess, writeIfCondition } from './dynamo';

const UNTIL = 'syncLeaseUntil';
const OWNER = 'syncLeaseOwner';

/** Who holds a lease taken by takeItemLease: given back to releaseItemLease. */
export type LeaseToken = string & { readonly __lease: unique symbol };

type Key = Record<string, string>;

/** The lease, if the item exists and no one holds it (or its holder's time ran out); undefined otherwise. */
export async function takeItemLease(
  table: TableAccess,
  key: Key,
  nowMs: number,
  forMs: number,
): Promise<LeaseToken | undefined> {
  const token = randomUUID() as LeaseToken;
  const taken = await writeIfCondition(() =>
    table.db.send(
      new UpdateCommand({
        TableName: table.tableName,
        Key: key,
        UpdateExpression: 'SET #until = :until, #owner = :owner',
        ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(#until) OR #until < :now)',
        ExpressionAttributeNames: { '#until': UNTIL, '#owner': OWNER },
        ExpressionAttributeValues: { ':until': nowMs + forMs, ':now': nowMs, ':owner': token },
      }),
    ),
  );
  return taken ? token : undefined;
}

/** Frees the lease if `token` still holds it (gone with the item, or taken over since: nothing to do). */
export async function releaseItemLease(table: TableAccess, key: Key, token: LeaseToken): Promise<void> {
  await writeIfCondition(() =>
    table.db.send(
      new UpdateCommand({
        TableName: table.tableName,
        Key: key,
        UpdateExpression: 'REMOVE #until, #owner',
        ConditionExpression: '#owner = :owner',
        ExpressionAttributeNames: { '#until': UNTIL, '#owner': OWNER },
        ExpressionAttributeValues: { ':owner': token },
      }),
    ),
  );
}

/** The item without its lease attributes (what the item describes, not who works on it). */
export function withoutLease<T extends Record<string, unknown>>(item: T): Omit<T, typeof UNTIL | typeof OWNER> {
  const { [UNTIL]: _until, [OWNER]: _owner, ...rest } = item;
  return rest;
}
