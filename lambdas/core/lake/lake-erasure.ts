/**
 * A meeting's rows out of the lake, for the erasure (erase/sweep.ts) and its stock-take:
 *  - its recent files, every version (3 tables);
 *  - under the day's lease (compaction and another erasure rewrite the same files), each compacted
 *    file of the day rewritten without its rows, and the file's older versions deleted: they hold
 *    the rows too. A file with older versions is rewritten even without rows of the meeting, so an
 *    erasure cut off between its PUT and its deletes leaves nothing when run again;
 *  - every Athena result under the results prefix, every version (walkResults says why: a day's
 *    cache, listed and batch-deleted, never read).
 * The same walk counts (dry run, for the receipt) and deletes, so both find the same things.
 */
import { versionsOfKey } from '../store/object-versions';
import { withDayLease } from './day-lease';
import type { LakeMaintenanceDependencies } from './lake-compaction';
import type { LakeErasureCounts } from './lake-contract';
import { LAKE_RESULTS_PREFIX, lakeKeys } from './lake-layout';
import { LAKE_TABLE_NAMES } from './lake-tables';
import { decodeLakeRows, encodeLakeRows } from './parquet-codec';

export type LakeEraseDependencies = Pick<
  LakeMaintenanceDependencies,
  'table' | 'objects' | 'telemetry' | 'now' | 'lease' | 'afterStep'
>;

const noCounts = (): LakeErasureCounts => ({ lake_rows: 0, lake_objects: 0, query_results: 0 });

/** Removes the bot's rows from the days' files and the results that name it; what was removed. */
export async function eraseFromLake(
  botId: string,
  days: string | readonly string[],
  deps: LakeEraseDependencies,
): Promise<LakeErasureCounts> {
  return walkLake(botId, days, deps, true);
}

/** What eraseFromLake would remove now (the receipt's counts, taken before anything is deleted). */
export async function countLakeTraces(
  botId: string,
  days: string | readonly string[],
  deps: LakeEraseDependencies,
): Promise<LakeErasureCounts> {
  return walkLake(botId, days, deps, false);
}

async function walkLake(
  botId: string,
  days: string | readonly string[],
  deps: LakeEraseDependencies,
  apply: boolean,
): Promise<LakeErasureCounts> {
  const counts = noCounts();
  for (const day of new Set([days].flat())) {
    const walk = () => walkDay(botId, day, deps, apply, counts);
    // Counting changes nothing: no lease. Deleting holds it against a fold or any other erasure,
    // another run of this one included (day-lease.ts says why each call is its own owner).
    if (apply && (await dayHasFiles(botId, day, deps)))
      await withDayLease(deps.table, day, { ...deps.lease, now: deps.now }, walk);
    else if (!apply) await walk();
  }
  counts.query_results = await walkResults(deps, apply);
  return counts;
}

async function walkDay(
  botId: string,
  day: string,
  deps: LakeEraseDependencies,
  apply: boolean,
  counts: LakeErasureCounts,
): Promise<void> {
  const { objects } = deps;
  for (const table of LAKE_TABLE_NAMES) {
    const key = lakeKeys.recentFile(table, day, botId);
    const versions = await versionsOfKey(objects, objects.bucket, key);
    if (versions.length === 0) continue;
    const current = await objects.get(key);
    if (current !== null) counts.lake_rows += (await decodeLakeRows(table, current.body)).length;
    counts.lake_objects += versions.length;
    if (apply) await objects.deleteVersions(objects.bucket, versions);
  }
  for (const table of LAKE_TABLE_NAMES) {
    const key = lakeKeys.compactedFile(table, day);
    const versions = await versionsOfKey(objects, objects.bucket, key);
    if (versions.length === 0) continue;
    const current = await objects.get(key);
    const rows = current === null ? [] : await decodeLakeRows(table, current.body);
    const kept = rows.filter((row) => row.bot_id !== botId);
    const removed = rows.length - kept.length;
    if (removed === 0 && versions.length === 1 && current !== null) continue; // one clean version
    counts.lake_rows += removed;
    counts.lake_objects += versions.length;
    if (!apply) continue;
    // The new version first, then every older one: a query never finds the day's file missing.
    if (kept.length > 0) await objects.put(key, encodeLakeRows(table, kept));
    // An unversioned bucket (local mode's S3) lists its one copy as version `null`: the PUT above
    // replaced it in place, so deleting it would delete the rewritten file. (The stack's bucket is
    // versioned from its creation: it never holds a `null` version.)
    const older = kept.length > 0 ? versions.filter((version) => version.versionId !== 'null') : versions;
    await objects.deleteVersions(objects.bucket, older);
    await deps.afterStep?.(`erased from ${table}`);
  }
}

/** Whether the day has a compacted file or a recent file of the bot (else nothing to take the lease for). */
async function dayHasFiles(botId: string, day: string, deps: LakeEraseDependencies): Promise<boolean> {
  const { objects } = deps;
  for (const table of LAKE_TABLE_NAMES) {
    if ((await versionsOfKey(objects, objects.bucket, lakeKeys.recentFile(table, day, botId))).length > 0) return true;
    if ((await versionsOfKey(objects, objects.bucket, lakeKeys.compactedFile(table, day))).length > 0) return true;
  }
  return false;
}

/**
 * Every Athena result, every version: they are a cache that expires in a day, and one may hold the
 * meeting's words without naming its bot (a `query` of text, a talk-time table), so reading them
 * for the bot id could neither be complete nor bounded. A query that ran before the erasure and
 * writes its result after this sweep is caught by the second sweep.
 */
async function walkResults(deps: LakeEraseDependencies, apply: boolean): Promise<number> {
  const { objects } = deps;
  const versions = await objects.listVersions(objects.bucket, LAKE_RESULTS_PREFIX);
  if (apply && versions.length > 0) await objects.deleteVersions(objects.bucket, versions);
  return new Set(versions.map(({ key }) => key)).size;
}
