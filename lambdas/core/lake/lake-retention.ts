/**
 * Retention in the lake: whole day partitions before the cutoff, every object version of both
 * tiers and all tables, listed by prefix. The retention run does this before it queues the
 * per-meeting erasures of those days, whose lake step then finds nothing (three empty listings a
 * day) instead of rewriting a day's compacted file once per meeting.
 */
import type { ObjectVersion } from '../store/object-versions';
import type { LakeDependencies } from './lake-contract';
import { type LakeTier, lakeKeys } from './lake-layout';
import { LAKE_TABLE_NAMES } from './lake-tables';

export interface LakeDaysDropped {
  /** Days that had an object version, oldest first. */
  days: string[];
  /** Object versions (and delete markers) deleted. */
  objects: number;
}

const TIERS: readonly LakeTier[] = ['recent', 'compacted'];

/** Deletes every version under every `day=<d>/` partition with d < `cutoffDay`. */
export async function dropLakeDays(
  cutoffDay: string,
  deps: Pick<LakeDependencies, 'objects' | 'telemetry'>,
): Promise<LakeDaysDropped> {
  const { objects } = deps;
  const days = new Set<string>();
  let deleted = 0;
  for (const tier of TIERS) {
    for (const table of LAKE_TABLE_NAMES) {
      const prefix = lakeKeys.tablePrefix(tier, table);
      const old: ObjectVersion[] = [];
      for (const version of await objects.listVersions(objects.bucket, prefix)) {
        const day = /^day=(\d{4}-\d{2}-\d{2})\//.exec(version.key.slice(prefix.length))?.[1];
        if (day === undefined || day >= cutoffDay) continue;
        days.add(day);
        old.push(version);
      }
      if (old.length > 0) await objects.deleteVersions(objects.bucket, old);
      deleted += old.length;
    }
  }
  const dropped = { days: [...days].sort(), objects: deleted };
  if (deleted > 0)
    deps.telemetry.log.info('lake days dropped by retention', {
      cutoff_day: cutoffDay,
      days: dropped.days.length,
      first_day: dropped.days[0],
      last_day: dropped.days.at(-1),
      objects: deleted,
    });
  return dropped;
}
