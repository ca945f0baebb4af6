/**
 * The launcher against the service's own limits, run by the synthesized state
 * machine: a POST refused because the project has as many bots in meetings as
 * it may, or throttled (429), is a launch to try again later (retried with
 * backoff for as long as the launch lead allows, never marked failed while the
 * retries last); a Zoom link without the project's Zoom credentials is a
 * permanent failure, recorded on the schedule at once with the service's reason.
 */
import type { StateMachineDefinition } from 'aws-local-stepfunctions';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_TIMING } from '../../lambdas/core/schedule/schedule-request';
import {
  getSchedule,
  launchInputOf,
  type ScheduleDependencies,
  upsertSchedule,
} from '../../lambdas/core/schedule/schedules';
import { silentTelemetry } from '../../lambdas/core/telemetry';
import { UpstreamClient } from '../../lambdas/core/upstream/client';
import { createLaunchTaskHandler } from '../../lambdas/launch-bot/adapter';
import { documentClient } from '../../lambdas/shared/dynamo-client';
import { retryLaterAttempts } from '../../lib/bot-scheduler';
import { parseConfig } from '../../lib/config';
import type { LocalResources } from '../../local/resources';
import { type SimulatedBot, SimulatedServiceApi } from '../../local/simulator/api-server';
import { LocalExecutions, launcherDefinition } from '../../local/step-functions';
import { testEventLog } from '../fixtures/event-log';
import { createResources, type LocalPipeline, startLocalPipeline } from '../fixtures/local-pipeline';
import { sharedTemplate, TEST_CONFIG_INPUT } from '../infra/synth';

const service = new SimulatedServiceApi();
const NOW = Date.parse('2026-11-22T09:00:00Z');
const MEET = 'https://meet.google.com/abc-defg-hij';
let pipeline: LocalPipeline;
let resources: LocalResources;
let definition: StateMachineDefinition;
let launchLeadSeconds: number;

beforeAll(async () => {
  definition = launcherDefinition(sharedTemplate().toJSON());
  launchLeadSeconds = parseConfig(TEST_CONFIG_INPUT).launchLeadSeconds;
  pipeline = await startLocalPipeline();
  resources = await createResources();
  await service.start();
  service.apiKeys.set('k', 'all');
  service.now = () => NOW;
}, 300_000); // synthesis bundles every function
afterAll(async () => {
  await service.stop();
  await pipeline?.stop();
});
afterEach(() => {
  service.concurrentBotsLimit = 2500;
  service.zoomCredentials = true;
  service.postThrottle = { limit: 3000, windowMs: 60_000 };
});

// One attempt per task: the state machine's Retry is what tries again.
const upstream = () => new UpstreamClient({ baseUrl: service.baseUrl, apiKey: async () => 'k', maxAttempts: 1 });

const scheduleDeps = (): ScheduleDependencies => ({
  table: { db: documentClient(), tableName: resources.tableName },
  executions: { start: async (name) => ({ executionArn: `arn:held:${name}` }), stop: async () => {} },
  upstream: upstream(),
  timing: DEFAULT_TIMING,
  telemetry: silentTelemetry,
  now: () => NOW,
});

/** Saves a schedule and runs its launch to the end; `beforeAttempt` runs before each launch attempt. */
async function launch(scheduleId: string, meetingUrl: string, beforeAttempt: (attempt: number) => void = () => {}) {
  const handler = createLaunchTaskHandler({
    table: { db: documentClient(), tableName: resources.tableName },
    upstream: upstream(),
    events: testEventLog().publisher,
    telemetry: silentTelemetry,
    now: () => NOW,
  }) as (event: unknown) => Promise<unknown>;
  let attempts = 0;
  const executions = new LocalExecutions(definition, {
    task: (event) => {
      if ((event as { action?: string }).action === 'launch') beforeAttempt(++attempts);
      return handler(event);
    },
    waitMs: () => 0,
    retryIntervalMs: 0,
  });
  const saved = await upsertSchedule(
    scheduleId,
    { meeting_url: meetingUrl, join_at: '2026-11-22T10:00:00Z', bot_name: 'Notetaker' },
    scheduleDeps(),
  );
  if (!('schedule' in saved)) throw new Error(`schedule ${scheduleId} not saved`);
  await executions.start(scheduleId, launchInputOf(saved.schedule));
  const outcome = await executions.executions.get(scheduleId)!.done;
  return { outcome, attempts, schedule: await getSchedule(scheduleId, scheduleDeps()) };
}

describe('a POST the service refuses for now is launched later', () => {
  it('waits out the concurrent-bots limit: launched once a bot in a meeting leaves', async () => {
    service.concurrentBotsLimit = 1;
    const inMeeting: SimulatedBot = service.addBot({ state: 'joined_recording' });
    const run = await launch('limit-then-room', MEET, (attempt) => {
      if (attempt === 3) inMeeting.state = 'ended';
    });
    expect(run.outcome).toMatchObject({ status: 'SUCCEEDED' });
    expect(run.attempts).toBe(3);
    expect(run.schedule).toMatchObject({ status: 'launched', botId: expect.any(String) });
  });

  it.each([
    [
      'ConcurrencyLimitError',
      () => {
        service.concurrentBotsLimit = 0;
      },
    ],
    [
      'RateLimitedError',
      () => {
        service.postThrottle = { limit: 0, windowMs: 60_000 };
      },
    ],
  ])('retries a lasting %s for as long as the launch lead allows, then records it', async (name, limit) => {
    limit();
    const run = await launch(`lasting-${name}`, MEET);
    expect(run.outcome).toMatchObject({ status: 'FAILED' });
    // The default lead (900 s) holds waits of 30, 60, then 120 s: 8 retries after the first attempt.
    expect(launchLeadSeconds).toBe(900);
    expect(run.attempts).toBe(1 + retryLaterAttempts(launchLeadSeconds));
    expect(run.attempts).toBe(9);
    expect(run.schedule).toMatchObject({ status: 'failed', failureReason: expect.stringMatching(`^${name}: `) });
  });
});

describe('a Zoom link without Zoom credentials fails for good', () => {
  it('is recorded on the schedule at once, with the service reason', async () => {
    service.zoomCredentials = false;
    const run = await launch('zoom-no-credentials', 'https://us02web.zoom.us/j/85012345678?pwd=AbC');
    expect(run.outcome).toMatchObject({ status: 'FAILED' });
    expect(run.attempts).toBe(1);
    expect(run.schedule).toMatchObject({
      status: 'failed',
      failureReason: expect.stringMatching(
        /^ZoomCredentialsMissingError: POST \/api\/v1\/bots answered 400: Zoom App credentials are required to create a Zoom bot\./,
      ),
    });
  });
});
