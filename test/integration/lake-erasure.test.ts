/**
 * Erasure and retention reach the lake (lambdas/core/lake/lake-erasure.ts, lake-retention.ts): an
 * erased meeting has no row in any version of any file under `lake/`, whether its rows were in its
 * recent files or in a compacted file shared with other meetings, whose rows stay; the receipt
 * counts what was removed; an erasure racing a compaction of the same day, or another erasure of
 * that day, brings nothing back; retention drops whole day partitions.
 */

import { randomUUID } from 'node:crypto';
import { CreateBucketCommand, PutBucketVersioningCommand } from '@aws-sdk/client-s3';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eraseMeeting, resweepErasedMeeting } from '../../lambdas/core/erase/erase-meeting';
import { runRetention } from '../../lambdas/core/erase/retention';
import { compactDay, type LakeMaintenanceDependencies } from '../../lambdas/core/lake/lake-compaction';
import type { LakeObjects } from '../../lambdas/core/lake/lake-contract';
import { lakeDayOf, lakeKeys } from '../../lambdas/core/lake/lake-layout';
import { dropLakeDays } from '../../lambdas/core/lake/lake-retention';
import type { LakeTableName } from '../../lambdas/core/lake/lake-tables';
import { decodeLakeRows } from '../../lambdas/core/lake/parquet-codec';
import { keys } from '../../lambdas/core/store/table-layout';
import { silentTelemetry } from '../../lambdas/core/telemetry';
import { documentClient } from '../../lambdas/shared/dynamo-client';
import { s3Client } from '../../lambdas/shared/s3-client';
import { s3LakeObjects } from '../../lambdas/shared/s3-lake-objects';
import {
  type EraseWorld,
  eraseDeps,
  seedMeeting,
  startEraseWorld,
  tombstoneOnly,
  tracesOf,
} from '../fixtures/erase-harness';
import { botsInEveryVersion, writeRecent } from '../fixtures/lake-rows';
import { meetingItem } from '../fixtures/store-reader';

let world: EraseWorld;
let lake: LakeObjects;

beforeAll(async () => {
  world = await startEraseWorld();
  lake = s3LakeObjects(s3Client(), world.recordingsBucket);
}, 60_000);
afterAll(async () => {
  await world?.stop();
});

const maintenance = (extra: Partial<LakeMaintenanceDependencies> = {}): LakeMaintenanceDependencies => ({
  table: { db: documentClient(), tableName: world.resources.tableName },
  objects: lake,
  telemetry: silentTelemetry,
  now: () => new Date('2026-11-25T12:00:00Z'),
  ...extra,
});

const otherBot = () => `other_${randomUUID().slice(0, 8)}`;

/** A seeded meeting (every store) and the lake day its listing time gives. */
async function meetingWithDay(): Promise<{ botId: string; day: string }> {
  const { botId } = await seedMeeting(world);
  const listedAt = (await meetingItem(world.resources.tableName, botId))?.listedAt;
  return { botId, day: lakeDayOf(String(listedAt)) };
}

/** Rows per bot in the day's current compacted file of `table`. */
async function compactedBots(table: LakeTableName, day: string): Promise<Record<string, number>> {
  const file = await lake.get(lakeKeys.compactedFile(table, day));
  const counts: Record<string, number> = {};
  for (const row of file === null ? [] : await decodeLakeRows(table, file.body))
    counts[String(row.bot_id)] = (counts[String(row.bot_id)] ?? 0) + 1;
  return counts;
}

describe('erasing a meeting from the lake', () => {
  it('deletes every version of its recent files, counted in the receipt', async () => {
    const { botId, day } = await meetingWithDay();
    await writeRecent(lake, day, botId, 4);
    await writeRecent(lake, day, botId, 4); // a rewrite: two versions of each
    expect(await botsInEveryVersion(s3Client(), lake.bucket)).toContain(botId);

    const receipt = await eraseMeeting(botId, 'request', eraseDeps(world));
    expect(receipt.counts).toMatchObject({ lake_rows: 1 + 4 + 1, lake_objects: 6, query_results: 0 });
    expect(await botsInEveryVersion(s3Client(), lake.bucket)).not.toContain(botId);
    expect(await tracesOf(world, botId)).toEqual(tombstoneOnly(botId));
  });

  it('rewrites a compacted file shared with other meetings without its rows; theirs stay', async () => {
    const { botId, day } = await meetingWithDay();
    const others = [otherBot(), otherBot()]; // named apart from the bot: a trace is its id anywhere
    await writeRecent(lake, day, botId, 3);
    await writeRecent(lake, day, others[0] as string, 2);
    await writeRecent(lake, day, others[1] as string, 5);
    await compactDay(day, maintenance());
    expect(await lake.list(lakeKeys.dayPrefix('recent', 'utterances', day))).toEqual([]);
    expect(await compactedBots('utterances', day)).toMatchObject({ [botId]: 3 });

    const receipt = await eraseMeeting(botId, 'request', eraseDeps(world));
    // its rows: a meeting, 3 utterances, a participant; the compacted files' versions: the two folds' each
    expect(receipt.counts).toMatchObject({ lake_rows: 5, lake_objects: 6, query_results: 0 });
    expect(await botsInEveryVersion(s3Client(), lake.bucket)).not.toContain(botId);
    expect(await compactedBots('utterances', day)).toEqual({ [others[0] as string]: 2, [others[1] as string]: 5 });
    expect(await compactedBots('meetings', day)).toEqual({ [others[0] as string]: 1, [others[1] as string]: 1 });
    expect(await tracesOf(world, botId)).toEqual(tombstoneOnly(botId));
    // One version per compacted file is left.
    for (const table of ['meetings', 'utterances', 'participants'] as const)
      expect(await lake.listVersions(lake.bucket, lakeKeys.compactedFile(table, day))).toHaveLength(1);

    // The second sweep finds a late writer's recent file (it missed the tombstone) and removes it.
    await writeRecent(lake, day, botId, 1);
    expect(await resweepErasedMeeting(botId, eraseDeps(world))).toBeGreaterThanOrEqual(3);
    expect(await botsInEveryVersion(s3Client(), lake.bucket)).not.toContain(botId);
  });

  it('deletes every query result, every version: one may hold its words without naming its bot', async () => {
    const { botId } = await meetingWithDay();
    await lake.put(`lake-results/${botId}-a.csv`, Buffer.from(`"bot_id"\n"${botId}"\n`));
    await lake.put(`lake-results/${botId}-a.csv.metadata`, Buffer.from('bot_id'));
    // A `query` of text (or a talk-time table) carries the meeting's words and names no bot.
    await lake.put('lake-results/words.csv', Buffer.from('"text"\n"our pricing for Acme"\n'));
    await lake.put('lake-results/words.csv', Buffer.from('"text"\n"our pricing for Acme, again"\n'));
    const receipt = await eraseMeeting(botId, 'request', eraseDeps(world));
    expect(receipt.counts.query_results).toBe(3);
    expect(await lake.list('lake-results/')).toEqual([]);
    expect(await lake.listVersions(lake.bucket, 'lake-results/')).toEqual([]);
  });
});

describe('races on one lake day', () => {
  it('an erasure during a compaction of its day: its rows do not come back', async () => {
    const { botId, day } = await meetingWithDay();
    const other = otherBot();
    await writeRecent(lake, day, botId, 3);
    await writeRecent(lake, day, other, 2);
    let erasing: Promise<unknown> | undefined;
    await compactDay(
      day,
      maintenance({
        afterStep: (step) => {
          // Mid-fold, holding the lease: the erasure starts and waits for it.
          if (step === 'compacted meetings' && erasing === undefined)
            erasing = eraseMeeting(botId, 'request', eraseDeps(world));
        },
      }),
    );
    await erasing;
    expect(await botsInEveryVersion(s3Client(), lake.bucket)).not.toContain(botId);
    const left = await compactedBots('utterances', day);
    expect(left).toMatchObject({ [other]: 2 });
    expect(left).not.toHaveProperty(botId);
  }, 60_000);

  it('two erasures of meetings on one compacted day: neither one’s rows come back', async () => {
    const a = await meetingWithDay();
    const b = await meetingWithDay();
    expect(b.day).toBe(a.day);
    const kept = otherBot();
    for (const bot of [a.botId, b.botId, kept]) await writeRecent(lake, a.day, bot, 2);
    await compactDay(a.day, maintenance());
    await Promise.all([a, b].map(({ botId }) => eraseMeeting(botId, 'request', eraseDeps(world))));
    const left = await botsInEveryVersion(s3Client(), lake.bucket);
    expect(left).not.toContain(a.botId);
    expect(left).not.toContain(b.botId);
    const rows = await compactedBots('utterances', a.day);
    expect(rows).toMatchObject({ [kept]: 2 });
    expect(Object.keys(rows)).not.toContain(a.botId);
    expect(Object.keys(rows)).not.toContain(b.botId);
  }, 60_000);
});

describe('retention in the lake', () => {
  it('drops every version of every partition before the cutoff day, both tiers, and nothing after', async () => {
    // A bucket of its own: nothing compacted yet there.
    const name = `${world.resources.tableName}-retention`;
    await s3Client().send(new CreateBucketCommand({ Bucket: name }));
    await s3Client().send(
      new PutBucketVersioningCommand({ Bucket: name, VersioningConfiguration: { Status: 'Enabled' } }),
    );
    const bucket = s3LakeObjects(s3Client(), name);
    for (const day of ['2025-01-01', '2025-01-02', '2025-01-03']) await writeRecent(bucket, day, 'bot_old', 1);
    await compactDay('2025-01-01', maintenance({ objects: bucket }));
    await writeRecent(bucket, '2025-01-02', 'bot_old', 2); // a second version

    const dropped = await dropLakeDays('2025-01-03', { objects: bucket, telemetry: silentTelemetry });
    // 2025-01-01: three compacted files, two versions each; 2025-01-02: three recent files, two versions each
    expect(dropped).toEqual({ days: ['2025-01-01', '2025-01-02'], objects: 12 });
    const left = (await bucket.listVersions(bucket.bucket, 'lake/')).map(({ key }) => key);
    expect(left.filter((key) => /day=2025-01-0[12]/.test(key))).toEqual([]);
    expect(left.filter((key) => key.includes('day=2025-01-03'))).toHaveLength(3);
  });

  it('is done by the retention run before it queues erasures', async () => {
    await writeRecent(lake, '2025-02-01', 'bot_retained', 1);
    // The run's mark: it looks at the days from there (not three years of empty listings).
    await documentClient().send(
      new PutCommand({
        TableName: world.resources.tableName,
        Item: { ...keys.retentionMark(), oldestDay: '2025-02-10' },
      }),
    );
    const queued: string[] = [];
    const run = await runRetention(
      { retentionDays: 30, maxMeetings: 1 },
      {
        table: { db: documentClient(), tableName: world.resources.tableName },
        queue: { send: async (job) => void queued.push(job.bot_id) },
        telemetry: silentTelemetry,
        now: () => new Date('2025-03-15T00:00:00Z'),
        lake,
      },
    );
    expect(run.lake).toMatchObject({ days: expect.arrayContaining(['2025-02-01']) });
    expect(await lake.listVersions(lake.bucket, 'lake/recent/meetings/day=2025-02-01/')).toEqual([]);
  });
});
