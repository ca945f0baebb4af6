/**
 * Erasure against what runs beside it, at every step (fixtures/interleave.ts): the first state
 * change of a meeting the erasure read as absent (issue 23, point 9), and a second erasure of the
 * same meeting (point 10). Whatever the order, the erasure and its second sweep leave only the
 * tombstone (no day listing), retention never queues an erased bot again, and two erasures give
 * one receipt with the real counts and one `meeting.erased` content.
 */
import { randomUUID } from 'node:crypto';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { listMeetingOnDay } from '../../lambdas/core/apply/day-listing';
import { eraseMeeting, resweepErasedMeeting } from '../../lambdas/core/erase/erase-meeting';
import type { ErasureJob } from '../../lambdas/core/erase/erasure-job';
import type { ErasureReceipt } from '../../lambdas/core/erase/receipt';
import { runRetention } from '../../lambdas/core/erase/retention';
import { processQueuedEvent } from '../../lambdas/core/events/process-event';
import { keys } from '../../lambdas/core/store/table-layout';
import { documentClient } from '../../lambdas/shared/dynamo-client';
import { stateChange } from '../../local/simulator/payloads';
import { eraseDeps, eraseWorldOfFile, seedMeeting, tombstoneOnly, tracesOf } from '../fixtures/erase-harness';
import { steppedClient } from '../fixtures/interleave';
import { processDependencies, queuedMessage, recordingTelemetry } from '../fixtures/local-pipeline';

const world = eraseWorldOfFile();

const newBot = () => `bot_${randomUUID().replaceAll('-', '').slice(0, 16)}`;
const FIRST_STATE_AT = Date.parse('2026-11-23T09:00:00Z');
const table = () => ({ db: documentClient(), tableName: world.resources.tableName });

const FIRST_DAY = '2026-11-23';
/** The day a retention run starts from (the runs here look at the meetings' day only). */
const markRetentionFrom = (oldestDay: string) =>
  documentClient().send(
    new PutCommand({ TableName: world.resources.tableName, Item: { ...keys.retentionMark(), oldestDay } }),
  );

/** Retention a month on, from the meetings' day: what it queues of `botId`. */
async function retentionJobsOf(botId: string, telemetry = recordingTelemetry().telemetry): Promise<ErasureJob[]> {
  await markRetentionFrom(FIRST_DAY);
  const jobs: ErasureJob[] = [];
  await runRetention(
    { retentionDays: 30, maxMeetings: 10_000 },
    {
      table: table(),
      queue: { send: async (job) => void jobs.push(job) },
      telemetry,
      now: () => new Date(FIRST_STATE_AT + 31 * 86_400_000),
    },
  );
  return jobs.filter((job) => job.bot_id === botId);
}

describe('an erasure racing the meeting’s first state change', () => {
  const firstStateChange = (botId: string, db = documentClient()) =>
    processQueuedEvent(
      queuedMessage(
        stateChange(botId, {
          oldState: 'ready',
          newState: 'joining',
          eventType: 'x',
          createdAtMicros: FIRST_STATE_AT * 1000,
        }),
        new Date(FIRST_STATE_AT),
      ),
      processDependencies(world.resources, undefined, { db, events: world.events.publisher }),
    );
  const erase = (botId: string, db = documentClient()) => eraseMeeting(botId, 'request', eraseDeps(world, { db }));

  it('at every step of either: only the tombstone is left, and retention queues nothing', async () => {
    // How many table calls each makes alone.
    const counting = (side: 'erasure' | 'state change') => {
      const botId = newBot();
      const stepped = steppedClient(documentClient(), 0, async () => undefined);
      return {
        botId,
        stepped,
        run: side === 'erasure' ? erase(botId, stepped.client) : firstStateChange(botId, stepped.client),
      };
    };
    const calls: Record<string, number> = {};
    for (const side of ['erasure', 'state change'] as const) {
      const { run, stepped } = counting(side);
      await run;
      calls[side] = stepped.calls();
    }
    const tried: string[] = [];
    const left: string[] = [];
    for (const side of ['erasure', 'state change'] as const) {
      for (let step = 1; step <= (calls[side] ?? 0) + 1; step++) {
        const botId = newBot();
        let otherRan = false;
        const other = async () => {
          otherRan = true;
          await (side === 'erasure' ? firstStateChange(botId) : erase(botId));
        };
        const stepped = steppedClient(documentClient(), step, other);
        await (side === 'erasure' ? erase(botId, stepped.client) : firstStateChange(botId, stepped.client));
        if (!otherRan) await other();
        await resweepErasedMeeting(botId, eraseDeps(world));
        const traces = await tracesOf(world, botId);
        if (traces.join() !== tombstoneOnly(botId).join()) left.push(`${side} step ${step}: ${traces.join(', ')}`);
        if ((await retentionJobsOf(botId)).length > 0) left.push(`${side} step ${step}: queued by retention`);
        tried.push(`${side} ${step}`);
      }
    }
    console.log('interleavings tried', tried.length, calls);
    expect(left).toEqual([]);
    expect(tried).toHaveLength((calls.erasure ?? 0) + (calls['state change'] ?? 0) + 2);
  }, 300_000);

  it('a listing written after both sweeps: retention removes it and counts it, and queues nothing', async () => {
    const botId = newBot();
    await firstStateChange(botId);
    await erase(botId);
    await resweepErasedMeeting(botId, eraseDeps(world));
    // A writer past every timeout lists it again.
    await listMeetingOnDay(table(), botId, new Date(FIRST_STATE_AT).toISOString());
    const { telemetry, metrics } = recordingTelemetry();
    expect(await retentionJobsOf(botId, telemetry)).toEqual([]);
    expect(metrics.map((metric) => metric.name)).toContain('ErasedLateWritesRemoved');
    expect(await tracesOf(world, botId)).toEqual(tombstoneOnly(botId));
  }, 60_000);
});

describe('two erasures of one meeting', () => {
  it('at every step of one: one receipt with the real counts, one meeting.erased content', async () => {
    const first = await seedMeeting(world);
    const alone = steppedClient(documentClient(), 0, async () => undefined);
    const expected = await eraseMeeting(first.botId, 'request', eraseDeps(world, { db: alone.client }));
    expect(expected.counts.meeting_items).toBeGreaterThan(0);

    const problems: string[] = [];
    for (let step = 1; step <= alone.calls() + 1; step++) {
      const { botId } = await seedMeeting(world);
      let second: ErasureReceipt | undefined;
      // The second erasure (the service's `data_deleted` job) runs a minute later by its clock.
      const other = async () => {
        second = await eraseMeeting(botId, 'upstream-data-deleted', {
          ...eraseDeps(world),
          now: () => new Date('2026-11-23T12:01:00Z'),
        });
      };
      const stepped = steppedClient(documentClient(), step, other);
      const firstReceipt = await eraseMeeting(botId, 'request', eraseDeps(world, { db: stepped.client }));
      if (second === undefined) await other();
      const published = world.events
        .events()
        .filter((event) => event.detailType === 'meeting.erased' && event.detail.bot_id === botId)
        .map((event) => JSON.stringify(event.detail));
      if (JSON.stringify(firstReceipt) !== JSON.stringify(second)) problems.push(`step ${step}: two receipts`);
      if (JSON.stringify(firstReceipt.counts) !== JSON.stringify(expected.counts))
        problems.push(`step ${step}: counts ${JSON.stringify(firstReceipt.counts)}`);
      if (new Set(published).size !== 1) problems.push(`step ${step}: ${new Set(published).size} event contents`);
    }
    expect(problems).toEqual([]);
  }, 600_000);
});
