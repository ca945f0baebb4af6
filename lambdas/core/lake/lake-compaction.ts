/**
 * Compaction: a closed day's per-meeting recent files folded into one compacted file per table, so a
 * year is ~1,100 objects, not ~2 M. The order is what keeps every query exact (lake-layout.ts):
 *  1. foldDay writes the day's compacted files while the mark is before the day (nobody reads them);
 *  2. the mark (`compacted_through`) moves to the day in one PUT: queries switch tiers at once;
 *  3. foldDay again: now that the mark covers the day, it deletes the recent versions it merged.
 *     A writer that put a recent file before the mark moved, and read the mark before it moved,
 *     did not fold its rows itself: this fold merges them. A writer that reads the mark after it
 *     moved folds its own rows (createDayFolder is its `fold`).
 * A fold holds the day's lease (day-lease.ts), as erasure does, so neither loses the other's rewrite.
 * It deletes exactly the recent versions it listed before reading them: one written meanwhile stays,
 * for the next fold (folding the same rows twice changes nothing: a bot's rows are replaced whole).
 */
import type { ObjectVersion } from '../store/object-versions';
import { METRICS } from '../telemetry';
import { type DayLeaseOptions, withDayLease } from './day-lease';
import type { LakeDependencies, LakeSettings } from './lake-contract';
import { lakeDayOf, lakeKeys, NOTHING_COMPACTED, parseRecentKey } from './lake-layout';
import { nextLakeDay, readCompactedThrough, writeCompactedThrough } from './lake-state';
import { LAKE_TABLE_NAMES, type LakeRow, type LakeTableName } from './lake-tables';
import { decodeLakeRows, encodeLakeRows } from './parquet-codec';

/** What compaction and the other maintenance functions take. */
export interface LakeMaintenanceDependencies extends LakeDependencies {
  /** Waiting for a day's lease (tests shorten it). */
  lease?: Pick<DayLeaseOptions, 'waitMs' | 'leaseMs' | 'sleep'>;
  /** Called after each step that changes what a query reads (tests check the views there). */
  afterStep?(step: string): Promise<void> | void;
}

export interface FoldOutcome {
  day: string;
  /** Meetings whose recent files were merged. */
  meetings: number;
  /** Rows in the day's compacted files after the fold, by table. */
  rows: Record<LakeTableName, number>;
  /** Recent object versions deleted (only once the mark covers the day). */
  recentVersionsDeleted: number;
}

/** Days one run compacts at most (a backlog after an outage drains over a few runs). */
export const MAX_DAYS_PER_RUN = 31;
/** The lease the mark moves under: two runs never move it out of order. */
const MARK_LEASE = 'compacted_through';
const DAY_MS = 86_400_000;

const leaseOptions = (deps: LakeMaintenanceDependencies): DayLeaseOptions => ({ ...deps.lease, now: deps.now });

/**
 * Merges the day's recent files into its compacted files, one PUT per table: a meeting with a
 * recent file has its compacted rows replaced by the recent ones (a rewrite replaces, never adds).
 * Deletes the merged recent versions only when the mark already covers the day.
 */
export async function foldDay(day: string, deps: LakeMaintenanceDependencies): Promise<FoldOutcome> {
  const { objects } = deps;
  return withDayLease(deps.table, day, leaseOptions(deps), async () => {
    const listed: ObjectVersion[] = [];
    const recentRows = emptyByTable<LakeRow[]>(() => []);
    const bots = new Set<string>();
    for (const table of LAKE_TABLE_NAMES) {
      const versions = await objects.listVersions(objects.bucket, lakeKeys.dayPrefix('recent', table, day));
      for (const key of new Set(versions.map((version) => version.key))) {
        const recent = parseRecentKey(key);
        if (recent === undefined || recent.day !== day) continue; // not a file this fold owns
        listed.push(...versions.filter((version) => version.key === key));
        // Read after listing: the bytes are those of a listed version or of a newer one, never older.
        const file = await objects.get(key);
        if (file === null) continue; // deleted (an erasure): its versions go with the others
        bots.add(recent.botId);
        recentRows[table].push(...(await decodeLakeRows(table, file.body)));
      }
    }
    const rows = emptyByTable(() => 0);
    for (const table of LAKE_TABLE_NAMES) {
      const key = lakeKeys.compactedFile(table, day);
      const compacted = await objects.get(key);
      const kept = compacted === null ? [] : await decodeLakeRows(table, compacted.body);
      if (bots.size === 0 && recentRows[table].length === 0) {
        rows[table] = kept.length;
        continue; // nothing to merge: the file (if any) stays as it is
      }
      const merged = [...kept.filter((row) => !bots.has(String(row.bot_id))), ...recentRows[table]];
      if (compacted === null && merged.length === 0) continue; // no rows of this table that day
      await objects.put(key, encodeLakeRows(table, merged));
      rows[table] = merged.length;
      await deps.afterStep?.(`compacted ${table}`);
    }
    let recentVersionsDeleted = 0;
    // Read after the compacted files were written: a mark that covers the day now covers it for good.
    if (listed.length > 0 && day <= (await readCompactedThrough(objects))) {
      await objects.deleteVersions(objects.bucket, listed);
      recentVersionsDeleted = listed.length;
      await deps.afterStep?.('recent deleted');
    }
    return { day, meetings: bots.size, rows, recentVersionsDeleted };
  });
}

/** Thrown when moving the mark would skip a day that was never compacted. */
export class CompactionOrderError extends Error {
  override name = 'CompactionOrderError';
}

/** Moves `compacted_through` to `day`: only forward, only from the day before. False if it is there already. */
export async function moveCompactedThrough(day: string, deps: LakeMaintenanceDependencies): Promise<boolean> {
  return withDayLease(deps.table, MARK_LEASE, leaseOptions(deps), async () => {
    const mark = await readCompactedThrough(deps.objects);
    if (day <= mark) return false;
    if (mark !== NOTHING_COMPACTED && nextLakeDay(mark) !== day)
      throw new CompactionOrderError(`compacted_through is ${mark}: compacting ${day} would skip ${nextLakeDay(mark)}`);
    await writeCompactedThrough(deps.objects, day);
    await deps.afterStep?.('mark moved');
    return true;
  });
}

export interface CompactDayOutcome {
  day: string;
  /** The second fold's outcome: the day as it stays. */
  fold: FoldOutcome;
  markMoved: boolean;
}

/** Folds the day, moves the mark to it, folds again (the header says why twice). */
export async function compactDay(day: string, deps: LakeMaintenanceDependencies): Promise<CompactDayOutcome> {
  await foldDay(day, deps);
  const markMoved = await moveCompactedThrough(day, deps);
  const fold = await foldDay(day, deps);
  return { day, fold, markMoved };
}

export interface CompactionRun {
  /** The mark after the run. */
  compactedThrough: string;
  /** The last day that ended `compactAfterHours` ago. */
  lastClosedDay: string;
  daysCompacted: string[];
  /** Closed days still after the mark (a backlog beyond the per-run bound). */
  daysAwaiting: number;
}

/**
 * Every closed day after the mark, oldest first, at most `maxDays` a run. Before the first
 * compaction the run starts at the oldest day with a recent file. A day without files moves the mark.
 */
export async function compactClosedDays(
  settings: Pick<LakeSettings, 'compactAfterHours'>,
  deps: LakeMaintenanceDependencies,
  maxDays = MAX_DAYS_PER_RUN,
): Promise<CompactionRun> {
  const lastClosedDay = lastClosedLakeDay(deps.now(), settings.compactAfterHours);
  let mark = await readCompactedThrough(deps.objects);
  const start = mark === NOTHING_COMPACTED ? await oldestRecentDay(deps) : nextLakeDay(mark);
  const daysCompacted: string[] = [];
  for (let day = start; day !== undefined && day <= lastClosedDay && daysCompacted.length < maxDays; ) {
    await compactDay(day, deps);
    daysCompacted.push(day);
    mark = day;
    day = nextLakeDay(day);
  }
  const daysAwaiting =
    mark === NOTHING_COMPACTED
      ? start === undefined || start > lastClosedDay
        ? 0
        : daysBetween(start, lastClosedDay) + 1
      : Math.max(0, daysBetween(mark, lastClosedDay));
  const run = { compactedThrough: mark, lastClosedDay, daysCompacted, daysAwaiting };
  deps.telemetry.log.info('lake compaction run', { ...run, daysCompacted: daysCompacted.length });
  deps.telemetry.metrics.emit(METRICS.lakeDaysCompacted, daysCompacted.length);
  deps.telemetry.metrics.emit(METRICS.lakeDaysAwaitingCompaction, daysAwaiting);
  return run;
}

/** The writer's `fold` dependency: the mark, and a fold of a day the mark already covers. */
export function createDayFolder(deps: LakeMaintenanceDependencies) {
  return {
    compactedThrough: () => readCompactedThrough(deps.objects),
    foldDay: (day: string) => foldDay(day, deps),
  };
}

/** A day is closed once it ended `hours` ago: the day before the one `hours` ago falls in. */
export function lastClosedLakeDay(now: Date, hours: number): string {
  return lakeDayOf(Date.parse(`${lakeDayOf(now.getTime() - hours * 3_600_000)}T00:00:00Z`) - DAY_MS);
}

async function oldestRecentDay(deps: LakeDependencies): Promise<string | undefined> {
  let oldest: string | undefined;
  for (const table of LAKE_TABLE_NAMES) {
    for (const { key } of await deps.objects.list(lakeKeys.tablePrefix('recent', table))) {
      const day = parseRecentKey(key)?.day;
      if (day !== undefined && (oldest === undefined || day < oldest)) oldest = day;
    }
  }
  return oldest;
}

const daysBetween = (from: string, to: string) =>
  Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS);

function emptyByTable<T>(value: () => T): Record<LakeTableName, T> {
  return Object.fromEntries(LAKE_TABLE_NAMES.map((table) => [table, value()])) as Record<LakeTableName, T>;
}
