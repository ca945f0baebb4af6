/** Wires the compaction core to its clients: the daily schedule's run, the same in AWS, local mode and tests. */
import type { S3Client } from '@aws-sdk/client-s3';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import {
  type CompactionRun,
  compactClosedDays,
  type LakeMaintenanceDependencies,
  MAX_DAYS_PER_RUN,
} from '../core/lake/lake-compaction';
import type { LakeObjects } from '../core/lake/lake-contract';
import type { Telemetry } from '../core/telemetry';
import { s3LakeObjects } from '../shared/s3-lake-objects';
import type { LakeCompactionEnvironment } from './environment';

export function lakeCompactionDependencies(
  env: LakeCompactionEnvironment,
  clients: { db: DynamoDBDocumentClient; s3: S3Client; objects?: LakeObjects },
  telemetry: Telemetry,
  now: () => Date = () => new Date(),
): LakeMaintenanceDependencies {
  return {
    table: { db: clients.db, tableName: env.TABLE_NAME },
    objects: clients.objects ?? s3LakeObjects(clients.s3, env.LAKE_BUCKET),
    telemetry,
    now,
  };
}

/**
 * The scheduled run: every closed day after the mark, bounded per run; the rest is the next run's.
 * `maxDaysPerRun` is a builder option, not a variable: the stack has no setting for it, so only a
 * test (a small bound) changes it.
 */
export function createLakeCompactionHandler(
  env: LakeCompactionEnvironment,
  deps: LakeMaintenanceDependencies,
  options: { maxDaysPerRun?: number } = {},
) {
  return (): Promise<CompactionRun> =>
    compactClosedDays({ compactAfterHours: env.COMPACT_AFTER_HOURS }, deps, options.maxDaysPerRun ?? MAX_DAYS_PER_RUN);
}
