/**
 * The meeting item's outcome, kept by the apply step from the stored state changes (any delivery order,
 * redeliveries), by the reconciler from the bot's own events when every webhook was lost, and by a
 * cancelled schedule.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type ProcessDependencies, processQueuedEvent } from '../../lambdas/core/events/process-event';
import { type ReconcileDependencies, reconcileMeetings } from '../../lambdas/core/reconcile/reconcile-meetings';
import type { Executions } from '../../lambdas/core/schedule/executions';
import { DEFAULT_TIMING } from '../../lambdas/core/schedule/schedule-request';
import { cancelSchedule } from '../../lambdas/core/schedule/schedules';
import { METRICS, SERVICES, silentTelemetry } from '../../lambdas/core/telemetry';
import { UpstreamClient } from '../../lambdas/core/upstream/client';
import { processEventsDependencies } from '../../lambdas/process-events/adapter';
import { sqsClient } from '../../lambdas/shared/aws-clients';
import { documentClient } from '../../lambdas/shared/dynamo-client';
import { s3Client } from '../../lambdas/shared/s3-client';
import type { LocalResources } from '../../local/resources';
import { SimulatedServiceApi } from '../../local/simulator/api-server';
import { pythonIsoTime, stateChange } from '../../local/simulator/payloads';
import { testEventLog } from '../fixtures/event-log';
import { launchedBot } from '../fixtures/launched-bots';
import {
  createResources,
  type LocalPipeline,
  queuedMessage,
  type RecordedMetric,
  recordingTelemetry,
  startLocalPipeline,
} from '../fixtures/local-pipeline';
import { botItems, meetingItem } from '../fixtures/store-reader';

const service = new SimulatedServiceApi();
const MINUTE = 60_000;
const NOW = Date.parse('2026-11-20T15:00:00Z');
const START = NOW - 2 * 60 * MINUTE;
let pipeline: LocalPipeline;
let resources: LocalResources;
let processing: ProcessDependencies;
let reconcilerProcessing: ProcessDependencies;

beforeAll(async () => {
  pipeline = await startLocalPipeline();
  await service.start();
  service.apiKeys.set('k', 'all');
});
afterAll(async () => {
  await service.stop();
  await pipeline?.stop();
});
beforeEach(async () => {
  resources = await createResources({ visibilityTimeoutSeconds: 5 });
  // Webhooks applied as the deployed consumer applies them, the reconciler's observations as it does:
  // each with its own function's environment.
  const clients = { db: documentClient(), sqs: sqsClient(), s3: s3Client(), events: testEventLog().publisher };
  processing = processEventsDependencies(
    resources.deployment.parsedEnvironmentOf(SERVICES.processEvents),
    clients,
    silentTelemetry,
  );
  reconcilerProcessing = processEventsDependencies(
    resources.deployment.parsedEnvironmentOf(SERVICES.reconciler, { UPSTREAM_BASE_URL: service.baseUrl }),
    clients,
    silentTelemetry,
  );
});

const upstream = () =>
  new UpstreamClient({ baseUrl: service.baseUrl, apiKey: async () => 'k', sleep: async () => undefined });

/** A state change `minutes` after START: [type, sub-type, old state, new state]. */
type Step = [minutes: number, type: string, subType: string | null, from: string, to: string];

const webhook = (botId: string, [minutes, type, subType, from, to]: Step) =>
  stateChange(botId, {
    oldState: from,
    newState: to,
    eventType: type,
    subType,
    createdAtMicros: (START + minutes * MINUTE) * 1000,
  });

async function deliver(botId: string, steps: Step[], deps: ProcessDependencies = processing): Promise<void> {
  for (const step of steps) await processQueuedEvent(queuedMessage(webhook(botId, step), new Date(NOW)), deps);
}

/** The MeetingOutcome points by status and reason, once each is checked to go out by status alone too (the alarm's). */
function countedOutcomes(metrics: RecordedMetric[]): Array<Record<string, string> | undefined> {
  const points = metrics.filter((metric) => metric.name === METRICS.meetingOutcome.name);
  const byReason = points.filter((point) => point.dimensions?.reason !== undefined);
  const byStatus = points.filter((point) => point.dimensions?.reason === undefined);
  expect(byStatus.map((point) => point.dimensions)).toEqual(
    byReason.map((point) => ({ status: point.dimensions?.status })),
  );
  return byReason.map((point) => point.dimensions);
}

const outcomeOf = async (botId: string) => (await meetingItem(resources.tableName, botId))?.outcome;

// A Zoom bot left in the lobby until the lobby timeout: it ends in fatal_error, never having joined.
const LOBBY_TIMEOUT: Step[] = [
  [0, 'join_requested', null, 'staged', 'joining'],
  [1, 'put_in_waiting_room', null, 'joining', 'waiting_room'],
  [16, 'could_not_join_meeting', 'waiting_room_timeout_exceeded', 'waiting_room', 'fatal_error'],
];
// A Meet bot that stayed `joining` until the meeting ended: it reaches `ended` like a recorded meeting.
const ENDED_WHILE_JOINING: Step[] = [
  [0, 'join_requested', null, 'staged', 'joining'],
  [40, 'meeting_ended', null, 'joining', 'post_processing'],
  [41, 'post_processing_completed', null, 'post_processing', 'ended'],
];
const RECORDED: Step[] = [
  [0, 'join_requested', null, 'staged', 'joining'],
  [2, 'joined_meeting', null, 'joining', 'joined_recording'],
  [47, 'meeting_ended', null, 'joined_recording', 'post_processing'],
  [48, 'post_processing_completed', null, 'post_processing', 'ended'],
];

describe('the meeting outcome kept on the meeting item', () => {
  it('is the same whatever order the webhooks arrive in, and a redelivery changes nothing', async () => {
    await deliver('bot_lobby_in_order', LOBBY_TIMEOUT);
    await deliver('bot_lobby_reversed', [...LOBBY_TIMEOUT].reverse());
    await deliver('bot_lobby_reversed', LOBBY_TIMEOUT); // every one delivered again
    const want = {
      status: 'missed',
      reason: 'waiting_room_timeout_exceeded',
      sentence: 'The bot waited in the lobby for 16 min and was never admitted.',
    };
    expect(await outcomeOf('bot_lobby_in_order')).toEqual(want);
    expect(await outcomeOf('bot_lobby_reversed')).toEqual(want);
  });

  it('tells a meeting that ended while the bot waited from one it recorded, though both end in `ended`', async () => {
    await deliver('bot_never_admitted', ENDED_WHILE_JOINING);
    await deliver('bot_recorded', RECORDED);
    expect(await meetingItem(resources.tableName, 'bot_never_admitted')).toMatchObject({
      state: 'ended',
      outcome: { status: 'missed', reason: 'ended_before_admitted' },
    });
    expect(await meetingItem(resources.tableName, 'bot_recorded')).toMatchObject({
      state: 'ended',
      outcome: {
        status: 'recorded',
        reason: 'meeting_ended',
        sentence: 'The bot recorded the meeting for 45 min, until it ended.',
      },
    });
  });

  it('counts MeetingOutcome once per meeting when its outcome becomes final, by status and reason', async () => {
    const { telemetry, metrics } = recordingTelemetry();
    const counted = { ...processing, telemetry };
    const counts = () => countedOutcomes(metrics);
    await deliver('bot_counted_lobby', LOBBY_TIMEOUT, counted);
    await deliver('bot_counted_lobby', LOBBY_TIMEOUT, counted); // redelivered: counted already
    await deliver('bot_counted_reversed', [...LOBBY_TIMEOUT].reverse(), counted);
    await deliver('bot_counted_recorded', RECORDED, counted);
    expect(counts()).toEqual([
      { status: 'missed', reason: 'waiting_room_timeout_exceeded' },
      { status: 'missed', reason: 'waiting_room_timeout_exceeded' },
      { status: 'recorded', reason: 'meeting_ended' },
    ]);
    // A meeting still going on is not counted; a sub-type no release knows is `other` in the metric only.
    await deliver(
      'bot_counted_new_reason',
      [[0, 'could_not_join_meeting', 'brand_new_reason', 'joining', 'fatal_error']],
      counted,
    );
    expect(await outcomeOf('bot_counted_new_reason')).toMatchObject({ reason: 'brand_new_reason' });
    expect(counts().slice(3)).toEqual([{ status: 'missed', reason: 'other' }]);
  });

  it('follows the meeting while it goes on', async () => {
    await deliver('bot_going_on', RECORDED.slice(0, 1));
    expect(await outcomeOf('bot_going_on')).toMatchObject({ status: 'in_progress', reason: 'joining' });
    await deliver('bot_going_on', RECORDED.slice(1, 2));
    expect(await outcomeOf('bot_going_on')).toMatchObject({ status: 'in_progress', reason: 'in_meeting' });
  });
});

describe('the reconciler and the outcome', () => {
  const reconcile = (overrides: Partial<ReconcileDependencies> = {}) =>
    reconcileMeetings({
      table: reconcilerProcessing.table,
      upstream: upstream(),
      processing: reconcilerProcessing,
      archive: reconcilerProcessing.archive,
      telemetry: silentTelemetry,
      now: () => NOW,
      staleAfterMs: 15 * MINUTE,
      maxMeetings: 50,
      ...overrides,
    });

  it("derives the outcome from the bot's own events when every webhook was lost", async () => {
    const missed = await launchedBot(service, processing.table, 'lost-lobby', START, START - 60 * MINUTE);
    const recorded = await launchedBot(service, processing.table, 'lost-recorded', START, START - 60 * MINUTE);
    // What `GET bots/{id}` answers: the events with their types and sub-types, in the REST spelling of times.
    const restEvents = (steps: Step[]) =>
      steps.map(([minutes, type, subType]) => ({
        type,
        sub_type: subType,
        created_at: pythonIsoTime((START + minutes * MINUTE) * 1000)
          .replace('T', ' ')
          .replace('+00:00', '+0000'),
      }));
    Object.assign(missed, { state: 'ended', events: restEvents(ENDED_WHILE_JOINING) });
    Object.assign(recorded, { state: 'ended', events: restEvents(RECORDED) });

    const report = await reconcile();
    expect(report.healed.map((heal) => heal.to)).toEqual(['ended', 'ended']);
    expect(await outcomeOf(missed.id)).toEqual({
      status: 'missed',
      reason: 'ended_before_admitted',
      sentence: 'The bot waited to be admitted for 40 min; the meeting ended first.',
    });
    expect(await outcomeOf(recorded.id)).toMatchObject({ status: 'recorded', reason: 'meeting_ended' });

    // The observation is keyed by bot, state and time: a repeat (or the real webhooks, late) adds nothing.
    const history = await botItems(resources.tableName, missed.id, 'STATE#');
    expect(history).toHaveLength(1);
    await reconcile({ now: () => NOW + 60 * MINUTE });
    await deliver(missed.id, ENDED_WHILE_JOINING);
    expect(await outcomeOf(missed.id)).toMatchObject({ status: 'missed', reason: 'ended_before_admitted' });
  });
});

describe('a cancelled schedule and the outcome', () => {
  const held: Executions = { start: async (name) => ({ executionArn: `arn:held:${name}` }), stop: async () => {} };

  it('shows cancelled on the meeting of a launched bot deleted before it started, counted once', async () => {
    const { telemetry, metrics } = recordingTelemetry();
    const bot = await launchedBot(service, processing.table, 'cancelled-after-launch', NOW + 60 * MINUTE, NOW);
    expect(await outcomeOf(bot.id)).toBeUndefined(); // no state change heard yet: read as scheduled
    const result = await cancelSchedule('cancelled-after-launch', {
      table: processing.table,
      executions: held,
      upstream: upstream(),
      timing: DEFAULT_TIMING,
      telemetry,
      now: () => NOW,
    });
    expect(result).toMatchObject({ status: 200, schedule: { status: 'cancelled' } });
    expect(countedOutcomes(metrics)).toEqual([{ status: 'cancelled', reason: 'schedule_cancelled' }]);
    expect(await outcomeOf(bot.id)).toEqual({
      status: 'cancelled',
      reason: 'schedule_cancelled',
      sentence: 'The meeting was cancelled before the bot started.',
    });
  });
});
