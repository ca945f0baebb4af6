/**
 * The deployed artifacts, end to end (issue #32): the app synthesized with bundling, each function's
 * bundle taken from the cloud assembly and run in a Node 24 process of its own with the template's
 * environment resolved against the local emulators and stand-ins (test/fixtures/bundles/), no
 * node_modules reachable. One meeting goes through the bundles only: scheduled through the
 * schedules bundle, launched by the template's launcher through the launch-bot bundle, played by the
 * simulated service, its signed webhooks (and a forged one) through the ingress bundle, the queue's
 * real messages through process-events, the recording through archive into S3 and the lake, then
 * every read route, the lake search on the Athena emulator, calendars, the reconciler, compaction
 * and erasure. A crash, an unhandled rejection or an ERROR line in any bundle fails the test; init
 * and invoke times per function are printed. Last, one variable taken from one function's
 * environment makes that function fail.
 */
import { createHash, randomUUID } from 'node:crypto';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { mintPushSecret } from '../../lambdas/core/calendar/company/push/push-secret';
import { pushChannelStore } from '../../lambdas/core/calendar/company/push/push-store';
import { BUNDLE_BUDGETS_KIB } from '../../lib/bundle-budgets';
import { seededRandom } from '../../local/seeded-random';
import { serviceTime } from '../../local/simulator/bot-rules';
import type { PlayedMeeting } from '../../local/simulator/meeting-player';
import { stateChange } from '../../local/simulator/payloads';
import { playStartedBots } from '../../local/simulator/play-started-bots';
import { NO_CHAOS, WebhookSender } from '../../local/simulator/webhook-sender';
import { type BundledStack, SERVICE_API_KEY, startBundledStack } from '../fixtures/bundles/bundled-stack';
import { LambdaProcess } from '../fixtures/bundles/lambda-process';
import { queueTriggers } from '../fixtures/bundles/template-triggers';

let stack: BundledStack;
let sender: WebhookSender;
let played: Map<string, PlayedMeeting & { scheduleId: string }>;
const suiteStarted = performance.now();

beforeAll(async () => {
  stack = await startBundledStack();
  sender = new WebhookSender({
    url: () => `${stack.api.baseUrl}/webhooks`,
    signingSecret: stack.signingSecret,
    chaos: NO_CHAOS,
    random: seededRandom(7),
  });
  played = playStartedBots(stack.service, {
    sender,
    stepMs: 100,
    recordingBytes: 256 * 1024,
    random: seededRandom(8),
    print: () => {},
  });
}, 240_000);

afterAll(async () => {
  if (stack === undefined) return;
  const rows = stack.functions.timings().map(({ serviceName, initMs, invokeMs }) => {
    const mean = invokeMs.length === 0 ? 0 : invokeMs.reduce((sum, ms) => sum + ms, 0) / invokeMs.length;
    return `  ${serviceName.padEnd(20)} init ${initMs.toFixed(0).padStart(5)} ms  ${String(invokeMs.length).padStart(3)} invocations  mean ${mean.toFixed(0).padStart(5)} ms  max ${Math.max(
      0,
      ...invokeMs,
    )
      .toFixed(0)
      .padStart(5)} ms`;
  });
  // Written to stdout rather than logged: the figures are the test's report, printed when it passes too.
  process.stdout.write(
    `${[
      `deployed bundles on Node 24 (start-up ms ${JSON.stringify(stack.startup)}; wall ${((performance.now() - suiteStarted) / 1000).toFixed(1)} s)`,
      ...rows,
      ...stack.functions.failures.slice(0, 5).map((failure) => `FAILED ${failure.slice(0, 3000)}`),
    ].join('\n')}\n`,
  );
  await stack.stop();
}, 60_000);

afterEach(() => {
  expect(stack.functions.failures).toEqual([]);
});

/** Drains every queue into its bundle until `probe` finds what it waits for. */
async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    await stack.drainQueues();
    const found = await probe();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

const get = async (path: string) => {
  const answer = await stack.api.request('GET', path);
  return { ...answer, json: answer.body === '' ? undefined : (JSON.parse(answer.body) as Record<string, unknown>) };
};

/** A meeting scheduled through the API `inMs` ahead, played by the service; resolves when its webhooks are in. */
async function scheduleAndPlay(): Promise<PlayedMeeting> {
  const scheduleId = `bundles-${randomUUID().slice(0, 8)}`;
  const put = await stack.api.request(
    'PUT',
    `/schedules/${scheduleId}`,
    JSON.stringify({
      meeting_url: 'https://meet.google.com/abc-defg-hij',
      join_at: new Date(Date.now() + 3_000).toISOString(),
    }),
  );
  expect(put.status, put.body).toBeLessThan(300);
  const meeting = await until('the meeting to be played', async () =>
    [...played.values()].find((candidate) => candidate.scheduleId === scheduleId),
  );
  await meeting.done;
  await sender.drain();
  return meeting;
}

describe('the deployed bundles, as cdk synth built them', () => {
  it('each stay within their budget (lib/bundle-budgets.ts)', () => {
    const sizes = stack.app.functions.map((fn) => ({
      entry: fn.entry,
      kib: Math.round(statSync(join(fn.assetDir ?? '', 'index.mjs')).size / 1024),
      budget: BUNDLE_BUDGETS_KIB[fn.entry],
    }));
    expect(sizes.filter(({ kib, budget }) => budget === undefined || kib > budget)).toEqual([]);
  });
});

describe('the deployed bundles, one meeting end to end', () => {
  let meeting: PlayedMeeting;
  const word = () => meeting.utterances[0]!.text.split(' ')[1]!.replace(/\W/g, '');

  it('schedules, launches, plays, ingests, processes and archives a meeting through the bundles', async () => {
    meeting = await scheduleAndPlay();
    const link = await until('the recording to be archived', async () => {
      const answer = await get(`/meetings/${meeting.botId}/recording`);
      return answer.status === 200 ? (answer.json as { url: string; sha256: string; bytes: number }) : undefined;
    });
    const recording = Buffer.from(await (await fetch(link.url)).arrayBuffer());
    expect(recording.length).toBe(meeting.recording?.size);
    expect(link.sha256).toBe(createHash('sha256').update(recording).digest('hex'));
    const lake = await stack.clients.s3.send(
      new ListObjectsV2Command({ Bucket: stack.resources.ref(lakeBucket()), Prefix: 'lake/' }),
    );
    expect(lake.KeyCount ?? 0).toBeGreaterThan(0);
    expect(stack.standIns.eventBridge.accepted.length).toBeGreaterThan(0);
  }, 180_000);

  it('refuses a forged webhook with 401', async () => {
    const forged = await fetch(`${stack.api.baseUrl}/webhooks`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-webhook-signature': 'AAAA' },
      body: JSON.stringify({ bot_id: meeting.botId, trigger: 'bot.state_change', data: {} }),
    });
    expect(forged.status).toBe(401);
  });

  it('answers every read route for the meeting', async () => {
    const scheduleId = [...played.values()].find((m) => m.botId === meeting.botId)?.scheduleId;
    for (const path of [
      '/meetings',
      `/meetings/${meeting.botId}`,
      `/meetings/${meeting.botId}/transcript`,
      `/meetings/${meeting.botId}/participants`,
      `/meetings/${meeting.botId}/recording`,
      `/meetings/${meeting.botId}/events`,
      `/schedules/${scheduleId}`,
    ]) {
      const answer = await get(path);
      expect(answer.status, `${path}: ${answer.body}`).toBe(200);
    }
    // The delivery log of an object no webhook was about: the route's own 404, through the bundle.
    const schedules = await get('/schedules?calendar_id=none');
    expect([200, 404], schedules.body).toContain(schedules.status);
    const none = await get('/events?calendar_id=none');
    expect(none.status, none.body).toBe(404);
    expect(none.json).toMatchObject({ error: { code: 'not-found' } });
    const transcript = JSON.stringify((await get(`/meetings/${meeting.botId}/transcript`)).json);
    for (const utterance of meeting.utterances) expect(transcript).toContain(utterance.text);
  });

  it('finds the meeting’s words in the lake through Athena, and answers stats', async () => {
    const search = await get(`/search?q=${encodeURIComponent(word())}`);
    expect(search.status, search.body).toBe(200);
    expect(search.body).toContain(meeting.botId);
    const stats = await get('/stats?question=talk-time');
    expect(stats.status, stats.body).toBeLessThan(500);
  });

  it('keeps a calendar feed sealed with the stack’s KMS key, and syncs calendars on schedule', async () => {
    const id = `cal-${randomUUID().slice(0, 8)}`;
    const put = await stack.api.request(
      'PUT',
      `/calendars/${id}`,
      JSON.stringify({ ics_url: 'https://calendar.example.org/private/feed.ics' }),
    );
    expect(put.status, put.body).toBeLessThan(300);
    const got = await get(`/calendars/${id}`);
    expect(got.status, got.body).toBe(200);
    expect(stack.standIns.kms.calls.map((call) => call.operation)).toContain('Encrypt');
    expect((await stack.api.request('DELETE', `/calendars/${id}`)).status).toBeLessThan(300);
    await stack.functions.answer('calendar-sync', stack.scheduledEvent('calendar-sync'));
  });

  it('takes a company user sync from its queue (a calendar it does not know)', async () => {
    const userSync = stack.app.functions.find((fn) => fn.serviceName === 'calendar-user-sync')!;
    const trigger = queueTriggers(stack.app.template).find((t) => t.functionId === userSync.logicalId)!;
    await stack.clients.sqs.send(
      new SendMessageCommand({
        QueueUrl: stack.resources.ref(trigger.queueId),
        MessageBody: JSON.stringify({ calendar_id: 'company-none', user: 'ada@example.org', reason: 'manual' }),
      }),
    );
    await until('the user sync to run', async () =>
      stack.functions.process('calendar-user-sync').invokeMs.length > 0 ? true : undefined,
    );
  });

  it('refuses a forged calendar push notification and queues a user sync for a genuine one', async () => {
    const pushKeyId = Object.entries(stack.resources.template.Resources).find(
      ([, resource]) => resource.Type === 'AWS::SecretsManager::Secret',
    )![0];
    const { id: secretId, secret } = mintPushSecret(stack.standIns.stackSecretValues[pushKeyId]!, 'google');
    const tableId = Object.entries(stack.resources.template.Resources).find(
      ([, resource]) => resource.Type === 'AWS::DynamoDB::GlobalTable' || resource.Type === 'AWS::DynamoDB::Table',
    )![0];
    // The channel a company calendar's sync would have opened for this user.
    await pushChannelStore({
      db: DynamoDBDocumentClient.from(stack.clients.dynamo),
      tableName: stack.resources.ref(tableId),
    }).put({
      calendarId: 'company-push',
      user: 'grace@example.org',
      provider: 'google',
      secretId,
      channelId: 'channel-1',
      expiresAtMs: Date.now() + 3_600_000,
      createdAt: Date.now(),
    });
    const notify = (token: string) =>
      stack.api.request('POST', '/calendars/push/google', undefined, {
        'x-goog-channel-id': 'channel-1',
        'x-goog-channel-token': token,
        'x-goog-resource-state': 'exists',
        'x-goog-resource-id': 'resource-1',
        'x-goog-message-number': '2',
      });
    const forged = await notify(mintPushSecret('another-key', 'google').secret);
    expect(forged.status, forged.body).toBe(401);
    const syncsBefore = stack.functions.process('calendar-user-sync').invokeMs.length;
    const genuine = await notify(secret);
    expect(genuine.status, genuine.body).toBe(200);
    await until('the pushed user sync to run', async () =>
      stack.functions.process('calendar-user-sync').invokeMs.length > syncsBefore ? true : undefined,
    );
  });

  it('heals a meeting whose last webhooks were lost: the reconciler asks the service', async () => {
    // A meeting that ended half an hour ago; only its first two state changes ever reached the pipeline.
    const startedAt = Date.now() - 30 * 60_000;
    const steps = [
      ['ready', 'joining', 'join_requested'],
      ['joining', 'joined_recording', 'bot_joined_meeting'],
      ['joined_recording', 'leaving', 'bot_left_meeting'],
      ['leaving', 'post_processing', 'post_processing_started'],
      ['post_processing', 'ended', 'post_processing_completed'],
    ] as const;
    const bot = stack.service.addBot({
      state: 'ended',
      events: steps.map(([, , type], i) => ({ type, sub_type: null, created_at: serviceTime(startedAt + i * 1_000) })),
      recording: { size: 64 * 1024, seed: 42, contentType: 'video/mp4' },
    });
    for (const [i, [oldState, newState, eventType]] of steps.slice(0, 2).entries())
      sender.send(
        stateChange(
          bot.id,
          { oldState, newState, eventType, createdAtMicros: (startedAt + i * 1_000) * 1_000 },
          { idempotencyKey: randomUUID() },
        ),
      );
    await sender.drain();
    await until('the lost meeting to be stored', async () => {
      const answer = await get(`/meetings/${bot.id}`);
      return answer.status === 200 ? answer : undefined;
    });
    expect((await get(`/meetings/${bot.id}`)).json).toMatchObject({ state: 'joined_recording' });

    await stack.functions.answer('reconciler', stack.scheduledEvent('reconciler'));
    await until('the healed meeting to be archived', async () => {
      const answer = await get(`/meetings/${bot.id}/recording`);
      return answer.status === 200 ? answer : undefined;
    });
    expect((await get(`/meetings/${bot.id}`)).json).toMatchObject({ state: 'ended' });
  }, 120_000);

  it('runs the lake compaction on its schedule', async () => {
    await stack.functions.answer('lake-compaction', stack.scheduledEvent('lake-compaction'));
  });

  it('erases the meeting through the API, its words gone from the lake', async () => {
    const erase = await stack.api.request('DELETE', `/meetings/${meeting.botId}`);
    expect(erase.status, erase.body).toBeLessThan(300);
    await until('the meeting to be erased', async () => {
      const answer = await get(`/meetings/${meeting.botId}`);
      return answer.status === 404 ? answer : undefined;
    });
    const search = await get(`/search?q=${encodeURIComponent(word())}`);
    expect(search.status, search.body).toBe(200);
    expect(search.body).not.toContain(meeting.botId);
  });

  it('erases a meeting the service deleted (data_deleted), its words gone from the lake', async () => {
    const second = await scheduleAndPlay();
    await until('the second recording to be archived', async () => {
      const answer = await get(`/meetings/${second.botId}/recording`);
      return answer.status === 200 ? answer : undefined;
    });
    const before = await get(
      `/search?q=${encodeURIComponent(second.utterances[0]!.text.split(' ')[1]!.replace(/\W/g, ''))}`,
    );
    expect(before.body).toContain(second.botId);
    const deleted = await fetch(new URL(`bots/${second.botId}/delete_data`, stack.serviceUrl), {
      method: 'POST',
      headers: { authorization: `Token ${SERVICE_API_KEY}` },
    });
    expect(deleted.status).toBe(200);
    await sender.drain();
    await until('the deleted meeting to be erased', async () => {
      const answer = await get(`/meetings/${second.botId}`);
      return answer.status === 404 ? answer : undefined;
    });
    const after = await get(
      `/search?q=${encodeURIComponent(second.utterances[0]!.text.split(' ')[1]!.replace(/\W/g, ''))}`,
    );
    expect(after.status, after.body).toBe(200);
    expect(after.body).not.toContain(second.botId);
  }, 120_000);

  it('invoked every function the template deploys', () => {
    expect(stack.functions.timings().filter((timing) => timing.invokeMs.length === 0)).toEqual([]);
    expect(stack.functions.timings()).toHaveLength(stack.app.functions.length);
  });

  it('fails a function whose template environment lacks one variable', async () => {
    const fn = stack.app.functions.find((candidate) => candidate.serviceName === 'webhook-ingress')!;
    const { EVENTS_QUEUE_URL: _, ...environment } = stack.resources.environmentOf(fn);
    const started = LambdaProcess.start(
      {
        name: `${fn.logicalId}WithoutEventsQueue`,
        assetDir: fn.assetDir!,
        environment,
        timeoutSeconds: fn.timeoutSeconds,
        memorySize: fn.memorySize,
      },
      stack.aws,
    );
    await expect(
      started.then(async (lambda) => {
        try {
          return await lambda.invoke({ version: '2.0' });
        } finally {
          await lambda.close().catch(() => undefined);
        }
      }),
    ).rejects.toThrow(/EVENTS_QUEUE_URL/);
  });
});

function lakeBucket(): string {
  const compaction = stack.app.functions.find((fn) => fn.serviceName === 'lake-compaction')!;
  return (compaction.environment.LAKE_BUCKET as { Ref: string }).Ref;
}
