/**
 * Lake compaction (lambdas/core/lake/lake-compaction.ts) on the versioned S3 emulator and dynalite:
 * the users' views, run by the DuckDB engine over a mirror of the bucket, count every row exactly
 * once after every step of a compaction, of a second one, and of a meeting re-written to a
 * compacted day; a compacted day is three files; the day lease keeps two holders apart.
 */

import { PutBucketVersioningCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DayLeaseBusyError, releaseDayLease, takeDayLease, withDayLease } from '../../lambdas/core/lake/day-lease';
import {
  compactClosedDays,
  compactDay,
  createDayFolder,
  type LakeMaintenanceDependencies,
  lastClosedLakeDay,
  moveCompactedThrough,
} from '../../lambdas/core/lake/lake-compaction';
import type { LakeObjects } from '../../lambdas/core/lake/lake-contract';
import type { LakeEngine } from '../../lambdas/core/lake/lake-engine';
import { LAKE_PREFIX, lakeKeys } from '../../lambdas/core/lake/lake-layout';
import { readCompactedThrough } from '../../lambdas/core/lake/lake-state';
import { METRICS, SERVICES, silentTelemetry, type Telemetry } from '../../lambdas/core/telemetry';
import { createLakeCompactionHandler, lakeCompactionDependencies } from '../../lambdas/lake-compaction/adapter';
import { documentClient } from '../../lambdas/shared/dynamo-client';
import { s3Client } from '../../lambdas/shared/s3-client';
import { s3LakeObjects } from '../../lambdas/shared/s3-lake-objects';
import { createDuckDbLakeEngine } from '../../local/lake/duckdb-lake-engine';
import { type EraseWorld, startEraseWorld } from '../fixtures/erase-harness';
import { mirrorLake } from '../fixtures/lake-objects';
import { botsInEveryVersion, writeRecent } from '../fixtures/lake-rows';
import { recordingTelemetry } from '../fixtures/local-pipeline';
import { scratchDir } from '../fixtures/scratch';

let world: EraseWorld;
let engine: LakeEngine & { close(): void };
let root: string;

beforeAll(async () => {
  world = await startEraseWorld();
  root = scratchDir('lake-compaction-');
  engine = await createDuckDbLakeEngine({ root });
}, 60_000);
afterAll(async () => {
  engine?.close();
  await world?.stop();
});

/** A fresh versioned bucket per test: each starts with nothing compacted. */
async function lakeBucket(): Promise<LakeObjects> {
  const bucket = `${world.resources.tableName}-lake-${Math.random().toString(36).slice(2, 8)}`;
  const s3 = s3Client();
  const { CreateBucketCommand } = await import('@aws-sdk/client-s3');
  await s3.send(new CreateBucketCommand({ Bucket: bucket }));
  await s3.send(new PutBucketVersioningCommand({ Bucket: bucket, VersioningConfiguration: { Status: 'Enabled' } }));
  return s3LakeObjects(s3, bucket);
}

function depsOf(
  objects: LakeObjects,
  extra: Partial<LakeMaintenanceDependencies> = {},
  telemetry: Telemetry = silentTelemetry,
): LakeMaintenanceDependencies {
  return {
    table: { db: documentClient(), tableName: world.resources.tableName },
    objects,
    telemetry,
    now: () => new Date('2026-11-25T12:00:00Z'),
    lease: { waitMs: 3000, sleep: async () => {} },
    ...extra,
  };
}

/** Utterances per bot as the `utterances` view answers, over the bucket's current objects. */
async function utterancesPerBot(objects: LakeObjects): Promise<Record<string, number>> {
  await mirrorLake(objects, root);
  const result = await engine.run({
    sql: 'SELECT bot_id, count(*) AS n FROM utterances GROUP BY bot_id ORDER BY bot_id',
    params: [],
  });
  return Object.fromEntries(result.rows.map(([bot, n]) => [String(bot), Number(n)]));
}

async function meetingsCount(objects: LakeObjects): Promise<number> {
  await mirrorLake(objects, root);
  const result = await engine.run({ sql: 'SELECT count(*) FROM meetings', params: [] });
  return Number(result.rows[0]?.[0]);
}

const DAY = '2026-11-20';

describe('compactDay', () => {
  it('keeps the views exact after every step, twice, and leaves a day as three files', async () => {
    const objects = await lakeBucket();
    const expected = { bot_a: 2, bot_b: 3, bot_c: 4 };
    for (const [bot, n] of Object.entries(expected)) await writeRecent(objects, DAY, bot, n);
    // bot_a re-written before compaction: two versions of its recent files, the newer counts.
    await writeRecent(objects, DAY, 'bot_a', 2);
    const seen: string[] = [];
    const deps = depsOf(objects, {
      afterStep: async (step) => {
        seen.push(step);
        expect(await utterancesPerBot(objects), step).toEqual(expected);
        expect(await meetingsCount(objects), step).toBe(3);
      },
    });
    expect(await utterancesPerBot(objects)).toEqual(expected);

    const first = await compactDay(DAY, deps);
    expect(first.markMoved).toBe(true);
    expect(first.fold).toMatchObject({ meetings: 3, rows: { meetings: 3, utterances: 9, participants: 3 } });
    expect(first.fold.recentVersionsDeleted).toBe(12); // 4 writes × 3 tables
    expect(seen).toEqual([
      'compacted meetings',
      'compacted utterances',
      'compacted participants',
      'mark moved',
      'compacted meetings',
      'compacted utterances',
      'compacted participants',
      'recent deleted',
    ]);
    expect(await readCompactedThrough(objects)).toBe(DAY);
    const files = (await objects.list(LAKE_PREFIX)).map(({ key }) => key).sort();
    expect(files).toEqual(
      [
        lakeKeys.compactedFile('meetings', DAY),
        lakeKeys.compactedFile('participants', DAY),
        lakeKeys.compactedFile('utterances', DAY),
        lakeKeys.stateFile(),
      ].sort(),
    );
    expect(await objects.listVersions(objects.bucket, 'lake/recent/')).toEqual([]);

    seen.length = 0;
    const second = await compactDay(DAY, deps);
    expect(second.markMoved).toBe(false);
    expect(seen).toEqual([]); // nothing recent: no file rewritten
    expect(await utterancesPerBot(objects)).toEqual(expected);
  });

  it('a meeting re-written to a compacted day: old rows or new, never both, new once folded', async () => {
    const objects = await lakeBucket();
    await writeRecent(objects, DAY, 'bot_a', 2);
    await writeRecent(objects, DAY, 'bot_b', 3);
    await compactDay(DAY, depsOf(objects));

    // The writer: a corrected transcript, then the mark read, then its own fold.
    await writeRecent(objects, DAY, 'bot_a', 5);
    expect(await utterancesPerBot(objects)).toEqual({ bot_a: 2, bot_b: 3 });
    const folder = createDayFolder(
      depsOf(objects, {
        afterStep: async (step) => {
          const counts = await utterancesPerBot(objects);
          expect([2, 5], step).toContain(counts.bot_a);
          expect(counts.bot_b, step).toBe(3);
        },
      }),
    );
    expect(DAY <= (await folder.compactedThrough())).toBe(true);
    const fold = await folder.foldDay(DAY);
    expect(fold).toMatchObject({ meetings: 1, rows: { utterances: 8 }, recentVersionsDeleted: 3 });
    expect(await utterancesPerBot(objects)).toEqual({ bot_a: 5, bot_b: 3 });
    expect(await objects.list('lake/recent/')).toEqual([]);
  });

  it('a recent file put before the mark moved, by a writer that read the mark before, is folded by the second fold', async () => {
    const objects = await lakeBucket();
    await writeRecent(objects, DAY, 'bot_a', 2);
    let written = false;
    const deps = depsOf(objects, {
      afterStep: async (step) => {
        if (step === 'compacted participants' && !written) {
          written = true;
          await writeRecent(objects, DAY, 'bot_late', 4); // the writer saw the day not yet compacted
        }
        const counts = await utterancesPerBot(objects);
        expect(counts.bot_a, step).toBe(2);
        expect(counts.bot_late ?? 4, step).toBe(4); // read from recent or compacted, whole
      },
    });
    await compactDay(DAY, deps);
    expect(await utterancesPerBot(objects)).toEqual({ bot_a: 2, bot_late: 4 });
    expect(await objects.listVersions(objects.bucket, 'lake/recent/')).toEqual([]);
    expect((await botsInEveryVersion(s3Client(), objects.bucket)).filter((bot) => bot === 'bot_late')).toHaveLength(
      4 + 1 + 1, // its rows once, in the second fold's compacted files
    );
  });

  it('never moves the mark back', async () => {
    const objects = await lakeBucket();
    const deps = depsOf(objects);
    await compactDay('2026-11-18', deps);
    expect(await moveCompactedThrough('2026-11-17', deps)).toBe(false);
    expect(await readCompactedThrough(objects)).toBe('2026-11-18');
  });
});

describe('compactClosedDays', () => {
  it('folds every closed day with recent files, oldest first, bounded per run, and says how many wait', async () => {
    const objects = await lakeBucket();
    await writeRecent(objects, '2026-11-20', 'bot_1', 1);
    await writeRecent(objects, '2026-11-22', 'bot_2', 2);
    await writeRecent(objects, '2026-11-24', 'bot_3', 3); // not closed 30 hours ago
    const { telemetry, metrics } = recordingTelemetry();
    const deps = depsOf(objects, { now: () => new Date('2026-11-25T12:00:00Z') }, telemetry);
    expect(lastClosedLakeDay(deps.now(), 30)).toBe('2026-11-23');

    await writeRecent(objects, '2026-11-21', 'bot_4', 1);
    // Two days a run: the mark stops before the first day left (2026-11-22), which is awaited with the day after.
    const first = await compactClosedDays({ compactAfterHours: 30 }, deps, 2);
    expect(first).toMatchObject({
      daysCompacted: ['2026-11-20', '2026-11-21'],
      compactedThrough: '2026-11-21',
      daysAwaiting: 2,
    });
    const second = await compactClosedDays({ compactAfterHours: 30 }, deps, 2);
    expect(second).toMatchObject({ daysCompacted: ['2026-11-22'], daysAwaiting: 0 });
    expect(second.compactedThrough).toBe('2026-11-23');
    expect(metrics.map((m) => m.name)).toEqual([
      METRICS.lakeDaysCompacted.name,
      METRICS.lakeDaysAwaitingCompaction.name,
      METRICS.lakeDaysCompacted.name,
      METRICS.lakeDaysAwaitingCompaction.name,
    ]);
    expect(await utterancesPerBot(objects)).toEqual({ bot_1: 1, bot_2: 2, bot_3: 3, bot_4: 1 });
    expect((await objects.list('lake/recent/')).map(({ key }) => key)).toEqual(
      ['meetings', 'participants', 'utterances'].map((t) => `lake/recent/${t}/day=2026-11-24/bot_3.parquet`),
    );
  });
});

describe('the compaction function', () => {
  it('reads its environment and compacts the closed days of the bucket it names', async () => {
    const objects = await lakeBucket();
    await writeRecent(objects, '2026-11-22', 'bot_1', 2);
    // The bucket of this test's own: each starts with nothing compacted.
    const env = world.env(SERVICES.lakeCompaction, { LAKE_BUCKET: objects.bucket, COMPACT_AFTER_HOURS: '30' });
    expect(() => world.env(SERVICES.lakeCompaction, { COMPACT_AFTER_HOURS: '-1' })).toThrow();
    const run = createLakeCompactionHandler(
      env,
      lakeCompactionDependencies(
        env,
        { db: documentClient(), s3: s3Client() },
        silentTelemetry,
        () => new Date('2026-11-25T12:00:00Z'),
      ),
    );
    expect(await run()).toMatchObject({ compactedThrough: '2026-11-23', daysCompacted: ['2026-11-22'] });
    expect(await utterancesPerBot(objects)).toEqual({ bot_1: 2 });
  });
});

describe('the day lease', () => {
  it('keeps a second holder out until the first releases it or its lease expires', async () => {
    const table = { db: documentClient(), tableName: world.resources.tableName };
    const at = (ms: number) => ({ now: () => new Date(Date.parse('2026-11-25T12:00:00Z') + ms), leaseMs: 60_000 });
    expect(await takeDayLease(table, 'lease-1', 'a', at(0))).toBe(true);
    expect(await takeDayLease(table, 'lease-1', 'b', at(59_000))).toBe(false);
    await releaseDayLease(table, 'lease-1', 'b'); // not b's: stays a's
    expect(await takeDayLease(table, 'lease-1', 'b', at(1000))).toBe(false);
    expect(await takeDayLease(table, 'lease-1', 'b', at(60_001))).toBe(true); // a crashed: expired
    await releaseDayLease(table, 'lease-1', 'a'); // a's release after expiry leaves b's lease
    expect(await takeDayLease(table, 'lease-1', 'c', at(61_000))).toBe(false);
    await releaseDayLease(table, 'lease-1', 'b');
    expect(await takeDayLease(table, 'lease-1', 'c', at(61_000))).toBe(true);
    // Not even by its own owner: two calls of one work (an erasure run twice) never share it.
    expect(await takeDayLease(table, 'lease-1', 'c', at(61_500))).toBe(false);

    const busy = withDayLease(table, 'lease-1', { ...at(62_000), waitMs: 3000, sleep: async () => {} }, async () => 1);
    await expect(busy).rejects.toThrow(DayLeaseBusyError);
  });
});
