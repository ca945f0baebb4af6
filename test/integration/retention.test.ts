/**
 * Retention (core/erase/retention.ts): a run queues the erasure of meetings listed more than
 * N days ago, oldest first, at most its limit; what is left is the next run's; a meeting of
 * the cutoff's own day but after it, and a recent one, stay; the run remembers the oldest
 * day still holding such meetings, and counts what it queued.
 */
import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listMeetingOnDay } from '../../lambdas/core/apply/day-listing';
import { isoToMicros } from '../../lambdas/core/apply/state-order';
import type { ErasureJob } from '../../lambdas/core/erase/erasure-job';
import { runRetention } from '../../lambdas/core/erase/retention';
import type { TableAccess } from '../../lambdas/core/store/dynamo';
import { keys } from '../../lambdas/core/store/table-layout';
import type { MetricSink } from '../../lambdas/core/telemetry';
import { createRetentionHandler } from '../../lambdas/erase/retention-adapter';
import { documentClient } from '../../lambdas/shared/dynamo-client';
import {
  createResources,
  type LocalPipeline,
  recordingTelemetry,
  startLocalPipeline,
} from '../fixtures/local-pipeline';

let pipeline: LocalPipeline;
let table: TableAccess;
beforeAll(async () => {
  pipeline = await startLocalPipeline();
  table = { db: documentClient(), tableName: (await createResources()).tableName };
}, 60_000);
afterAll(() => pipeline?.stop());

const NOW = new Date('2026-11-23T12:00:00Z');
const DAY = 86_400_000;
const ago = (days: number, extraMs = 0) => new Date(NOW.getTime() - days * DAY + extraMs).toISOString();

function queue() {
  const jobs: ErasureJob[] = [];
  return { jobs, send: async (job: ErasureJob) => void jobs.push(job) };
}

/** What an erasure does to the listing: its item goes. */
const erased = (botId: string, listedAt: string) =>
  table.db.send(new DeleteCommand({ TableName: table.tableName, Key: keys.dayListing(isoToMicros(listedAt), botId) }));

describe('retention', () => {
  const meetings = {
    bot_500: ago(500),
    bot_100: ago(100),
    bot_40: ago(40),
    // The cutoff's own day: one an hour before the cutoff, one an hour after it.
    bot_cutoff_before: ago(30, -3_600_000),
    bot_cutoff_after: ago(30, 3_600_000),
    bot_recent: ago(5),
  };

  it('queues the oldest first, at most its limit, and leaves the rest, the cutoff day’s later ones and recent ones', async () => {
    for (const [botId, listedAt] of Object.entries(meetings)) await listMeetingOnDay(table, botId, listedAt);
    const metrics: Array<{ name: string; value: number }> = [];
    const sink: MetricSink = { emit: (metric, value) => void metrics.push({ name: metric.name, value }) } as MetricSink;
    const telemetry = { ...recordingTelemetry().telemetry, metrics: sink };
    const first = queue();
    const deps = { table, queue: first, telemetry, now: () => NOW };

    const run = await runRetention({ retentionDays: 30, maxMeetings: 2 }, deps);
    expect(first.jobs).toEqual([
      { kind: 'erase', bot_id: 'bot_500', reason: 'retention' },
      { kind: 'erase', bot_id: 'bot_100', reason: 'retention' },
    ]);
    expect(run).toMatchObject({ queued: 2, cutoff: ago(30), mark: meetings.bot_500.slice(0, 10) });
    expect(metrics).toContainEqual(expect.objectContaining({ name: 'RetentionErasuresQueued', value: 2 }));

    await erased('bot_500', meetings.bot_500);
    await erased('bot_100', meetings.bot_100);
    const second = queue();
    const next = await runRetention({ retentionDays: 30, maxMeetings: 500 }, { ...deps, queue: second });
    expect(second.jobs.map((job) => job.bot_id)).toEqual(['bot_40', 'bot_cutoff_before']);
    expect(next.mark).toBe(meetings.bot_40.slice(0, 10));

    await erased('bot_40', meetings.bot_40);
    await erased('bot_cutoff_before', meetings.bot_cutoff_before);
    const third = queue();
    const last = await runRetention({ retentionDays: 30, maxMeetings: 500 }, { ...deps, queue: third });
    expect(third.jobs).toEqual([]);
    // Every day before the cutoff's is done; the cutoff's own day is still filling.
    expect(last.mark).toBe(ago(30).slice(0, 10));
    expect(metrics.filter((m) => m.name === 'RetentionErasuresQueued').map((m) => m.value)).toEqual([2, 2, 0]);
  });

  it('erases nothing when no retention is set', async () => {
    const q = queue();
    const handler = createRetentionHandler(
      { RETENTION_MAX_MEETINGS: 500 },
      { table, queue: q, telemetry: recordingTelemetry().telemetry, now: () => NOW },
    );
    expect(await handler()).toBeUndefined();
    expect(q.jobs).toEqual([]);
  });
});
