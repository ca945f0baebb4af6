/**
 * Compaction: a closed day's per-meeting recent files folded into one compacted file per table, so a
 * year is ~1,100 objects, not ~2 M. Queries read a day from `compacted` when it is at or before the
 * mark (`compacted_through`), else from `recent` (lake-layout.ts). What keeps every committed
 * meeting's rows in a view exactly once, at its latest version: a day at or before the mark has
 * them in its compacted files. Three rules hold it:
 *  - a fold (foldDay, under the day's lease) replaces the rows of each committed meeting that has
 *    recent files; it deletes the recent versions it merged only once the mark covers the day;
 *  - the mark moves only forward, and only over days folded after the run listed them;
 *  - whatever still has recent files at or before the mark is folded again, by the writer that put
 *    them (it reads the mark after its PUTs and folds when the mark covers its day) or by the run's
 *    closing pass, which lists after the mark moved: a writer that read the mark before it moved
 *    had PUT its files before, so that listing finds them.
 * A run is therefore idempotent and needs no memory: it folds every closed day that has recent
 * files, oldest first, whatever the mark says (a run cut off after moving it, a write to a day
 * before the first mark: the next run finds those files), moves the mark, then folds every day at
 * or before the mark that still has recent files.
 */
import type { ObjectVersion } from '../store/object-versions';
import { METRICS } from '../telemetry';
import { type DayLeaseOptions, withDayLease } from './day-lease';
import type { LakeDependencies, LakeSettings } from './lake-contract';
import { lakeDayOf, lakeKeys, NOTHING_COMPACTED, parseRecentKey } from './lake-layout';
import { readCompactedThrough, writeCompactedThrough } from './lake-state';
import { LAKE_TABLE_NAMES, type LakeTableName } from './lake-tables';
import { decodeLakeRows, encodeLakeRows, lakeFileVersion } from './parquet-codec';

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
 * Merges the day's recent files into its compacted files, one PUT per table: a meeting with recent
 * files has its compacted rows replaced by those of its committed version (a rewrite replaces, never
 * adds): the version its meetings file, written last, carries (committedFiles). A meeting with no
 * meetings file yet keeps the rows the day has for it; one mid-rewrite keeps its recent versions
 * for the fold its writer (or the next run) does once it is done. Deletes the merged recent
 * versions only when the mark already covers the day.
 */
export async function foldDay(day: string, deps: LakeMaintenanceDependencies): Promise<FoldOutcome> {
  const { objects } = deps;
  return withDayLease(deps.table, day, leaseOptions(deps), async () => {
    const listed = new Map<string, ObjectVersion[]>();
    const files = new Map<string, Partial<Record<LakeTableName, Uint8Array>>>();
    for (const table of LAKE_TABLE_NAMES) {
      const versions = await objects.listVersions(objects.bucket, lakeKeys.dayPrefix('recent', table, day));
      for (const key of new Set(versions.map((version) => version.key))) {
        const recent = parseRecentKey(key);
        if (recent === undefined || recent.day !== day) continue; // not a file this fold owns
        const ofBot = listed.get(recent.botId) ?? [];
        ofBot.push(...versions.filter((version) => version.key === key));
        listed.set(recent.botId, ofBot);
        // Read after listing: the bytes are those of a listed version or of a newer one, never older.
        const file = await objects.get(key);
        if (file === null) continue; // deleted (an erasure)
        files.set(recent.botId, { ...files.get(recent.botId), [table]: file.body });
      }
    }
    const committed: Array<[string, Partial<Record<LakeTableName, Uint8Array>>]> = [];
    const rewriting = new Set<string>();
    for (const [bot, ofBot] of files) {
      const atCommit = await committedFiles(ofBot, listed.get(bot) ?? [], objects);
      if (atCommit === undefined) continue;
      committed.push([bot, atCommit]);
      if (atCommit !== ofBot) rewriting.add(bot);
    }
    const bots = new Set(committed.map(([bot]) => bot));
    const rows = emptyByTable(() => 0);
    for (const table of LAKE_TABLE_NAMES) {
      const key = lakeKeys.compactedFile(table, day);
      const compacted = await objects.get(key);
      const kept = compacted === null ? [] : await decodeLakeRows(table, compacted.body);
      if (bots.size === 0) {
        rows[table] = kept.length;
        continue; // nothing to merge: the file (if any) stays as it is
      }
      const merged = kept.filter((row) => !bots.has(String(row.bot_id)));
      for (const [, ofBot] of committed) {
        const body = ofBot[table];
        if (body !== undefined) merged.push(...(await decodeLakeRows(table, body)));
      }
      if (compacted === null && merged.length === 0) continue; // no rows of this table that day
      await objects.put(key, encodeLakeRows(table, merged));
      rows[table] = merged.length;
      await deps.afterStep?.(`compacted ${table}`);
    }
    // A meeting's versions are deleted once merged, or once its files are all gone (an erasure); a
    // meeting mid-rewrite keeps them all, the new write's among them, for the fold that merges it.
    const merged = [...listed]
      .filter(([bot]) => (bots.has(bot) && !rewriting.has(bot)) || !files.has(bot))
      .flatMap(([, versions]) => versions);
    let recentVersionsDeleted = 0;
    // Read after the compacted files were written: a mark that covers the day now covers it for good.
    if (merged.length > 0 && day <= (await readCompactedThrough(objects))) {
      await objects.deleteVersions(objects.bucket, merged);
      recentVersionsDeleted = merged.length;
      await deps.afterStep?.('recent deleted');
    }
    return { day, meetings: bots.size, rows, recentVersionsDeleted };
  });
}

/**
 * A meeting's files at its committed version, the one its meetings file (written last) carries:
 * the files as read when all carry it; mid-rewrite (a newer file written, the meetings file not
 * yet), that version of each newer file, read from the versions listed. Undefined when there is
 * no meetings file or a file's committed version is not found (an unversioned bucket keeps none).
 */
async function committedFiles(
  files: Partial<Record<LakeTableName, Uint8Array>>,
  listed: readonly ObjectVersion[],
  objects: LakeMaintenanceDependencies['objects'],
): Promise<Partial<Record<LakeTableName, Uint8Array>> | undefined> {
  if (files.meetings === undefined) return undefined;
  const version = lakeFileVersion(files.meetings);
  const entries = Object.entries(files) as Array<[LakeTableName, Uint8Array]>;
  if (entries.every(([, body]) => lakeFileVersion(body) === version)) return files;
  const atCommit: Partial<Record<LakeTableName, Uint8Array>> = {};
  for (const [table, body] of entries) {
    let found: Uint8Array | undefined = lakeFileVersion(body) === version ? body : undefined;
    for (const older of listed) {
      if (found !== undefined) break;
      if (parseRecentKey(older.key)?.table !== table || older.versionId === 'null') continue;
      const file = await objects.get(older.key, older.versionId);
      if (file !== null && lakeFileVersion(file.body) === version) found = file.body;
    }
    if (found === undefined) return undefined;
    atCommit[table] = found;
  }
  return atCommit;
}

/** Moves `compacted_through` forward to `day` (never back: the days it covers lost their recent files). */
export async function moveCompactedThrough(day: string, deps: LakeMaintenanceDependencies): Promise<boolean> {
  return withDayLease(deps.table, MARK_LEASE, leaseOptions(deps), async () => {
    if (day <= (await readCompactedThrough(deps.objects))) return false;
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

/**
 * One day's fold, mark, fold: the run's steps for a lake whose earlier days have no recent files
 * (the caller's to know; tests and the local bench use it on a day of their own).
 */
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
  /** Closed days with recent files this run folded (its first pass), oldest first. */
  daysCompacted: string[];
  /** Closed days whose rows are not all in the compacted tier after the run: see compactClosedDays. */
  daysAwaiting: number;
}

/**
 * Folds every closed day that has recent files, oldest first, at most `maxDays` (a backlog drains
 * over a few runs), whatever the mark says; moves the mark up to the day before the first day not
 * folded (every closed day when all were); then folds every day at or before the mark that still
 * has recent files (the header says why). A failed fold stops the first pass (the mark stays before
 * that day) and is rethrown once the run's metrics are out; the closing pass tries every day.
 *
 * `daysAwaiting` (the LakeCompactionBehind alarm's metric): closed days after the mark, plus days at
 * or before it whose closing fold failed (their late rows are in no view until a run folds them).
 */
export async function compactClosedDays(
  settings: Pick<LakeSettings, 'compactAfterHours'>,
  deps: LakeMaintenanceDependencies,
  maxDays = MAX_DAYS_PER_RUN,
): Promise<CompactionRun> {
  const lastClosedDay = lastClosedLakeDay(deps.now(), settings.compactAfterHours);
  const due = (await daysWithRecentFiles(deps)).filter((day) => day <= lastClosedDay);
  const daysCompacted: string[] = [];
  let failure: { error: unknown } | undefined;
  for (const day of due.slice(0, maxDays)) {
    try {
      await foldDay(day, deps);
      daysCompacted.push(day);
    } catch (error) {
      failure = { error };
      break;
    }
  }
  const firstNotFolded = due[daysCompacted.length];
  const target = firstNotFolded === undefined ? lastClosedDay : previousLakeDay(firstNotFolded);
  let unfolded = 0;
  try {
    await moveCompactedThrough(target, deps);
  } catch (error) {
    failure ??= { error };
  }
  const mark = await readCompactedThrough(deps.objects);
  for (const day of (await daysWithRecentFiles(deps)).filter((day) => day <= mark)) {
    try {
      await foldDay(day, deps);
    } catch (error) {
      failure ??= { error };
      unfolded++;
    }
  }
  const closedAfterMark =
    mark === NOTHING_COMPACTED ? due.length - daysCompacted.length : Math.max(0, daysBetween(mark, lastClosedDay));
  const daysAwaiting = closedAfterMark + unfolded;
  const run = { compactedThrough: mark, lastClosedDay, daysCompacted, daysAwaiting };
  deps.telemetry.log.info('lake compaction run', { ...run, daysCompacted: daysCompacted.length });
  deps.telemetry.metrics.emit(METRICS.lakeDaysCompacted, daysCompacted.length);
  deps.telemetry.metrics.emit(METRICS.lakeDaysAwaitingCompaction, daysAwaiting);
  if (failure !== undefined) throw failure.error;
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

/** Every day that has a recent file (any table), oldest first. */
async function daysWithRecentFiles(deps: LakeDependencies): Promise<string[]> {
  const days = new Set<string>();
  for (const table of LAKE_TABLE_NAMES) {
    for (const { key } of await deps.objects.list(lakeKeys.tablePrefix('recent', table))) {
      const day = parseRecentKey(key)?.day;
      if (day !== undefined) days.add(day);
    }
  }
  return [...days].sort();
}

const previousLakeDay = (day: string): string => lakeDayOf(Date.parse(`${day}T00:00:00Z`) - DAY_MS);

const daysBetween = (from: string, to: string) =>
  Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS);

function emptyByTable<T>(value: () => T): Record<LakeTableName, T> {
  return Object.fromEntries(LAKE_TABLE_NAMES.map((table) => [table, value()])) as Record<LakeTableName, T>;
}
