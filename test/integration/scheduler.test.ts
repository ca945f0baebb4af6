import aslValidator from 'asl-validator';
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
import { LocalExecutions, launcherDefinition } from '../../local/step-functions';
import { createResources, type LocalPipeline, startLocalPipeline } from '../fixtures/local-pipeline';
import { meetingItem } from '../fixtures/store-reader';
import { synthTemplate } from '../infra/synth';

const service = new SimulatedServiceApi();
let pipeline: LocalPipeline;
let resources: LocalResources;
let definition: StateMachineDefinition;
let executions: LocalExecutions;
let now: number;

beforeAll(async () => {
  definition = launcherDefinition(synthTemplate().template.toJSON());
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
  service.faults = [];
  service.requests.length = 0;
  now = Date.parse('2026-11-22T09:00:00Z');
  executions = new LocalExecutions(definition, {
    // One attempt per call, so the state machine's own Retry is what retries.
    task: createLaunchTaskHandler({
      table: { db: documentClient(), tableName: resources.tableName },
      upstream: new UpstreamClient({ baseUrl: service.baseUrl, apiKey: async () => 'k', maxAttempts: 1 }),
      telemetry: silentTelemetry,
    }) as (event: unknown) => Promise<unknown>,
    waitMs: () => 0,
    retryIntervalMs: 0,
  });
});

const deps = (): ScheduleDependencies => ({
  table: { db: documentClient(), tableName: resources.tableName },
  executions,
  timing: DEFAULT_TIMING,
  telemetry: silentTelemetry,
  now: () => now,
});
const request = (overrides: Record<string, unknown> = {}) => ({
  meeting_url: 'https://meet.example.com/abc-defg-hij',
  join_at: '2026-11-22T10:00:00Z',
  bot_name: 'Notetaker',
  metadata: { team: 'platform' },
  ...overrides,
});
const botsFor = (scheduleId: string) =>
  [...service.bots.values()].filter((b) => b.metadata?.schedule_id === scheduleId);

describe('launcher state machine (the synthesized definition, run locally)', () => {
  it('is valid Amazon States Language', () => {
    const validation = aslValidator(definition);
    expect(validation.errorsText('\n')).toBe('');
    expect(validation.isValid).toBe(true);
  });

  it('waits, launches the bot, and records it on the schedule and the meeting', async () => {
    const result = await upsertSchedule('cal-happy', request(), deps());
    expect(result).toMatchObject({
      status: 201,
      schedule: { version: 1, status: 'scheduled', launchAt: '2026-11-22T09:59:00Z' },
    });
    const execution = [...executions.executions.values()][0]!;
    expect(await execution.done).toMatchObject({ status: 'SUCCEEDED' });
    const [bot, ...others] = botsFor('cal-happy');
    expect(others).toHaveLength(0);
    expect(bot).toMatchObject({
      meeting_url: 'https://meet.example.com/abc-defg-hij',
      join_at: '2026-11-22T10:00:00.000Z',
      deduplication_key: 'cal-happy:v1',
    });
    expect(bot?.metadata).toEqual({ team: 'platform', schedule_id: 'cal-happy', schedule_version: 1 });
    expect(await getSchedule('cal-happy', deps())).toMatchObject({ status: 'launched', botId: bot?.id });
    expect(await meetingItem(resources.tableName, bot!.id)).toMatchObject({
      scheduleId: 'cal-happy',
      scheduledJoinAt: '2026-11-22T10:00:00.000Z',
    });
  });

  it('retries after a 500, then launches', async () => {
    service.faults.push({ method: 'POST', path: /\/bots$/, times: 2, status: 500 });
    await upsertSchedule('cal-retry', request(), deps());
    expect(await [...executions.executions.values()][0]!.done).toMatchObject({ status: 'SUCCEEDED' });
    expect(botsFor('cal-retry')).toHaveLength(1);
  });

  it('creates one bot when POST bots answered 500 after creating it', async () => {
    service.faults.push({ method: 'POST', path: /\/bots$/, times: 1, status: 500, afterHandling: true });
    await upsertSchedule('cal-lost-answer', request(), deps());
    expect(await [...executions.executions.values()][0]!.done).toMatchObject({ status: 'SUCCEEDED' });
    expect(botsFor('cal-lost-answer')).toHaveLength(1);
    expect((await getSchedule('cal-lost-answer', deps()))?.botId).toBe(botsFor('cal-lost-answer')[0]?.id);
  });

  it('records a final failure on the schedule, with the reason', async () => {
    service.faults.push({
      method: 'POST',
      path: /\/bots$/,
      times: 1,
      status: 400,
      body: { error: 'meeting_url is not a supported meeting platform' },
    });
    await upsertSchedule('cal-refused', request(), deps());
    expect(await [...executions.executions.values()][0]!.done).toMatchObject({
      status: 'FAILED',
      error: expect.stringMatching(/POST bots failed for good/),
    });
    expect(await getSchedule('cal-refused', deps())).toMatchObject({
      status: 'failed',
      failureReason: expect.stringMatching(/^BadRequestError: .*not a supported meeting platform/),
    });
  });

  it('gives up after its retries on a service that stays down', async () => {
    service.faults.push({ method: 'POST', path: /\/bots$/, times: 20, status: 503 });
    await upsertSchedule('cal-down', request(), deps());
    expect(await [...executions.executions.values()][0]!.done).toMatchObject({ status: 'FAILED' });
    expect(await getSchedule('cal-down', deps())).toMatchObject({
      status: 'failed',
      failureReason: expect.stringMatching(/^UpstreamError: .*503/),
    });
    // The first attempt and the definition's 6 retries.
    expect(service.requests.filter((r) => r.method === 'POST' && r.path === '/api/v1/bots')).toHaveLength(7);
  });
});

describe('schedule core', () => {
  beforeEach(() => {
    // Hold the launcher so the schedule stays 'scheduled' while the test moves or cancels it.
    executions = new LocalExecutions(definition, {
      task: async () => ({ status: 'skipped', reason: 'held' }),
      waitMs: () => 60_000,
    });
  });

  it('changes nothing when the same request comes again', async () => {
    const first = await upsertSchedule('cal-same', request(), deps());
    const again = await upsertSchedule('cal-same', request(), deps());
    expect(first.status).toBe(201);
    expect(again).toMatchObject({ status: 200, schedule: { version: 1 } });
    expect(executions.executions.size).toBe(1);
  });

  it('moves: a new time stops the old execution and starts a new version', async () => {
    await upsertSchedule('cal-move', request(), deps());
    const moved = await upsertSchedule('cal-move', request({ join_at: '2026-11-22T11:30:00+01:00' }), deps());
    expect(moved).toMatchObject({
      status: 200,
      schedule: { version: 2, joinAt: '2026-11-22T10:30:00.000Z', launchAt: '2026-11-22T10:29:00Z' },
    });
    const [v1, v2] = [...executions.executions.values()];
    expect(v1?.stopped).toBe(true);
    expect(await v1?.done).toEqual({ status: 'ABORTED' });
    expect(v2?.name).toMatch(/-v2$/);
    expect(v2?.stopped).toBe(false);
  });

  it('cancels, stopping the execution', async () => {
    await upsertSchedule('cal-cancel', request(), deps());
    expect(await cancelSchedule('cal-cancel', deps())).toMatchObject({
      status: 200,
      schedule: { status: 'cancelled' },
    });
    expect([...executions.executions.values()][0]?.stopped).toBe(true);
    expect(await cancelSchedule('cal-nope', deps())).toMatchObject({ status: 404 });
  });

  it('leaves a launched bot alone on cancel, and says so', async () => {
    await upsertSchedule('cal-launched', request(), deps());
    const db = documentClient();
    const { UpdateCommand } = await import('@aws-sdk/lib-dynamodb');
    await db.send(
      new UpdateCommand({
        TableName: resources.tableName,
        Key: { pk: 'SCHEDULE#cal-launched', sk: 'SCHEDULE' },
        UpdateExpression: 'SET #s = :l, botId = :b',
        ExpressionAttributeNames: { '#s': 'status' },
        ExpressionAttributeValues: { ':l': 'launched', ':b': 'bot_x' },
      }),
    );
    expect(await cancelSchedule('cal-launched', deps())).toMatchObject({
      status: 200,
      schedule: { status: 'launched' },
      message: expect.stringMatching(/bot_x was already launched; it is left alone/),
    });
    expect(await upsertSchedule('cal-launched', request({ join_at: '2026-11-22T12:00:00Z' }), deps())).toMatchObject({
      status: 409,
    });
  });

  it('launches a join time just past right away, refuses older or more than a year ahead', async () => {
    expect(await upsertSchedule('cal-just-past', request({ join_at: '2026-11-22T08:57:00Z' }), deps())).toMatchObject({
      status: 201,
      schedule: { launchAt: '2026-11-22T09:00:00Z' },
    });
    expect(await upsertSchedule('cal-past', request({ join_at: '2026-11-22T08:00:00Z' }), deps())).toMatchObject({
      status: 400,
      error: { code: 'invalid-join-time', message: expect.stringMatching(/past/) },
    });
    expect(await upsertSchedule('cal-far', request({ join_at: '2027-11-30T10:00:00Z' }), deps())).toMatchObject({
      status: 400,
      error: { message: expect.stringMatching(/a year/) },
    });
  });

  it('refuses bad requests with the field named', async () => {
    expect(
      await upsertSchedule('cal-bad', request({ meeting_url: 'http://meet.example.com/x' }), deps()),
    ).toMatchObject({ status: 400, error: { message: expect.stringMatching(/^meeting_url: must be an https URL/) } });
    expect(await upsertSchedule('cal-bad', request({ join_at: 'tomorrow' }), deps())).toMatchObject({
      status: 400,
      error: { message: expect.stringMatching(/^join_at: /) },
    });
    expect(await upsertSchedule('bad/id', request(), deps())).toMatchObject({
      status: 400,
      error: { code: 'invalid-schedule-id' },
    });
    expect(executions.executions.size).toBe(0);
  });

  it('starts one execution per version even when a request is retried', async () => {
    const statuses = (
      await Promise.all([upsertSchedule('cal-race', request(), deps()), upsertSchedule('cal-race', request(), deps())])
    ).map((r) => r.status);
    // One creates it; the other saw it (200, unchanged) or lost the conditional write (409, send again).
    expect(statuses).toContain(201);
    expect([200, 409]).toContain(statuses.find((status) => status !== 201));
    expect([...executions.executions.values()].filter((e) => !e.stopped)).toHaveLength(1);
  });
});
