/**
 * Schedules weeks and months ahead in local mode: the launcher's Wait holds until the launch time however far
 * it is (Node fires a timer past 2^31-1 ms at once), a cancellation during the wait stops it, and the
 * execution's year limit holds. The clock is the test's: no real wait.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { StateMachineDefinition } from 'aws-local-stepfunctions';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_TIMING } from '../../lambdas/core/schedule/schedule-request';
import {
  cancelSchedule,
  getSchedule,
  type ScheduleDependencies,
  upsertSchedule,
} from '../../lambdas/core/schedule/schedules';
import { silentTelemetry } from '../../lambdas/core/telemetry';
import { UpstreamClient } from '../../lambdas/core/upstream/client';
import { createLaunchTaskHandler } from '../../lambdas/launch-bot/adapter';
import { documentClient } from '../../lambdas/shared/dynamo-client';
import type { LocalResources } from '../../local/resources';
import { SimulatedServiceApi } from '../../local/simulator/api-server';
import { type Clock, LocalExecutions, launcherDefinition, MAX_TIMER_MS } from '../../local/step-functions';
import { testEventLog } from '../fixtures/event-log';
import { createResources, type LocalPipeline, startLocalPipeline } from '../fixtures/local-pipeline';
import { sharedTemplate } from '../infra/synth';

const DAY_MS = 86_400_000;

/** A clock the test moves: timers fire when it passes their time, and every armed delay is kept. */
function manualClock(startMs: number) {
  let nowMs = startMs;
  const timers = new Set<{ dueMs: number; fire: () => void }>();
  const armed: number[] = [];
  const clock: Clock = {
    now: () => nowMs,
    setTimer(fire, ms) {
      armed.push(ms);
      const timer = { dueMs: nowMs + ms, fire };
      timers.add(timer);
      return () => timers.delete(timer);
    },
  };
  /** Moves to `targetMs`, firing each due timer at its own time (a fired timer may arm the next). */
  const advanceTo = async (targetMs: number) => {
    for (;;) {
      const next = [...timers].filter((t) => t.dueMs <= targetMs).sort((a, b) => a.dueMs - b.dueMs)[0];
      if (next === undefined) break;
      timers.delete(next);
      nowMs = next.dueMs;
      next.fire();
      await Promise.resolve();
    }
    nowMs = targetMs;
  };
  return { clock, armed, advanceTo, now: () => nowMs, pending: () => timers.size };
}

const service = new SimulatedServiceApi();
let pipeline: LocalPipeline;
let resources: LocalResources;
let definition: StateMachineDefinition;
let time: ReturnType<typeof manualClock>;
let executions: LocalExecutions;

beforeAll(async () => {
  definition = launcherDefinition(sharedTemplate().toJSON());
  pipeline = await startLocalPipeline();
  resources = await createResources();
  await service.start();
  service.apiKeys.set('k', 'all');
});
afterAll(async () => {
  await service.stop();
  await pipeline?.stop();
});

beforeEach(() => {
  time = manualClock(Date.parse('2026-11-24T09:00:00Z'));
  service.now = time.now;
  const table = { db: documentClient(), tableName: resources.tableName };
  const upstream = new UpstreamClient({ baseUrl: service.baseUrl, apiKey: async () => 'k', maxAttempts: 1 });
  executions = new LocalExecutions(definition, {
    task: createLaunchTaskHandler({
      table,
      upstream,
      events: testEventLog().publisher,
      telemetry: silentTelemetry,
      now: time.now,
    }) as (event: unknown) => Promise<unknown>,
    clock: time.clock,
    retryIntervalMs: 0,
  });
});

const deps = (): ScheduleDependencies => ({
  table: { db: documentClient(), tableName: resources.tableName },
  executions,
  upstream: new UpstreamClient({ baseUrl: service.baseUrl, apiKey: async () => 'k', maxAttempts: 1 }),
  timing: DEFAULT_TIMING,
  telemetry: silentTelemetry,
  now: time.now,
});
const botsFor = (scheduleId: string) =>
  [...service.bots.values()].filter((bot) => bot.metadata?.schedule_id === scheduleId);
/** Whether the execution has ended, after giving an early launch every chance to happen. */
const ended = async () => {
  const [execution] = executions.executions.values();
  let settled = false;
  void execution?.done.then(() => (settled = true));
  // A timer Node overflowed fires after 1 ms and the launch takes a few more: this is ample.
  await sleep(300);
  return settled;
};

describe('far-future schedules in local mode', () => {
  it.each([30, 200])('a schedule %i days ahead stays scheduled until its launch time, then launches', async (days) => {
    const scheduleId = `far-${days}`;
    const joinAt = new Date(time.now() + days * DAY_MS).toISOString();
    const put = await upsertSchedule(
      scheduleId,
      { meeting_url: 'https://meet.google.com/abc-defg-hij', join_at: joinAt, bot_name: 'Notetaker' },
      deps(),
    );
    if (!('schedule' in put)) throw new Error(`not scheduled: ${JSON.stringify(put)}`);
    const launchAtMs = Date.parse(put.schedule.launchAt);

    expect(await ended()).toBe(false);
    await time.advanceTo(launchAtMs - 60_000);
    expect(await ended()).toBe(false);
    expect(await getSchedule(scheduleId, deps())).toMatchObject({ status: 'scheduled' });
    expect(botsFor(scheduleId)).toHaveLength(0);
    // No timer was ever armed past what Node honours.
    expect(Math.max(...time.armed)).toBeLessThanOrEqual(MAX_TIMER_MS);

    await time.advanceTo(launchAtMs);
    const [execution] = executions.executions.values();
    expect(await execution!.done).toMatchObject({ status: 'SUCCEEDED' });
    expect(await getSchedule(scheduleId, deps())).toMatchObject({ status: 'launched' });
    expect(botsFor(scheduleId)).toHaveLength(1);
  });

  it('a cancellation during a 200-day wait stops the execution and launches nothing', async () => {
    const joinAt = new Date(time.now() + 200 * DAY_MS).toISOString();
    await upsertSchedule(
      'far-cancelled',
      { meeting_url: 'https://meet.google.com/abc-defg-hij', join_at: joinAt, bot_name: 'Notetaker' },
      deps(),
    );
    await time.advanceTo(time.now() + 100 * DAY_MS);
    await cancelSchedule('far-cancelled', deps());
    const [execution] = executions.executions.values();
    expect(await execution!.done).toEqual({ status: 'ABORTED' });
    expect(time.pending()).toBe(0);
    await time.advanceTo(time.now() + 101 * DAY_MS);
    expect(botsFor('far-cancelled')).toHaveLength(0);
  });

  it("holds the definition's execution time limit (a year) against the same clock", async () => {
    const limited = new LocalExecutions(definition, {
      task: async () => ({}),
      clock: time.clock,
      waitMs: () => 400 * DAY_MS,
    });
    await limited.start('too-far', {
      scheduleId: 'too-far',
      version: 1,
      launchAt: '2027-12-31T00:00:00Z',
      joinAt: '2027-12-31T00:01:00Z',
    });
    await time.advanceTo(time.now() + 366 * DAY_MS);
    const [execution] = limited.executions.values();
    expect(await execution!.done).toMatchObject({ status: 'FAILED', error: expect.stringContaining('States.Timeout') });
  });
});
