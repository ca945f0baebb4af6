import { randomUUID } from 'node:crypto';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import aslValidator from 'asl-validator';
import type { EventBridgeEvent } from 'aws-lambda';
import type { StateMachineDefinition } from 'aws-local-stepfunctions';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { domainEvents } from '../../lambdas/core/domain-events/catalogue';
import { DOMAIN_EVENTS_NOT_PUBLISHED } from '../../lambdas/core/domain-events/publisher';
import { CALENDAR_EVENT_LEASE_MS, takeCalendarEvent } from '../../lambdas/core/schedule/applied-calendar-events';
import {
  CALENDAR_DETAIL_TYPES,
  CALENDAR_EVENT_SOURCE,
  type CalendarEventKind,
} from '../../lambdas/core/schedule/calendar-events';
import type { LaunchInput } from '../../lambdas/core/schedule/executions';
import { type LaunchDependencies, launchScheduledBot, recordLaunchFailure } from '../../lambdas/core/schedule/launch';
import { DEFAULT_TIMING, launchJitterMs } from '../../lambdas/core/schedule/schedule-request';
import {
  cancelSchedule,
  getSchedule,
  launchInputOf,
  type ScheduleDependencies,
  upsertSchedule,
} from '../../lambdas/core/schedule/schedules';
import { GSI, keys } from '../../lambdas/core/store/table-layout';
import { METRICS, silentTelemetry } from '../../lambdas/core/telemetry';
import { UpstreamClient, type UpstreamClientOptions } from '../../lambdas/core/upstream/client';
import { createLaunchTaskHandler } from '../../lambdas/launch-bot/adapter';
import { CalendarEventInFlightError, createSchedulesHandler } from '../../lambdas/schedules/adapter';
import { documentClient } from '../../lambdas/shared/dynamo-client';
import type { LocalResources } from '../../local/resources';
import { SimulatedServiceApi } from '../../local/simulator/api-server';
import { LocalExecutions, launcherDefinition } from '../../local/step-functions';
import { testEventLog } from '../fixtures/event-log';
import { entryProblems } from '../fixtures/event-schemas';
import { faultyMethods } from '../fixtures/faulty-client';
import {
  createResources,
  type LocalPipeline,
  recordingTelemetry,
  startLocalPipeline,
} from '../fixtures/local-pipeline';
import { meetingItem } from '../fixtures/store-reader';

const service = new SimulatedServiceApi();
let pipeline: LocalPipeline;
let resources: LocalResources;
let definition: StateMachineDefinition;
let executions: LocalExecutions;
let now: number;

beforeAll(async () => {
  pipeline = await startLocalPipeline();
  resources = await createResources();
  // The launcher of the stack these resources were created from.
  definition = launcherDefinition(resources.deployment.resources.template);
  await service.start();
  service.apiKeys.set('k', 'all');
});
afterAll(async () => {
  await service.stop();
  await pipeline?.stop();
});
// One attempt per call, so the state machine's own Retry is what retries.
const upstream = (options: Partial<UpstreamClientOptions> = {}) =>
  new UpstreamClient({ baseUrl: service.baseUrl, apiKey: async () => 'k', maxAttempts: 1, ...options });
const launcher = (options: Partial<UpstreamClientOptions> = {}, waitMs: (input: LaunchInput) => number = () => 0) =>
  new LocalExecutions(definition, {
    task: createLaunchTaskHandler({
      table: { db: documentClient(), tableName: resources.tableName },
      upstream: upstream(options),
      events: testEventLog().publisher,
      telemetry: silentTelemetry,
      now: () => now,
    }) as (event: unknown) => Promise<unknown>,
    waitMs,
    retryIntervalMs: 0,
  });

beforeEach(() => {
  service.faults = [];
  service.requests.length = 0;
  now = Date.parse('2026-11-22T09:00:00Z');
  // The service's clock is the test's: it refuses join times before it, and stages bots by it.
  service.now = () => now;
  executions = launcher();
});

const deps = (): ScheduleDependencies => ({
  table: { db: documentClient(), tableName: resources.tableName },
  executions,
  upstream: upstream(),
  timing: DEFAULT_TIMING,
  telemetry: silentTelemetry,
  now: () => now,
});
/** When a schedule launches for a join time: the lead and its own jitter before it (whole seconds, Z). */
const launchAtFor = (scheduleId: string, joinAt: string) =>
  new Date(Date.parse(joinAt) - DEFAULT_TIMING.leadMs - launchJitterMs(scheduleId, DEFAULT_TIMING.jitterMs))
    .toISOString()
    .replace('.000Z', 'Z');
const request = (overrides: Record<string, unknown> = {}) => ({
  meeting_url: 'https://meet.google.com/abc-defg-hij',
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

  it('waits, launches the bot ahead of its join time, and records it on the schedule and the meeting', async () => {
    const result = await upsertSchedule('cal-happy', request(), deps());
    expect(result).toMatchObject({
      status: 201,
      schedule: { version: 1, status: 'scheduled', launchAt: launchAtFor('cal-happy', '2026-11-22T10:00:00Z') },
    });
    const execution = [...executions.executions.values()][0]!;
    expect(await execution.done).toMatchObject({ status: 'SUCCEEDED' });
    const [bot, ...others] = botsFor('cal-happy');
    expect(others).toHaveLength(0);
    // The service holds it as scheduled and starts it itself 5–10 minutes before join_at.
    expect(bot).toMatchObject({
      state: 'scheduled',
      meeting_url: 'https://meet.google.com/abc-defg-hij',
      join_at: '2026-11-22T10:00:00Z',
      deduplication_key: 'cal-happy:v1',
    });
    expect(bot?.metadata).toEqual({ team: 'platform', schedule_id: 'cal-happy', schedule_version: '1' });
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

  it('adopts the bot when POST bots answered 500 after creating it', async () => {
    service.faults.push({ method: 'POST', path: /\/bots$/, times: 1, status: 500, afterHandling: true });
    await upsertSchedule('cal-lost-answer', request(), deps());
    expect(await [...executions.executions.values()][0]!.done).toMatchObject({ status: 'SUCCEEDED' });
    expect(botsFor('cal-lost-answer')).toHaveLength(1);
    expect(await getSchedule('cal-lost-answer', deps())).toMatchObject({
      status: 'launched',
      botId: botsFor('cal-lost-answer')[0]?.id,
    });
    expect(service.requests.filter((r) => r.method === 'POST')).toHaveLength(1);
  });

  it('adopts the bot when POST bots timed out after creating it', async () => {
    executions = launcher({ timeoutMs: 150 });
    service.faults.push({ method: 'POST', path: /\/bots$/, times: 1, delayMs: 400, afterHandling: true });
    await upsertSchedule('cal-timeout', request(), deps());
    expect(await [...executions.executions.values()][0]!.done).toMatchObject({ status: 'SUCCEEDED' });
    expect(service.requests.filter((r) => r.method === 'POST')).toHaveLength(1);
    expect(botsFor('cal-timeout')).toHaveLength(1);
    expect((await getSchedule('cal-timeout', deps()))?.botId).toBe(botsFor('cal-timeout')[0]?.id);
  });

  it('adopts the live bot holding its deduplication key (the service answers 400, not the old bot)', async () => {
    const earlier = service.addBot({
      state: 'scheduled',
      join_at: '2026-11-22T10:00:00Z',
      deduplication_key: 'cal-dedup:v1',
      metadata: { schedule_id: 'cal-dedup', schedule_version: '1' },
    });
    await upsertSchedule('cal-dedup', request(), deps());
    expect(await [...executions.executions.values()][0]!.done).toMatchObject({ status: 'SUCCEEDED' });
    expect(botsFor('cal-dedup')).toEqual([earlier]);
    expect(await getSchedule('cal-dedup', deps())).toMatchObject({ status: 'launched', botId: earlier.id });
    expect(service.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['POST /api/v1/bots', 'GET /api/v1/bots']);
  });

  it('launches a join time already past (within the grace) at once, without join_at', async () => {
    await upsertSchedule('cal-late', request({ join_at: '2026-11-22T08:58:00Z' }), deps());
    expect(await [...executions.executions.values()][0]!.done).toMatchObject({ status: 'SUCCEEDED' });
    const [bot] = botsFor('cal-late');
    expect(bot).toMatchObject({ join_at: null });
    expect(bot?.state).not.toBe('scheduled');
  });

  it('sends metadata numbers and booleans as text', async () => {
    await upsertSchedule('cal-text', request({ metadata: { seats: 12, recorded: true, team: 'ops' } }), deps());
    expect(await [...executions.executions.values()][0]!.done).toMatchObject({ status: 'SUCCEEDED' });
    expect(botsFor('cal-text')[0]?.metadata).toEqual({
      seats: '12',
      recorded: 'true',
      team: 'ops',
      schedule_id: 'cal-text',
      schedule_version: '1',
    });
  });

  it('records a final failure on the schedule, with the reason', async () => {
    // Not a Zoom, Meet or Teams link: the service refuses it.
    await upsertSchedule('cal-refused', request({ meeting_url: 'https://example.com/standup' }), deps());
    expect(await [...executions.executions.values()][0]!.done).toMatchObject({
      status: 'FAILED',
      error: expect.stringMatching(/POST bots failed for good/),
    });
    expect(await getSchedule('cal-refused', deps())).toMatchObject({
      status: 'failed',
      failureReason: expect.stringMatching(/^BadRequestError: .*Invalid meeting URL/),
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

describe('launcher domain events', () => {
  /** The launcher publishing through local mode's publisher, whose first `publish` fails. */
  const publishing = () => {
    const log = testEventLog();
    const events = faultyMethods(log.publisher, ['publish']);
    events.reset({ failAt: 1, mode: 'before', errorName: DOMAIN_EVENTS_NOT_PUBLISHED });
    executions = new LocalExecutions(definition, {
      task: createLaunchTaskHandler({
        table: { db: documentClient(), tableName: resources.tableName },
        upstream: upstream(),
        events: events.client,
        telemetry: silentTelemetry,
        now: () => now,
      }) as (event: unknown) => Promise<unknown>,
      waitMs: () => 0,
      retryIntervalMs: 0,
    });
    return log;
  };

  it('schedule.launched after the launch is recorded; a failed publish is retried and finds it launched', async () => {
    const log = publishing();
    await upsertSchedule('ev-launched', request(), deps());
    expect(await [...executions.executions.values()][0]!.done).toMatchObject({ status: 'SUCCEEDED' });
    const [bot, ...others] = botsFor('ev-launched');
    expect(others).toHaveLength(0);
    const expected = domainEvents.scheduleLaunched({
      schedule_id: 'ev-launched',
      schedule_version: 1,
      bot_id: bot!.id,
      join_at: '2026-11-22T10:00:00.000Z',
    });
    expect(log.events()).toEqual([{ detailType: expected.detailType, detail: expected.detail }]);
    for (const entry of log.entries()) expect(entryProblems(entry)).toEqual([]);
    // The link (a Zoom link holds its passcode) is in neither the event nor the execution's input,
    // which Step Functions and the event archive keep out of an erasure's reach.
    const copies = JSON.stringify([log.entries(), [...executions.executions.values()].map((e) => e.input)]);
    expect(copies).not.toContain('abc-defg-hij');
    expect(copies).not.toContain('Notetaker');
  });

  it('schedule.failed when the final failure is recorded; a failed publish is retried with the reason recorded', async () => {
    const log = publishing();
    await upsertSchedule('ev-failed', request({ meeting_url: 'https://example.com/standup' }), deps());
    expect(await [...executions.executions.values()][0]!.done).toMatchObject({ status: 'FAILED' });
    const { failureReason } = (await getSchedule('ev-failed', deps()))!;
    const expected = domainEvents.scheduleFailed({
      schedule_id: 'ev-failed',
      schedule_version: 1,
      reason: failureReason!,
    });
    expect(log.events()).toEqual([{ detailType: expected.detailType, detail: expected.detail }]);
    for (const entry of log.entries()) expect(entryProblems(entry)).toEqual([]);
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
      schedule: {
        version: 2,
        joinAt: '2026-11-22T10:30:00.000Z',
        launchAt: launchAtFor('cal-move', '2026-11-22T10:30:00Z'),
      },
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

  /** A schedule its launcher already launched, with its bot at the service in `state`. */
  const launched = async (scheduleId: string, state: string) => {
    await upsertSchedule(scheduleId, request(), deps());
    const bot = service.addBot({
      state,
      join_at: '2026-11-22T10:00:00Z',
      deduplication_key: `${scheduleId}:v1`,
      metadata: { team: 'platform', schedule_id: scheduleId, schedule_version: '1' },
    });
    const { UpdateCommand } = await import('@aws-sdk/lib-dynamodb');
    await documentClient().send(
      new UpdateCommand({
        TableName: resources.tableName,
        Key: { pk: `SCHEDULE#${scheduleId}`, sk: 'SCHEDULE' },
        UpdateExpression: 'SET #s = :l, botId = :b',
        ExpressionAttributeNames: { '#s': 'status' },
        ExpressionAttributeValues: { ':l': 'launched', ':b': bot.id },
      }),
    );
    return bot;
  };

  it('cancelling a launched bot the service has not started deletes it there', async () => {
    const bot = await launched('cal-launched-cancel', 'scheduled');
    expect(await cancelSchedule('cal-launched-cancel', deps())).toMatchObject({
      status: 200,
      schedule: { status: 'cancelled' },
      message: expect.stringMatching(/deleted at the service/),
    });
    expect(service.bots.has(bot.id)).toBe(false);
  });

  it('a move meeting a cancel that deleted the bot is applied after it, not a 500 (found by the interleaving test)', async () => {
    const bot = await launched('cal-launched-move-cancel', 'scheduled');
    const client = upstream();
    // The cancel runs between the move's look at the bot and its PATCH.
    const cancelFirst: ScheduleDependencies['upstream'] = Object.assign(Object.create(client) as UpstreamClient, {
      updateBot: async (id: string, changes: Parameters<UpstreamClient['updateBot']>[1]) => {
        expect(await cancelSchedule('cal-launched-move-cancel', deps())).toMatchObject({ status: 200 });
        return client.updateBot(id, changes);
      },
    });
    const moved = await upsertSchedule('cal-launched-move-cancel', request({ join_at: '2026-11-22T12:00:00Z' }), {
      ...deps(),
      upstream: cancelFirst,
    });
    // It lost the race to the cancel, so it is sent again (upsertSchedule does) and finds the schedule
    // cancelled: a PUT after a DELETE schedules the meeting anew, as a new version.
    expect(moved).toMatchObject({
      status: 200,
      schedule: { status: 'scheduled', version: 2, joinAt: '2026-11-22T12:00:00.000Z' },
    });
    expect(service.bots.has(bot.id)).toBe(false);
  });

  it('a move of a bot deleted at the service answers 409 bot-gone', async () => {
    const bot = await launched('cal-launched-gone', 'scheduled');
    service.bots.delete(bot.id);
    const moved = await upsertSchedule('cal-launched-gone', request({ join_at: '2026-11-22T12:00:00Z' }), deps());
    expect(moved).toMatchObject({ status: 409, error: { code: 'bot-gone' } });
  });

  it('moving a launched bot the service has not started patches it there', async () => {
    const bot = await launched('cal-launched-move', 'scheduled');
    const moved = await upsertSchedule(
      'cal-launched-move',
      request({ join_at: '2026-11-22T12:00:00Z', metadata: { team: 'sales' } }),
      deps(),
    );
    expect(moved).toMatchObject({ status: 200, schedule: { status: 'launched', joinAt: '2026-11-22T12:00:00.000Z' } });
    expect(service.bots.get(bot.id)).toMatchObject({
      state: 'scheduled',
      join_at: '2026-11-22T12:00:00Z',
      metadata: { team: 'sales', schedule_id: 'cal-launched-move', schedule_version: '1' },
    });
    expect(service.requests.filter((r) => r.method === 'PATCH')).toHaveLength(1);
    // The meeting follows, so a bot that stays silent is looked at after its new time, not its old one.
    expect(await meetingItem(resources.tableName, bot.id)).toMatchObject({
      scheduledJoinAt: '2026-11-22T12:00:00.000Z',
      state: 'scheduled',
      [GSI.byState.sortKey]: keys.meetingAt(Date.parse('2026-11-22T12:00:00Z') * 1000, bot.id),
    });
    // The same request again is no change.
    expect(
      await upsertSchedule(
        'cal-launched-move',
        request({ join_at: '2026-11-22T12:00:00Z', metadata: { team: 'sales' } }),
        deps(),
      ),
    ).toMatchObject({ status: 200 });
    expect(service.requests.filter((r) => r.method === 'PATCH')).toHaveLength(1);
  });

  it('reports a launched bot the service already started (409 with the reason), on cancel and on move', async () => {
    const bot = await launched('cal-launched-started', 'joined_recording');
    const reason = new RegExp(`Bot ${bot.id} is already joined_recording`);
    expect(await cancelSchedule('cal-launched-started', deps())).toMatchObject({
      status: 409,
      error: { code: 'bot-started', message: expect.stringMatching(reason) },
    });
    expect(
      await upsertSchedule('cal-launched-started', request({ join_at: '2026-11-22T12:00:00Z' }), deps()),
    ).toMatchObject({ status: 409, error: { code: 'bot-started', message: expect.stringMatching(reason) } });
    expect(service.bots.get(bot.id)?.join_at).toBe('2026-11-22T10:00:00Z');
    expect(await getSchedule('cal-launched-started', deps())).toMatchObject({ status: 'launched' });
  });

  it('a bot the service staged meanwhile is reported, not kept silently', async () => {
    const bot = await launched('cal-launched-staged', 'scheduled');
    now = Date.parse('2026-11-22T09:55:00Z');
    service.startDueBots(); // between 10 and 5 minutes before 10:00 the service stages it
    expect(service.bots.get(bot.id)?.state).toBe('staged');
    expect(await cancelSchedule('cal-launched-staged', deps())).toMatchObject({
      status: 409,
      error: { message: expect.stringMatching(/already staged/) },
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
      await upsertSchedule('cal-bad', request({ meeting_url: 'http://meet.google.com/abc-defg-hij' }), deps()),
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

  it.each([
    ['an object', { room: { floor: 3 } }, /^metadata\.room: must be a string, number or boolean/],
    ['an array', { tags: ['a'] }, /^metadata\.tags: must be a string, number or boolean/],
    ['null', { owner: null }, /^metadata\.owner: must be a string, number or boolean/],
    // 1000 characters as the service counts them, with the launcher's schedule_id and schedule_version added.
    ['too long with the launcher keys', { notes: 'x'.repeat(940) }, /^metadata: 10\d\d characters .* at most 1000/],
    ['too long once escaped as the service does', { notes: 'é'.repeat(160) }, /^metadata: \d+ characters/],
  ])('refuses metadata holding %s, saying why', async (_label, metadata, reason) => {
    expect(await upsertSchedule('cal-meta', request({ metadata }), deps())).toMatchObject({
      status: 400,
      error: { code: 'invalid-schedule', message: expect.stringMatching(reason) },
    });
    expect(executions.executions.size).toBe(0);
  });

  it('takes metadata just inside the service limit', async () => {
    // {"notes": "…", "schedule_id": "cal-meta-fits", "schedule_version": "1"} is exactly 1000 characters.
    const fixed = '{"notes": "", "schedule_id": "cal-meta-fits", "schedule_version": "1"}'.length;
    const metadata = { notes: 'x'.repeat(1000 - fixed) };
    expect(await upsertSchedule('cal-meta-fits', request({ metadata }), deps())).toMatchObject({ status: 201 });
    expect(
      await upsertSchedule('cal-meta-over', request({ metadata: { notes: `${metadata.notes}xx` } }), deps()),
    ).toMatchObject({
      status: 400,
    });
  });

  it('spreads launches by a jitter fixed per schedule: 15 to 20 minutes ahead', async () => {
    const launchAts = new Map<string, number>();
    for (let i = 0; i < 12; i++) {
      const id = `cal-hourly-${i}`;
      const result = await upsertSchedule(id, request(), deps());
      if (!('schedule' in result)) throw new Error(result.error.message);
      launchAts.set(id, Date.parse(result.schedule.launchAt));
    }
    const join = Date.parse('2026-11-22T10:00:00Z');
    for (const at of launchAts.values()) {
      expect(join - at).toBeGreaterThanOrEqual(15 * 60_000);
      expect(join - at).toBeLessThanOrEqual(20 * 60_000);
    }
    expect(new Set(launchAts.values()).size).toBeGreaterThan(8);
    // The same schedule keeps its jitter when moved.
    const moved = await upsertSchedule('cal-hourly-0', request({ join_at: '2026-11-22T11:00:00Z' }), deps());
    expect('schedule' in moved && Date.parse(moved.schedule.launchAt)).toBe(launchAts.get('cal-hourly-0')! + 3_600_000);
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

describe('races between a launch in flight and changes to its schedule', () => {
  /** Executions that never run on their own: the test runs the launch itself, at the moment it chooses. */
  const heldExecutions = {
    start: async (name: string) => ({ executionArn: `arn:held:${name}` }),
    stop: async () => {},
  };
  const scheduleDeps = (): ScheduleDependencies => ({ ...deps(), executions: heldExecutions });

  /** A launch whose POST bots has reached the service but whose answer is held until `release`. */
  function launchInFlight(input: LaunchInput) {
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let posted: () => void = () => {};
    const reachedService = new Promise<void>((resolve) => {
      posted = resolve;
    });
    const client = upstream();
    const slowPost: LaunchDependencies['upstream'] = {
      createBot: async (request) => {
        const bot = await client.createBot(request);
        posted();
        await held;
        return bot;
      },
      findBotByDeduplicationKey: (key) => client.findBotByDeduplicationKey(key),
      getBot: (id) => client.getBot(id),
      updateBot: (id, changes) => client.updateBot(id, changes),
      deleteBot: (id) => client.deleteBot(id),
    };
    const done = launchScheduledBot(input, {
      table: { db: documentClient(), tableName: resources.tableName },
      upstream: slowPost,
      events: testEventLog().publisher,
      telemetry: silentTelemetry,
      now: () => now,
    });
    return { reachedService, release, done };
  }

  it('a move during the launch patches the one bot once it exists', async () => {
    const created = await upsertSchedule('race-move', request(), scheduleDeps());
    if (!('schedule' in created)) throw new Error('not created');
    const launch = launchInFlight(launchInputOf(created.schedule));
    await launch.reachedService;
    const moved = await upsertSchedule('race-move', request({ join_at: '2026-11-22T11:00:00Z' }), scheduleDeps());
    expect(moved).toMatchObject({ status: 202 });
    launch.release();
    expect(await launch.done).toMatchObject({ status: 'launched' });

    const bots = botsFor('race-move');
    expect(bots).toHaveLength(1);
    expect(bots[0]).toMatchObject({ join_at: '2026-11-22T11:00:00Z', state: 'scheduled' });
    expect(await getSchedule('race-move', deps())).toMatchObject({
      status: 'launched',
      botId: bots[0]?.id,
      joinAt: '2026-11-22T11:00:00.000Z',
    });
    expect((await getSchedule('race-move', deps()))?.pendingChange).toBeUndefined();
  });

  it('a cancel during the launch deletes the bot once it exists, and the schedule stays cancelled', async () => {
    const created = await upsertSchedule('race-cancel', request(), scheduleDeps());
    if (!('schedule' in created)) throw new Error('not created');
    const launch = launchInFlight(launchInputOf(created.schedule));
    await launch.reachedService;
    expect(await cancelSchedule('race-cancel', scheduleDeps())).toMatchObject({ status: 202 });
    launch.release();
    await launch.done;
    expect(botsFor('race-cancel')).toHaveLength(0);
    expect(await getSchedule('race-cancel', deps())).toMatchObject({ status: 'cancelled' });
  });

  it('a launch failing as it records a move asked for meanwhile: its retry makes the move (found by the interleaving soak)', async () => {
    const created = await upsertSchedule('race-move-crash', request(), scheduleDeps());
    if (!('schedule' in created)) throw new Error('not created');
    const input = launchInputOf(created.schedule);
    const client = upstream();
    // The move arrives while the launch holds the schedule (it is recorded as pending), just before POST bots.
    const moveDuringPost: LaunchDependencies['upstream'] = Object.assign(Object.create(client) as UpstreamClient, {
      createBot: async (body: Parameters<UpstreamClient['createBot']>[0]) => {
        const moved = await upsertSchedule(
          'race-move-crash',
          request({ join_at: '2026-11-22T11:00:00Z' }),
          scheduleDeps(),
        );
        expect(moved).toMatchObject({ status: 202 });
        return client.createBot(body);
      },
    });
    // The write that records the move fails once (after the bot was patched), as a DynamoDB timeout would.
    const db = documentClient();
    const send = db.send.bind(db) as (command: unknown) => Promise<unknown>;
    let failed = false;
    db.send = ((command: { input?: { UpdateExpression?: string } }) => {
      if (!failed && command.input?.UpdateExpression?.startsWith('SET joinAt') === true) {
        failed = true;
        return Promise.reject(Object.assign(new Error('timed out'), { name: 'TimeoutError' }));
      }
      return send(command);
    }) as typeof db.send;
    const launchDeps = (upstreamClient: LaunchDependencies['upstream'], table = db) => ({
      table: { db: table, tableName: resources.tableName },
      upstream: upstreamClient,
      events: testEventLog().publisher,
      telemetry: silentTelemetry,
      now: () => now,
    });
    await expect(launchScheduledBot(input, launchDeps(moveDuringPost))).rejects.toThrow(/timed out/);
    // The state machine retries the task.
    expect(await launchScheduledBot(input, launchDeps(client, documentClient()))).toMatchObject({ status: 'launched' });
    const bots = botsFor('race-move-crash');
    expect(bots).toHaveLength(1);
    expect(bots[0]).toMatchObject({ join_at: '2026-11-22T11:00:00Z' });
    const schedule = await getSchedule('race-move-crash', deps());
    expect(schedule).toMatchObject({ status: 'launched', botId: bots[0]?.id, joinAt: '2026-11-22T11:00:00.000Z' });
    expect(schedule?.pendingChange).toBeUndefined();
  });

  it('a table error after POST bots, then a retry: one bot, launched, never marked failed', async () => {
    const created = await upsertSchedule('race-crash', request(), scheduleDeps());
    if (!('schedule' in created)) throw new Error('not created');
    const input = launchInputOf(created.schedule);
    const db = documentClient();
    const send = db.send.bind(db);
    let failed = false;
    // The write that records the bot fails once, as a DynamoDB timeout would.
    db.send = ((command: { input?: { ExpressionAttributeValues?: Record<string, unknown> } }, ...rest: unknown[]) => {
      if (!failed && command.input?.ExpressionAttributeValues?.[':launched'] === 'launched') {
        failed = true;
        return Promise.reject(Object.assign(new Error('timed out'), { name: 'TimeoutError' }));
      }
      return (send as (...args: unknown[]) => Promise<unknown>)(command, ...rest);
    }) as typeof db.send;
    const launchDeps = {
      table: { db, tableName: resources.tableName },
      upstream: upstream(),
      events: testEventLog().publisher,
      telemetry: silentTelemetry,
      now: () => now,
    };
    await expect(launchScheduledBot(input, launchDeps)).rejects.toThrow(/timed out/);
    expect(await launchScheduledBot(input, launchDeps)).toMatchObject({ status: 'launched' });
    // A failure reported after that (a later state) does not undo the launch.
    await recordLaunchFailure(input, { Error: 'TimeoutError', Cause: 'late' }, launchDeps);
    const bots = botsFor('race-crash');
    expect(bots).toHaveLength(1);
    expect(await getSchedule('race-crash', deps())).toMatchObject({ status: 'launched', botId: bots[0]?.id });
    // The same request again changes nothing and launches nothing.
    expect(await upsertSchedule('race-crash', request(), scheduleDeps())).toMatchObject({ status: 200 });
    expect(botsFor('race-crash')).toHaveLength(1);
  });
});

describe('calendar events delivered out of order (EventBridge does not order them)', () => {
  /** Version 1 waits at the launcher until stopped; any later version launches at once, so a revival shows as a bot. */
  const holdFirstVersion = (input: LaunchInput) => (input.version === 1 ? 3_600_000 : 0);
  beforeEach(() => {
    executions = launcher({}, holdFirstVersion);
  });

  /** The schedules function as EventBridge invokes it, with the metrics it emits. */
  const calendar = (overrides: Partial<ScheduleDependencies> = {}) => {
    const { telemetry, metrics } = recordingTelemetry();
    const handle = createSchedulesHandler({ ...deps(), telemetry, ...overrides });
    const envelope = (kind: CalendarEventKind, detail: Record<string, unknown>) =>
      ({
        version: '0',
        id: randomUUID(),
        'detail-type': CALENDAR_DETAIL_TYPES[kind],
        source: CALENDAR_EVENT_SOURCE,
        account: '111111111111',
        time: '2026-11-22T09:00:00Z',
        region: 'eu-west-1',
        resources: [],
        detail,
      }) satisfies EventBridgeEvent<string, unknown>;
    const deliver = (kind: CalendarEventKind, detail: Record<string, unknown>) => handle(envelope(kind, detail));
    const stale = () => metrics.filter((m) => m.name === METRICS.calendarEventStale.name).length;
    /** `redeliver` hands the function an event again, as EventBridge may: the same id. */
    return { deliver, stale, envelope, redeliver: handle };
  };
  /** Every execution past version 1 run to its end: a revived schedule has launched its bot by then. */
  const laterVersionsDone = () =>
    Promise.all([...executions.executions.values()].filter((e) => e.input.version > 1).map((e) => e.done));

  it.each([
    ['a newer sequence', 2],
    ['the same sequence (a cancellation wins the tie)', 1],
  ])('an Upserted redelivered after a Cancelled with %s launches no bot', async (_label, cancelSequence) => {
    const id = `order-revive-${cancelSequence}`;
    const { deliver, stale } = calendar();
    await deliver('upserted', { schedule_id: id, ...request(), sequence: 1 });
    await deliver('cancelled', { schedule_id: id, sequence: cancelSequence });
    await deliver('upserted', { schedule_id: id, ...request(), sequence: 1 });
    await laterVersionsDone();

    expect(botsFor(id)).toEqual([]);
    expect(await getSchedule(id, deps())).toMatchObject({ status: 'cancelled', version: 1 });
    expect([...executions.executions.values()].map((e) => [e.input.version, e.stopped])).toEqual([[1, true]]);
    expect(stale()).toBe(1);
  });

  it('a Cancelled delivered before its first Upserted keeps the meeting out; a newer Upserted still schedules it', async () => {
    const { deliver, stale } = calendar();
    await deliver('cancelled', { schedule_id: 'order-cancel-first', sequence: 2 });
    await deliver('upserted', { schedule_id: 'order-cancel-first', ...request(), sequence: 1 });
    expect(await getSchedule('order-cancel-first', deps())).toBeUndefined();
    expect(executions.executions.size).toBe(0);
    expect(stale()).toBe(1);

    await deliver('upserted', { schedule_id: 'order-cancel-first', ...request(), sequence: 3 });
    expect(await getSchedule('order-cancel-first', deps())).toMatchObject({ status: 'scheduled', version: 1 });
    expect(executions.executions.size).toBe(1);
  });

  it.each([
    ['sequence', { sequence: 7 }, { sequence: 6 }],
    // The same instant written in two zones: compared as times, not as text.
    ['updated_at', { updated_at: '2026-11-22T08:00:05-01:00' }, { updated_at: '2026-11-22T09:00:04Z' }],
  ])('an older Upserted (by %s) delivered after a newer one changes nothing', async (field, newer, older) => {
    const id = `order-stale-${field}`;
    const { deliver, stale } = calendar();
    await deliver('upserted', { schedule_id: id, ...request({ join_at: '2026-11-22T11:00:00Z' }), ...newer });
    await deliver('upserted', { schedule_id: id, ...request({ join_at: '2026-11-22T10:00:00Z' }), ...older });
    await laterVersionsDone();

    expect(await getSchedule(id, deps())).toMatchObject({
      status: 'scheduled',
      version: 1,
      joinAt: '2026-11-22T11:00:00.000Z',
    });
    expect([...executions.executions.values()].map((e) => [e.input.version, e.stopped])).toEqual([[1, false]]);
    expect(botsFor(id)).toEqual([]);
    expect(stale()).toBe(1);
  });

  it('an older Upserted that read the schedule before a newer Cancelled was written does not overwrite it', async () => {
    const id = 'order-write-race';
    const { deliver: setUp } = calendar();
    await setUp('upserted', { schedule_id: id, ...request(), sequence: 1 });
    // The newer cancellation lands between the older move's read and its write (the conditional write decides).
    const db = documentClient();
    const send = db.send.bind(db);
    let cancelledMeanwhile = false;
    db.send = (async (command: unknown, ...rest: unknown[]) => {
      if (!cancelledMeanwhile && command instanceof PutCommand && command.input.Item?.scheduleId === id) {
        cancelledMeanwhile = true;
        await calendar().deliver('cancelled', { schedule_id: id, sequence: 3 });
      }
      return (send as (...args: unknown[]) => Promise<unknown>)(command, ...rest);
    }) as typeof db.send;
    const { deliver, stale } = calendar({ table: { db, tableName: resources.tableName } });
    await deliver('upserted', { schedule_id: id, ...request({ join_at: '2026-11-22T11:00:00Z' }), sequence: 2 });
    await laterVersionsDone();

    expect(cancelledMeanwhile).toBe(true);
    expect(await getSchedule(id, deps())).toMatchObject({ status: 'cancelled', version: 1 });
    expect([...executions.executions.values()].map((e) => [e.input.version, e.stopped])).toEqual([[1, true]]);
    expect(botsFor(id)).toEqual([]);
    expect(stale()).toBe(1);
  });

  it('events without an ordering apply as delivered, as before: a late Upserted schedules the meeting again', async () => {
    const id = 'order-none';
    const { deliver, stale } = calendar();
    await deliver('upserted', { schedule_id: id, ...request() });
    await deliver('cancelled', { schedule_id: id });
    await deliver('upserted', { schedule_id: id, ...request() });
    await laterVersionsDone();

    expect(await getSchedule(id, deps())).toMatchObject({ status: 'launched', version: 2 });
    expect(botsFor(id)).toHaveLength(1);
    expect(stale()).toBe(0);
  });

  it('an Upserted redelivered (the same event id) after a Cancelled changes nothing, even without an ordering', async () => {
    const id = 'order-redelivered';
    const { deliver, envelope, redeliver } = calendar();
    const upserted = envelope('upserted', { schedule_id: id, ...request() });
    await redeliver(upserted);
    await deliver('cancelled', { schedule_id: id });
    await redeliver(upserted);
    await laterVersionsDone();

    expect(await getSchedule(id, deps())).toMatchObject({ status: 'cancelled', version: 1 });
    expect(botsFor(id)).toEqual([]);
    expect([...executions.executions.values()].map((e) => [e.input.version, e.stopped])).toEqual([[1, true]]);
  });

  it('a delivery meeting the same event in flight is retried, and applies it once that delivery died', async () => {
    const id = 'order-in-flight';
    const { envelope, redeliver } = calendar();
    const upserted = envelope('upserted', { schedule_id: id, ...request() });
    // Another invocation took the event and then died (its Lambda timed out) before applying it.
    expect(await takeCalendarEvent(deps().table, id, upserted.id, now)).toBe('apply');
    await expect(redeliver(upserted)).rejects.toThrow(CalendarEventInFlightError);
    expect(await getSchedule(id, deps())).toBeUndefined();

    const started = now;
    now += CALENDAR_EVENT_LEASE_MS + 1;
    try {
      await redeliver(upserted);
    } finally {
      now = started;
    }
    expect(await getSchedule(id, deps())).toMatchObject({ status: 'scheduled', version: 1 });
    await redeliver(upserted);
    expect(await getSchedule(id, deps())).toMatchObject({ status: 'scheduled', version: 1 });
  });

  it('the schedule API applies its requests as they come and keeps the calendar ordering for later events', async () => {
    const id = 'order-api';
    const { deliver, stale } = calendar();
    await deliver('upserted', { schedule_id: id, ...request(), sequence: 4 });
    expect(await upsertSchedule(id, request({ join_at: '2026-11-22T12:00:00Z' }), deps())).toMatchObject({
      status: 200,
      schedule: { version: 2 },
    });
    await deliver('upserted', { schedule_id: id, ...request({ join_at: '2026-11-22T10:30:00Z' }), sequence: 3 });
    await laterVersionsDone();

    expect(await getSchedule(id, deps())).toMatchObject({ version: 2, joinAt: '2026-11-22T12:00:00.000Z' });
    expect(botsFor(id)).toHaveLength(1);
    expect(stale()).toBe(1);
  });
});
