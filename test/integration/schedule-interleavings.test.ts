/**
 * A schedule's launch against the moves, cancels and retried launches that meet it, over random
 * interleavings at every DynamoDB call (fixtures/scheduled-clients.ts), with a fault injected at a
 * random call of the first launch and, at random, a POST bots whose answer is lost after the
 * service created the bot. Once every execution the schedule started has run (a failed launch
 * retried, as the state machine's Retry does): the service holds at most one bot for the schedule,
 * none if it ended cancelled, and a launched schedule's bot is that one, at the schedule's time.
 * `SOAK_RUNS=<n>` runs it longer (npm run soak).
 */
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Executions, LaunchInput } from '../../lambdas/core/schedule/executions';
import { launchScheduledBot } from '../../lambdas/core/schedule/launch';
import { DEFAULT_TIMING } from '../../lambdas/core/schedule/schedule-request';
import {
  cancelSchedule,
  getSchedule,
  launchInputOf,
  type ScheduleDependencies,
  upsertSchedule,
} from '../../lambdas/core/schedule/schedules';
import type { TableAccess } from '../../lambdas/core/store/dynamo';
import { silentTelemetry } from '../../lambdas/core/telemetry';
import { UpstreamClient } from '../../lambdas/core/upstream/client';
import { documentClient } from '../../lambdas/shared/dynamo-client';
import type { LocalResources } from '../../local/resources';
import { SimulatedServiceApi } from '../../local/simulator/api-server';
import { testEventLog } from '../fixtures/event-log';
import { createResources, type LocalPipeline, startLocalPipeline } from '../fixtures/local-pipeline';
import { clientFault, propertyParameters, reportExplored, scheduledClient } from '../fixtures/scheduled-clients';

const service = new SimulatedServiceApi();
let pipeline: LocalPipeline;
let resources: LocalResources;
const NOW = Date.parse('2026-11-22T09:00:00Z');
const HOUR = 3_600_000;

beforeAll(async () => {
  pipeline = await startLocalPipeline();
  resources = await createResources();
  await service.start();
  service.apiKeys.set('k', 'all');
  service.now = () => NOW;
});
afterAll(async () => {
  await service.stop();
  await pipeline?.stop();
});

// One attempt per call: the launcher's retries are the state machine's, run below.
const upstream = () => new UpstreamClient({ baseUrl: service.baseUrl, apiKey: async () => 'k', maxAttempts: 1 });
const table = (db = documentClient()): TableAccess => ({ db, tableName: resources.tableName });

/** The executions a schedule starts and stops: held, run by the test once the races are over. */
class HeldExecutions implements Executions {
  readonly started = new Map<string, LaunchInput>();
  readonly stopped = new Set<string>();
  async start(name: string, input: LaunchInput) {
    if (!this.started.has(name)) this.started.set(name, input);
    return { executionArn: `arn:held:${name}` };
  }
  async stop(executionArn: string) {
    this.stopped.add(executionArn.replace('arn:held:', ''));
  }
}

const scheduleDeps = (executions: Executions, db = documentClient()): ScheduleDependencies => ({
  table: table(db),
  executions,
  upstream: upstream(),
  timing: DEFAULT_TIMING,
  telemetry: silentTelemetry,
  now: () => NOW,
});
const launch = (input: LaunchInput, db = documentClient()) =>
  launchScheduledBot(input, {
    table: table(db),
    upstream: upstream(),
    events: testEventLog().publisher,
    telemetry: silentTelemetry,
    now: () => NOW,
  });
const request = (joinAtMs: number) => ({
  meeting_url: 'https://meet.google.com/abc-defg-hij',
  join_at: new Date(joinAtMs).toISOString(),
  bot_name: 'Notetaker',
  metadata: { team: 'platform' },
});

type Change = { kind: 'move'; hoursAhead: number } | { kind: 'cancel' } | { kind: 'launch-again' };
const change: fc.Arbitrary<Change> = fc.oneof(
  fc.record({ kind: fc.constant('move' as const), hoursAhead: fc.integer({ min: 2, max: 6 }) }),
  fc.constant({ kind: 'cancel' as const }),
  fc.constant({ kind: 'launch-again' as const }),
);

/** Runs until it settles, as the state machine's Retry does after an error. */
async function untilSettled<T>(work: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if (attempt === 5) throw error;
    }
  }
}

describe('a schedule launching while it is moved and cancelled, under random interleavings', () => {
  it('one bot at most, none once cancelled, and a launched schedule holds its bot at its time', async () => {
    const parameters = propertyParameters(8);
    await fc.assert(
      fc.asyncProperty(
        fc.scheduler(),
        fc.array(change, { minLength: 1, maxLength: 3 }),
        clientFault(12),
        fc.boolean(),
        async (scheduler, changes, fault, postAnswerLost) => {
          const scheduleId = `sched-${randomUUID().slice(0, 8)}`;
          const executions = new HeldExecutions();
          const created = await upsertSchedule(scheduleId, request(NOW + HOUR), scheduleDeps(executions));
          if (!('schedule' in created)) throw new Error(`not created: ${JSON.stringify(created)}`);
          const first = launchInputOf(created.schedule);
          // The bot is created, and the answer to POST bots is lost: the launch must adopt it.
          service.faults = postAnswerLost
            ? [{ method: 'POST', path: /^\/api\/v1\/bots$/, times: 1, status: 500, afterHandling: true }]
            : [];

          const client = (label: string, f?: typeof fault) => scheduledClient(documentClient(), scheduler, label, f);
          const racing: Promise<unknown>[] = [
            launch(first, client('launch', fault).client).catch((error: unknown) => error),
            ...changes.map((c, i) => {
              const db = client(`${c.kind} ${i}`).client;
              if (c.kind === 'move')
                return upsertSchedule(scheduleId, request(NOW + c.hoursAhead * HOUR), scheduleDeps(executions, db));
              if (c.kind === 'cancel') return cancelSchedule(scheduleId, scheduleDeps(executions, db));
              return launch(first, db).catch((error: unknown) => error);
            }),
          ];
          await scheduler.waitFor(Promise.all(racing));
          service.faults = [];

          // Every execution the schedule started and did not stop runs to its end (retried on errors).
          for (const [name, input] of executions.started)
            if (!executions.stopped.has(name)) await untilSettled(() => launch(input));

          const bots = [...service.bots.values()].filter((bot) => bot.metadata?.schedule_id === scheduleId);
          const schedule = await getSchedule(scheduleId, { table: table() });
          expect(bots.length).toBeLessThanOrEqual(1);
          expect(schedule?.pendingChange).toBeUndefined();
          if (schedule?.status === 'cancelled') expect(bots).toEqual([]);
          else {
            expect(schedule?.status).toBe('launched');
            expect(bots.map((bot) => bot.id)).toEqual([schedule?.botId]);
            expect(Date.parse(String(bots[0]?.join_at))).toBe(Date.parse(String(schedule?.joinAt)));
          }
        },
      ),
      parameters,
    );
    reportExplored('schedules and launches', parameters.numRuns ?? 0);
  }, 600_000);
});
