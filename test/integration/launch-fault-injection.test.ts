/**
 * The launcher under a fault at each call it makes — to DynamoDB (a timeout) and
 * to the service (a network error), before the call or after it took effect — run
 * by the synthesized state machine, whose own Retry is what tries again: every
 * time one bot at the service, the schedule launched with that bot, and the
 * meeting recorded for the reconciler.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { StateMachineDefinition } from 'aws-local-stepfunctions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isoToMicros } from '../../lambdas/core/apply/state-order';
import { DEFAULT_TIMING } from '../../lambdas/core/schedule/schedule-request';
import {
  getSchedule,
  launchInputOf,
  type ScheduleDependencies,
  upsertSchedule,
} from '../../lambdas/core/schedule/schedules';
import { keys } from '../../lambdas/core/store/table-layout';
import { silentTelemetry } from '../../lambdas/core/telemetry';
import { UpstreamClient, UpstreamError } from '../../lambdas/core/upstream/client';
import { createLaunchTaskHandler } from '../../lambdas/launch-bot/adapter';
import { documentClient } from '../../lambdas/shared/dynamo-client';
import type { LocalResources } from '../../local/resources';
import { SimulatedServiceApi } from '../../local/simulator/api-server';
import { LocalExecutions, launcherDefinition } from '../../local/step-functions';
import { testEventLog } from '../fixtures/event-log';
import { faultyClient, faultyMethods } from '../fixtures/faulty-client';
import { createResources, type LocalPipeline, startLocalPipeline } from '../fixtures/local-pipeline';
import { meetingItem } from '../fixtures/store-reader';
import { sharedTemplate } from '../infra/synth';

const service = new SimulatedServiceApi();
const NOW = Date.parse('2026-11-22T09:00:00Z');
let pipeline: LocalPipeline;
let resources: LocalResources;
let definition: StateMachineDefinition;

beforeAll(async () => {
  definition = launcherDefinition(sharedTemplate().toJSON());
  pipeline = await startLocalPipeline();
  resources = await createResources();
  await service.start();
  service.apiKeys.set('k', 'all');
  // The service's clock is the test's: it refuses join times before it.
  service.now = () => NOW;
});
afterAll(async () => {
  await service.stop();
  await pipeline?.stop();
});

/** Schedules are saved without starting anything: the test runs the state machine itself. */
const scheduleDeps = (): ScheduleDependencies => ({
  table: { db: documentClient(), tableName: resources.tableName },
  executions: { start: async (name) => ({ executionArn: `arn:held:${name}` }), stop: async () => {} },
  upstream: new UpstreamClient({ baseUrl: service.baseUrl, apiKey: async () => 'k', maxAttempts: 1 }),
  timing: DEFAULT_TIMING,
  telemetry: silentTelemetry,
  now: () => NOW,
});

function harness() {
  const db = faultyClient(documentClient());
  // A network error: the service never answered, whether or not it did the work.
  const upstream = faultyMethods(
    new UpstreamClient({ baseUrl: service.baseUrl, apiKey: async () => 'k', maxAttempts: 1 }),
    ['createBot', 'findBotByDeduplicationKey', 'getBot', 'updateBot', 'deleteBot'],
    (call, plan) => new UpstreamError(`injected network fault at service call ${call} (${plan.mode})`),
  );
  const executions = new LocalExecutions(definition, {
    task: createLaunchTaskHandler({
      table: { db: db.client, tableName: resources.tableName },
      upstream: upstream.client,
      events: testEventLog().publisher,
      telemetry: silentTelemetry,
      now: () => NOW,
    }) as (event: unknown) => Promise<unknown>,
    waitMs: () => 0,
    retryIntervalMs: 0,
  });
  return { db, upstream, executions };
}

/** Saves a schedule and runs its launch execution to the end. */
async function launch(scheduleId: string, h: ReturnType<typeof harness>) {
  const saved = await upsertSchedule(
    scheduleId,
    { meeting_url: 'https://meet.google.com/abc-defg-hij', join_at: '2026-11-22T10:00:00Z', bot_name: 'Notetaker' },
    scheduleDeps(),
  );
  if (!('schedule' in saved)) throw new Error(`schedule ${scheduleId} not saved`);
  const execution = await h.executions.start(scheduleId, launchInputOf(saved.schedule));
  return h.executions.executions.get(scheduleId)?.done ?? Promise.reject(new Error(execution.executionArn));
}

const botsFor = (scheduleId: string) =>
  [...service.bots.values()].filter((bot) => bot.metadata?.schedule_id === scheduleId);

async function expectOneLaunchedBot(scheduleId: string) {
  const bots = botsFor(scheduleId);
  expect(bots).toHaveLength(1);
  const botId = bots[0]!.id;
  expect(await getSchedule(scheduleId, scheduleDeps())).toMatchObject({ status: 'launched', botId });
  const meeting = await meetingItem(resources.tableName, botId);
  expect(meeting).toMatchObject({ botId, scheduleId, state: 'scheduled' });
  // Listed by day at its join time, whichever call failed.
  const listing = keys.dayListing(isoToMicros(String(meeting?.listedAt)), botId);
  const { Item } = await documentClient().send(new GetCommand({ TableName: resources.tableName, Key: listing }));
  expect(Item).toMatchObject({ botId, listedAt: meeting?.scheduledJoinAt });
}

let clean: { db: number; service: number };

describe('launcher fault injection', () => {
  beforeAll(async () => {
    const h = harness();
    expect(await launch('fault-clean', h)).toMatchObject({ status: 'SUCCEEDED' });
    await expectOneLaunchedBot('fault-clean');
    clean = { db: h.db.calls(), service: h.upstream.calls() };
  });

  it('makes the calls this test breaks one by one', () => {
    // Take the schedule, record the bot on it, record the meeting, list it by day; POST bots.
    expect(clean).toEqual({ db: 4, service: 1 });
  });

  const plans = (client: 'db' | 'service', calls: number) =>
    (['before', 'after'] as const).flatMap((mode) =>
      Array.from({ length: calls }, (_, i) => ({ client, mode, failAt: i + 1 })),
    );

  it.each([...plans('db', 4), ...plans('service', 1)])(
    'a fault at $client call $failAt ($mode), retried by the state machine: one bot, launched and recorded',
    async ({ client, mode, failAt }) => {
      const h = harness();
      if (client === 'db') h.db.reset({ failAt, mode, errorName: 'TimeoutError' });
      else h.upstream.reset({ failAt, mode });
      const scheduleId = `fault-${client}-${failAt}-${mode}`;
      expect(await launch(scheduleId, h)).toMatchObject({ status: 'SUCCEEDED' });
      await expectOneLaunchedBot(scheduleId);
      // Another run of the same launch (Step Functions may start a task twice) launches nothing more.
      h.db.reset();
      h.upstream.reset();
      await h.executions.stop(`arn:aws:states:local:000000000000:execution:launcher:${scheduleId}`).catch(() => {});
      h.executions.executions.delete(scheduleId);
      await launch(scheduleId, h);
      await expectOneLaunchedBot(scheduleId);
    },
  );
});
