/**
 * The lease one lake day's compacted files are rewritten under: compaction's fold, an erasure
 * removing a meeting's rows, a late writer folding its rewrite. Each reads the day's compacted
 * file, changes it and PUTs it whole, so two at once would lose one's change (an erased meeting's
 * rows back in the file). The lease is one conditional put on `keys.lakeDayLease(day)` naming its
 * owner and an expiry; it is never renewed, so it is longer than any rewrite, and a holder that
 * crashed holds it only until it expires (the item then goes by TTL).
 */
import { randomUUID } from 'node:crypto';
import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { type TableAccess, writeIfCondition } from '../store/dynamo';
import { keys, TTL_ATTRIBUTE } from '../store/table-layout';

/**
 * Longer than any holder can run: the archive and compaction functions stop at 15 minutes (the
 * erase function at 5), so a lease that expired was held by a function that is gone, never by one
 * still about to PUT a file built from rows read before an erasure (which would bring them back).
 */
export const DAY_LEASE_MS = 16 * 60_000;
/**
 * How long a caller waits for a held lease before giving up: less than the erase function's 5
 * minutes, so a repeated erase call waits out a running erasure of the day (about 30 s on a large
 * compacted day) and still has time for its own rewrite. A caller that gives up fails its job,
 * which is retried; a job retried after its holder crashed waits for the lease to expire (the
 * erasure queue's redelivery comes after 30 minutes, past DAY_LEASE_MS).
 */
export const DAY_LEASE_WAIT_MS = 2 * 60_000;
const POLL_MS = 1000;

export interface DayLeaseOptions {
  leaseMs?: number;
  waitMs?: number;
  now(): Date;
  /** Waits between tries (tests pass one that only yields). */
  sleep?(ms: number): Promise<void>;
}

/** Another holder kept the day's lease for longer than the caller waits: the work is retried later. */
export class DayLeaseBusyError extends Error {
  override name = 'DayLeaseBusyError';
  constructor(readonly day: string) {
    super(`the lake day ${day} is being rewritten by another holder; try again later`);
  }
}

/**
 * Takes the lease if it is free or expired; false when it is held. Each call names an owner of its
 * own: two calls doing the same work (an erasure run twice at once) must not share the lease, or
 * the first to finish releases it while the other still rewrites from what it read under it.
 */
export async function takeDayLease(
  table: TableAccess,
  day: string,
  owner: string,
  options: Pick<DayLeaseOptions, 'leaseMs' | 'now'>,
): Promise<boolean> {
  const now = options.now().getTime();
  const until = now + (options.leaseMs ?? DAY_LEASE_MS);
  return writeIfCondition(() =>
    table.db.send(
      new PutCommand({
        TableName: table.tableName,
        Item: {
          ...keys.lakeDayLease(day),
          owner,
          leaseUntil: until,
          [TTL_ATTRIBUTE]: Math.ceil(until / 1000) + 3600,
        },
        ConditionExpression: 'attribute_not_exists(pk) OR leaseUntil < :now',
        ExpressionAttributeValues: { ':now': now },
      }),
    ),
  );
}

/** Releases the lease if this owner still holds it (an expired one taken over is the new owner's). */
export async function releaseDayLease(table: TableAccess, day: string, owner: string): Promise<void> {
  await writeIfCondition(() =>
    table.db.send(
      new DeleteCommand({
        TableName: table.tableName,
        Key: keys.lakeDayLease(day),
        ConditionExpression: '#owner = :owner',
        ExpressionAttributeNames: { '#owner': 'owner' },
        ExpressionAttributeValues: { ':owner': owner },
      }),
    ),
  );
}

/** Runs `work` holding the day's lease, waiting for it up to `waitMs`; released however `work` ends. */
export async function withDayLease<T>(
  table: TableAccess,
  day: string,
  options: DayLeaseOptions,
  work: () => Promise<T>,
): Promise<T> {
  const owner = randomUUID();
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  // Counted in tries, not by the clock: a stopped clock (a test's) still gives up.
  const tries = Math.max(1, Math.ceil((options.waitMs ?? DAY_LEASE_WAIT_MS) / POLL_MS));
  for (let attempt = 1; !(await takeDayLease(table, day, owner, options)); attempt++) {
    if (attempt >= tries) throw new DayLeaseBusyError(day);
    await sleep(POLL_MS);
  }
  try {
    return await work();
  } finally {
    await releaseDayLease(table, day, owner);
  }
}
