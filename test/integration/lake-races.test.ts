/**
 * Four interleavings that lost archived rows from the lake's views, each replayed step by step on
 * the versioned S3 emulator and dynalite (the lake's cores as deployed; only a fault is injected):
 *  1. two runs of one meeting's erasure share the day lease, and a late archive's fold between them
 *     is overwritten by the first run's rewrite;
 *  2. a run that fails after moving the mark leaves a late write in recent files no view reads;
 *  3. the first run's mark jumps over an earlier day written to during it;
 *  4. a fold takes a meeting whose rewrite stopped part way and drops its rows.
 */

import { randomUUID } from 'node:crypto';
import { CreateBucketCommand, PutBucketVersioningCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  compactClosedDays,
  compactDay,
  createDayFolder,
  type LakeMaintenanceDependencies,
} from '../../lambdas/core/lake/lake-compaction';
import type { LakeObjects } from '../../lambdas/core/lake/lake-contract';
import { eraseFromLake } from '../../lambdas/core/lake/lake-erasure';
import { lakeKeys } from '../../lambdas/core/lake/lake-layout';
import { silentTelemetry } from '../../lambdas/core/telemetry';
import { documentClient } from '../../lambdas/shared/dynamo-client';
import { s3Client } from '../../lambdas/shared/s3-client';
import { s3LakeObjects } from '../../lambdas/shared/s3-lake-objects';
import { type EraseWorld, startEraseWorld } from '../fixtures/erase-harness';
import { botsInEveryVersion, writeRecent } from '../fixtures/lake-rows';
import { lakeViewRows, rowsPerBot } from '../fixtures/lake-view';

let world: EraseWorld;

beforeAll(async () => {
  world = await startEraseWorld();
}, 60_000);
afterAll(async () => {
  await world?.stop();
});

/** A fresh versioned bucket: nothing compacted. */
async function lakeBucket(): Promise<LakeObjects> {
  const bucket = `${world.resources.tableName}-races-${randomUUID().slice(0, 8)}`;
  await s3Client().send(new CreateBucketCommand({ Bucket: bucket }));
  await s3Client().send(
    new PutBucketVersioningCommand({ Bucket: bucket, VersioningConfiguration: { Status: 'Enabled' } }),
  );
  return s3LakeObjects(s3Client(), bucket);
}

const NOW = new Date('2026-11-25T12:00:00Z');
const deps = (objects: LakeObjects, extra: Partial<LakeMaintenanceDependencies> = {}): LakeMaintenanceDependencies => ({
  table: { db: documentClient(), tableName: world.resources.tableName },
  objects,
  telemetry: silentTelemetry,
  now: () => NOW,
  lease: { waitMs: 3000, sleep: async () => {} },
  ...extra,
});

/**
 * The objects with `before` awaited ahead of each call: it may run other work there (the
 * interleaving) or throw (a fault, as S3's 503 would fail the call).
 */
function intercepted(objects: LakeObjects, before: (call: string, key: string) => Promise<void> | void): LakeObjects {
  const after =
    <T>(call: string, key: string, run: () => Promise<T>) =>
    async (): Promise<T> => {
      await before(call, key);
      return run();
    };
  return {
    ...objects,
    get: (key, versionId) => after('get', key, () => objects.get(key, versionId))(),
    put: (key, body, metadata) => after('put', key, () => objects.put(key, body, metadata))(),
    listVersions: (bucket, prefix) => after('listVersions', prefix, () => objects.listVersions(bucket, prefix))(),
    list: (prefix) => after('list', prefix, () => objects.list(prefix))(),
  };
}

const views = async (objects: LakeObjects) => {
  const rows = await lakeViewRows(objects);
  return {
    meetings: rowsPerBot(rows.meetings),
    utterances: rowsPerBot(rows.utterances),
    participants: rowsPerBot(rows.participants),
  };
};

describe('lake races', () => {
  it("1: a second run of an erasure does not take the first one's lease; a late archive folded after both keeps its rows", async () => {
    const objects = await lakeBucket();
    const day = '2026-11-10';
    await writeRecent(objects, day, 'bot_erased', 3);
    await writeRecent(objects, day, 'bot_kept', 2);
    await compactDay(day, deps(objects));
    const lateArchive = async () => {
      await writeRecent(objects, day, 'bot_late', 4);
      await createDayFolder(deps(objects)).foldDay(day); // the writer's fold: the day is compacted
    };
    const secondRun = () => eraseFromLake('bot_erased', day, deps(objects));

    // The first run has read the day's utterances file; before its PUT, the API's "call again"
    // runs the erasure a second time and a late archive of another meeting of the day folds.
    let paused = false;
    const failedMeanwhile: unknown[] = [];
    const first = intercepted(objects, async (call, key) => {
      if (paused || call !== 'put' || key !== lakeKeys.compactedFile('utterances', day)) return;
      paused = true;
      for (const work of [secondRun, lateArchive]) await work().catch((error) => failedMeanwhile.push(error));
    });
    await eraseFromLake('bot_erased', day, deps(first));
    expect(paused).toBe(true);
    // What failed meanwhile (the lease was held) is retried, as its queue would.
    if (failedMeanwhile.length > 0) {
      await secondRun();
      await lateArchive();
    }

    expect(await views(objects)).toEqual({
      meetings: { bot_kept: 1, bot_late: 1 },
      utterances: { bot_kept: 2, bot_late: 4 },
      participants: { bot_kept: 1, bot_late: 1 },
    });
    expect(await botsInEveryVersion(s3Client(), objects.bucket)).not.toContain('bot_erased');
  });

  it('2: a run that fails after moving the mark leaves a late write for the next run to fold', async () => {
    const objects = await lakeBucket();
    const day = '2026-11-11';
    await writeRecent(objects, day, 'bot_a', 2);
    let lateWritten = false;
    let markMoved = false;
    // A meeting archived late while the day is folded: its writer read the mark before it moved.
    const afterStep = async (step: string) => {
      if (step === 'mark moved') markMoved = true;
      if (step !== 'compacted participants' || lateWritten) return;
      lateWritten = true;
      await writeRecent(objects, day, 'bot_late', 4);
    };
    // The fold after the mark moved fails (an S3 503 on its listing).
    let faulted = false;
    const faulty = intercepted(objects, (call) => {
      if (markMoved && !faulted && call === 'listVersions') {
        faulted = true;
        throw new Error('503 Slow Down');
      }
    });
    await expect(
      compactClosedDays({ compactAfterHours: 30 }, deps(faulty, { afterStep, lease: { waitMs: 1000 } })),
    ).rejects.toThrow('503 Slow Down');
    expect(faulted).toBe(true);

    await compactClosedDays({ compactAfterHours: 30 }, deps(objects));
    expect((await views(objects)).utterances).toEqual({ bot_a: 2, bot_late: 4 });
    expect(await objects.list(lakeKeys.dayPrefix('recent', 'utterances', day))).toEqual([]);
  });

  it('3: the first run never moves the mark over an earlier day written to during it', async () => {
    const objects = await lakeBucket();
    await writeRecent(objects, '2026-11-12', 'bot_a', 2);
    let written = false;
    // While the first day listed is folded, a meeting of an earlier day is archived (its writer
    // read the mark: nothing compacted, so it left the fold to compaction).
    const afterStep = async (step: string) => {
      if (step !== 'compacted meetings' || written) return;
      written = true;
      await writeRecent(objects, '2026-11-09', 'bot_early', 3);
    };
    await compactClosedDays({ compactAfterHours: 30 }, deps(objects, { afterStep }));
    expect(written).toBe(true);
    expect((await views(objects)).utterances).toEqual({ bot_a: 2, bot_early: 3 });
  });

  it('4: a fold leaves a meeting whose rewrite stopped part way at the rows the day has for it', async () => {
    const objects = await lakeBucket();
    const day = '2026-11-13';
    const v1 = '2026-11-13T10:00:00.000Z';
    const v2 = '2026-11-14T09:00:00.000Z';
    await writeRecent(objects, day, 'bot_fixed', 3, { version: v1 });
    await writeRecent(objects, day, 'bot_other', 2, { version: v1 });
    await compactDay(day, deps(objects));
    // A correction of bot_fixed: its utterances are PUT, its participants PUT fails (to be retried).
    await writeRecent(objects, day, 'bot_fixed', 5, { version: v2, tables: ['utterances'] });
    // Meanwhile another meeting of the day is archived late and its writer folds the day.
    await writeRecent(objects, day, 'bot_new', 1, { version: v2 });
    await createDayFolder(deps(objects)).foldDay(day);
    expect(await views(objects)).toEqual({
      meetings: { bot_fixed: 1, bot_other: 1, bot_new: 1 },
      utterances: { bot_fixed: 3, bot_other: 2, bot_new: 1 },
      participants: { bot_fixed: 1, bot_other: 1, bot_new: 1 },
    });

    // The correction's retry completes it; its writer folds it (the day is compacted).
    await writeRecent(objects, day, 'bot_fixed', 5, { version: v2 });
    await createDayFolder(deps(objects)).foldDay(day);
    const after = await lakeViewRows(objects);
    expect(rowsPerBot(after.utterances)).toEqual({ bot_fixed: 5, bot_other: 2, bot_new: 1 });
    expect(after.meetings.find((row) => row.bot_id === 'bot_fixed')?.lake_version).toBe(v2);
    expect(await objects.list('lake/recent/')).toEqual([]);
  });

  it('4b: a meeting mid-rewrite whose earlier version was never folded is folded at that version', async () => {
    const objects = await lakeBucket();
    const day = '2026-11-15';
    const v1 = '2026-11-15T10:00:00.000Z';
    const v2 = '2026-11-16T09:00:00.000Z';
    await writeRecent(objects, day, 'bot_fixed', 3, { version: v1 });
    // Its correction stopped after the utterances PUT; the day is compacted before the retry.
    await writeRecent(objects, day, 'bot_fixed', 5, { version: v2, tables: ['utterances'] });
    await compactClosedDays({ compactAfterHours: 30 }, deps(objects));
    const folded = await lakeViewRows(objects);
    expect(rowsPerBot(folded.utterances)).toEqual({ bot_fixed: 3 });
    expect(rowsPerBot(folded.participants)).toEqual({ bot_fixed: 1 });
    expect(folded.meetings.map((row) => row.lake_version)).toEqual([v1]);

    // The retry completes the correction; its writer folds it (the day is compacted now).
    await writeRecent(objects, day, 'bot_fixed', 5, { version: v2 });
    await createDayFolder(deps(objects)).foldDay(day);
    const after = await lakeViewRows(objects);
    expect(rowsPerBot(after.utterances)).toEqual({ bot_fixed: 5 });
    expect(after.meetings.map((row) => row.lake_version)).toEqual([v2]);
    expect(await objects.list('lake/recent/')).toEqual([]);
  });
});
