/**
 * A meeting's rows out of the lake, for the erasure (erase/sweep.ts) and its stock-take:
 *  - its recent files, every version (3 tables);
 *  - under the day's lease (compaction and another erasure rewrite the same files), each compacted
 *    file of the day rewritten without its rows, and the file's older versions deleted: they hold
 *    the rows too. A file with older versions is rewritten even without rows of the meeting, so an
 *    erasure cut off between its PUT and its deletes leaves nothing when run again;
 *  - Athena's results naming the bot (a search's CSV, its `.metadata`), every version. The results
 *    expire after a day, so the prefix is small; the scan is bounded all the same (RESULTS_SCAN).
 * The same walk counts (dry run, for the receipt) and deletes, so both find the same things.
 */
import { versionsOfKey } from '../erase/object-versions';
import { withDayLease } from './day-lease';
import type { LakeMaintenanceDependencies } from './lake-compaction';
import type { LakeErasureCounts } from './lake-contract';
import { LAKE_RESULTS_PREFIX, lakeKeys } from './lake-layout';
import { LAKE_TABLE_NAMES } from './lake-tables';
import { decodeLakeRows, encodeLakeRows } from './parquet-codec';

/** Results read at most per erasure: a day of searches at a few hundred a day, each a small CSV. */
export const RESULTS_SCAN = { maxObjects: 2000, maxBytes: 256 * 1024 * 1024 } as const;
/** Athena writes `<query id>.csv` and `<query id>.csv.metadata` side by side. */
const METADATA_SUFFIX = '.metadata';

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
    // Counting changes nothing: no lease. Deleting holds it against a fold or another erasure, as
    // the erasure of this bot: its retry after a crash takes it back rather than wait for it to expire.
    if (apply && (await dayHasFiles(botId, day, deps)))
      await withDayLease(deps.table, day, { ...deps.lease, owner: `erase:${botId}`, now: deps.now }, walk);
    else if (!apply) await walk();
  }
  counts.query_results = await walkResults(botId, deps, apply);
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

/** Query results whose bytes name the bot (and each one's metadata file), every version. */
async function walkResults(botId: string, deps: LakeEraseDependencies, apply: boolean): Promise<number> {
  const { objects } = deps;
  const listed = (await objects.list(LAKE_RESULTS_PREFIX)).sort((a, b) => a.key.localeCompare(b.key));
  const present = new Set(listed.map(({ key }) => key));
  const needle = Buffer.from(botId, 'utf8');
  const naming = new Set<string>();
  let read = 0;
  let bytes = 0;
  for (const { key, bytes: size } of listed) {
    if (read >= RESULTS_SCAN.maxObjects || bytes + size > RESULTS_SCAN.maxBytes) {
      deps.telemetry.log.warn('query results left unscanned by an erasure; they expire on their own', {
        bot_id: botId,
        scanned: read,
        unscanned: listed.length - read,
        limit_objects: RESULTS_SCAN.maxObjects,
        limit_bytes: RESULTS_SCAN.maxBytes,
      });
      break;
    }
    read++;
    bytes += size;
    const file = await objects.get(key);
    if (file === null || !Buffer.from(file.body).includes(needle)) continue;
    naming.add(key);
    const pair = key.endsWith(METADATA_SUFFIX) ? key.slice(0, -METADATA_SUFFIX.length) : `${key}${METADATA_SUFFIX}`;
    if (present.has(pair)) naming.add(pair);
  }
  if (apply) {
    for (const key of naming) {
      const versions = await versionsOfKey(objects, objects.bucket, key);
      if (versions.length > 0) await objects.deleteVersions(objects.bucket, versions);
    }
  }
  return naming.size;
}
