import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  BadRequestError,
  ConcurrencyLimitError,
  ForbiddenError,
  NotFoundError,
  RateLimitedError,
  retryAfterMs,
  UnauthorizedError,
  UpstreamClient,
  type UpstreamClientOptions,
  UpstreamError,
  ZoomCredentialsMissingError,
} from '../../lambdas/core/upstream/client';
import { DEDUPLICATION_CONFLICT } from '../../lambdas/core/upstream/rest-contract';
import { SimulatedServiceApi, writeUtterance } from '../../local/simulator/api-server';
import { transcriptLine } from '../../local/simulator/payloads';
import { recordingTelemetry } from '../fixtures/local-pipeline';

const service = new SimulatedServiceApi();
const KEY = 'test-key-full';
let sleeps: number[];

beforeAll(async () => {
  await service.start();
  service.apiKeys.set(KEY, 'all');
  service.apiKeys.set('read-only', new Set(['bots:read']));
});
afterAll(() => service.stop());
beforeEach(() => {
  service.faults = [];
  service.requests.length = 0;
  sleeps = [];
});

function client(options: Partial<UpstreamClientOptions> = {}): UpstreamClient {
  return new UpstreamClient({
    baseUrl: service.baseUrl,
    apiKey: async () => KEY,
    sleep: async (ms) => void sleeps.push(ms),
    random: () => 0.5,
    ...options,
  });
}

describe('upstream REST client against the simulated service', () => {
  it('sends the key as "Authorization: Token <key>"', async () => {
    const bot = service.addBot();
    expect(await client().getBot(bot.id)).toMatchObject({ id: bot.id, state: 'ready' });
    expect(service.requests.at(-1)).toEqual({
      method: 'GET',
      path: `/api/v1/bots/${bot.id}`,
      authorization: `Token ${KEY}`,
    });
  });

  it('follows cursor paging to the end', async () => {
    for (let i = 0; i < 60; i++) service.addBot({ bot_name: `paging-${i}` });
    const bots = await client().listBots();
    expect(bots.filter((b) => service.bots.get(b.id)?.bot_name.startsWith('paging-'))).toHaveLength(60);
    expect(service.requests.filter((r) => r.path === '/api/v1/bots').length).toBeGreaterThanOrEqual(3);

    const meeting = service.addBot({
      participants: Array.from({ length: 30 }, (_, i) => ({
        id: `par_${i}`,
        name: `P${i}`,
        uuid: `u${i}`,
        user_uuid: null,
        is_host: i === 0,
      })),
    });
    expect((await client().listParticipants(meeting.id)).map((p) => p.id)).toEqual(
      Array.from({ length: 30 }, (_, i) => `par_${i}`),
    );
  });

  it('honours Retry-After on 429, then succeeds', async () => {
    const bot = service.addBot();
    service.faults.push({ path: /\/bots\//, times: 2, status: 429, headers: { 'retry-after': '3' } });
    const { telemetry, metrics } = recordingTelemetry();
    expect(await client({ telemetry }).getBot(bot.id)).toMatchObject({ id: bot.id });
    expect(sleeps).toEqual([3000, 3000]);
    expect(metrics.filter((m) => m.name === 'UpstreamRateLimited')).toHaveLength(2);
  });

  it("waits out the service's POST throttle (real 429s with Retry-After, counted per minute) and creates every bot", async () => {
    let clock = Date.now() + 86_400_000; // after every POST the other tests made
    service.now = () => clock;
    service.postThrottle = { limit: 2, windowMs: 60_000 };
    try {
      // The client's waits move the service's clock: the throttle's own minute passes.
      const patient = client({
        sleep: async (ms) => {
          sleeps.push(ms);
          clock += ms;
        },
        maxRetryAfterMs: 60_000,
      });
      const meet = (i: number) => ({ meeting_url: 'https://meet.google.com/abc-defg-hij', bot_name: `throttled-${i}` });
      const created = [];
      for (let i = 0; i < 4; i++) created.push(await patient.createBot(meet(i)));
      expect(created.map((bot) => service.bots.get(bot.id)?.bot_name)).toEqual(
        [0, 1, 2, 3].map((i) => `throttled-${i}`),
      );
      expect(sleeps).toEqual([60_000]); // the third POST waited out the minute once
      // The last two POSTs fill this minute: reads still go through.
      expect(await patient.getBot(created[0]!.id)).toMatchObject({ id: created[0]!.id });
    } finally {
      service.postThrottle = { limit: 3000, windowMs: 60_000 };
      service.now = Date.now;
    }
  });

  it('gives up with RateLimitedError when Retry-After is longer than it will wait', async () => {
    service.faults.push({ path: /\/bots/, times: 1, status: 429, headers: { 'retry-after': '600' } });
    const error = await client()
      .listBots()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitedError);
    expect((error as RateLimitedError).retryAfterMs).toBe(600_000);
    expect(sleeps).toEqual([]);
  });

  it('retries 500 with growing jittered backoff, then succeeds', async () => {
    const bot = service.addBot();
    service.faults.push({ path: /\/bots\//, times: 2, status: 500 });
    expect(await client().getBot(bot.id)).toMatchObject({ id: bot.id });
    expect(sleeps).toEqual([125, 250]); // half (random 0.5) of 250 ms, 500 ms
  });

  it('gives up on 500 after its attempts, with the status', async () => {
    const bot = service.addBot();
    service.faults.push({ path: /\/bots\//, times: 10, status: 503 });
    const { telemetry, metrics } = recordingTelemetry();
    const error = await client({ telemetry, maxAttempts: 3 })
      .getBot(bot.id)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UpstreamError);
    expect(error).toMatchObject({ status: 503, message: expect.stringMatching(/answered 503 on all 3 attempts/) });
    expect(service.requests).toHaveLength(3);
    expect(metrics.map((m) => m.name)).toEqual(['UpstreamServerError', 'UpstreamServerError', 'UpstreamServerError']);
  });

  it('times out a slow answer and retries it', async () => {
    const bot = service.addBot();
    service.faults.push({ path: /\/bots\//, times: 5, delayMs: 400 });
    const error = await client({ timeoutMs: 100, maxAttempts: 2 })
      .getBot(bot.id)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UpstreamError);
    expect((error as Error).message).toMatch(/timed out after 100 ms/);
    expect(service.requests).toHaveLength(2);
  });

  it('maps 401 to UnauthorizedError and counts it', async () => {
    const { telemetry, metrics } = recordingTelemetry();
    const error = await client({ apiKey: async () => 'revoked', telemetry })
      .listBots()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnauthorizedError);
    expect((error as Error).message).toMatch(/401: Invalid token/);
    expect(metrics.map((m) => m.name)).toEqual(['UpstreamUnauthorized']);
    expect(service.requests).toHaveLength(1); // not retried
  });

  it('maps 403, 404 and 400 to their errors; a missing recording is null', async () => {
    const bot = service.addBot();
    await expect(client({ apiKey: async () => 'read-only' }).getTranscript(bot.id)).rejects.toBeInstanceOf(
      ForbiddenError,
    );
    await expect(client().getBot('bot_missing')).rejects.toBeInstanceOf(NotFoundError);
    expect(await client().getRecording(bot.id)).toBeNull();
    await expect(
      client().createBot({
        meeting_url: 'https://meet.google.com/abc-defg-hij',
        bot_name: 'N',
        ...({ colour: 'red' } as object),
      }),
    ).rejects.toThrow(BadRequestError);
  });

  it('creates a bot once per deduplication key; the second POST is a 400 and the key finds the first', async () => {
    const request = {
      meeting_url: 'https://us02web.zoom.us/j/85012345678?pwd=AbC123',
      bot_name: 'Notetaker',
      deduplication_key: 'cal-1:v1',
      metadata: { schedule_id: 'cal-1' },
    };
    const first = await client().createBot(request);
    expect(first.metadata).toEqual({ schedule_id: 'cal-1' });
    const again = await client()
      .createBot(request)
      .catch((e: unknown) => e);
    expect(again).toBeInstanceOf(BadRequestError);
    expect((again as Error).message).toContain(DEDUPLICATION_CONFLICT);
    expect((await client().findBotByDeduplicationKey('cal-1:v1'))?.id).toBe(first.id);
    expect(await client().findBotByDeduplicationKey('cal-none:v1')).toBeUndefined();
    // A finished bot no longer holds its key.
    service.bots.get(first.id)!.state = 'ended';
    expect(await client().findBotByDeduplicationKey('cal-1:v1')).toBeUndefined();
  });

  it('moves and deletes a scheduled bot, and maps the refusal for a started one to BadRequestError', async () => {
    const joinAt = new Date(Date.now() + 3_600_000).toISOString();
    const bot = await client().createBot({
      meeting_url:
        'https://teams.microsoft.com/l/meetup-join/19:meeting_NzE4@thread.v2/0?context={"Tid":"t-1","Oid":"o-2"}',
      bot_name: 'Notetaker',
      join_at: joinAt,
    });
    expect(bot.state).toBe('scheduled');
    // Whole seconds: the service writes them back without a fraction.
    const later = new Date(Math.floor(Date.now() / 1000) * 1000 + 7_200_000).toISOString().replace('.000Z', 'Z');
    expect(await client().updateBot(bot.id, { join_at: later })).toMatchObject({ id: bot.id, join_at: later });
    await client().deleteBot(bot.id);
    expect(service.bots.has(bot.id)).toBe(false);
    const running = service.addBot({ state: 'joined_recording' });
    await expect(client().deleteBot(running.id)).rejects.toThrow(BadRequestError);
    await expect(client().updateBot(running.id, { join_at: later })).rejects.toThrow(
      /Bot is in state joined_recording/,
    );
  });

  it('returns the transcript and a fresh recording link', async () => {
    const bot = service.addBot({
      transcript: [
        {
          speaker_name: 'B',
          speaker_uuid: 's2',
          speaker_user_uuid: null,
          speaker_is_host: false,
          timestamp_ms: 2000,
          duration_ms: 10,
          transcription: { transcript: 'two' },
        },
        {
          speaker_name: 'A',
          speaker_uuid: 's1',
          speaker_user_uuid: null,
          speaker_is_host: true,
          timestamp_ms: 1000,
          duration_ms: 10,
          transcription: null,
        },
      ],
      recording: { size: 1000, seed: 1, contentType: 'video/mp4' },
    });
    expect((await client().getTranscript(bot.id))?.map((l) => l.timestamp_ms)).toEqual([1000, 2000]);
    expect((await client().getRecording(bot.id))?.url).toMatch(/\/recordings\/bot_.*expires=/);
  });

  it('refuses to send the key to a page link on another origin', async () => {
    service.faults.push({
      path: /\/api\/v1\/bots$/,
      times: 1,
      status: 200,
      body: { next: 'https://evil.example.com/api/v1/bots?cursor=25', previous: null, results: [] },
    });
    await expect(client().listBots()).rejects.toThrow(/another origin/);
  });

  it('refuses a response shaped unlike the contract, naming the field', async () => {
    service.faults.push({ path: /\/bots\/bot_shape$/, times: 1, status: 200, body: { state: 'ended' } });
    await expect(client().getBot('bot_shape')).rejects.toThrow(/id: /);
  });
});

describe("the service's refusals as typed errors", () => {
  const meet = { meeting_url: 'https://meet.google.com/abc-defg-hij', bot_name: 'Notetaker' };
  afterEach(() => {
    service.concurrentBotsLimit = 2500;
    service.zoomCredentials = true;
    service.postThrottle = { limit: 3000, windowMs: 60_000 };
    service.now = Date.now;
  });

  it('a throttled POST: RateLimitedError with the wait from Retry-After and the service detail', async () => {
    const clock = Date.now() + 2 * 86_400_000;
    service.now = () => clock;
    service.postThrottle = { limit: 0, windowMs: 60_000 };
    const error = await client({ maxAttempts: 1 })
      .createBot(meet)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitedError);
    expect(error).toMatchObject({
      name: 'RateLimitedError',
      status: 429,
      retryAfterMs: 60_000,
      message:
        'POST /api/v1/bots rate limited after 1 attempts: Request was throttled. Expected available in 60 seconds.',
    });
  });

  it('the concurrent-bots limit: ConcurrencyLimitError, a BadRequestError to retry later', async () => {
    service.concurrentBotsLimit = 0;
    const error = await client()
      .createBot(meet)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConcurrencyLimitError);
    expect(error).toBeInstanceOf(BadRequestError);
    expect(error).toMatchObject({ name: 'ConcurrencyLimitError', status: 400 });
    expect((error as Error).message).toMatch(/maximum number of concurrent bots \(0\)/);
  });

  it('a Zoom link without Zoom credentials: ZoomCredentialsMissingError', async () => {
    service.zoomCredentials = false;
    const error = await client()
      .createBot({ ...meet, meeting_url: 'https://zoom.us/j/85012345678' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ZoomCredentialsMissingError);
    expect(error).toMatchObject({ name: 'ZoomCredentialsMissingError', status: 400 });
  });

  it('field errors (a null, an unexpected field) are kept on the BadRequestError, by field', async () => {
    const nulls = await client()
      .createBot({ ...meet, join_at: null } as unknown as typeof meet)
      .catch((e: unknown) => e);
    expect(nulls).toBeInstanceOf(BadRequestError);
    expect((nulls as BadRequestError).fieldErrors).toEqual({ join_at: ['This field may not be null.'] });
    const unexpected = await client()
      .createBot({ ...meet, colour: 'red' } as typeof meet)
      .catch((e: unknown) => e);
    expect((unexpected as BadRequestError).fieldErrors).toEqual({
      non_field_errors: [expect.stringMatching(/^Unexpected field\(s\): colour\. Allowed fields are: /)],
    });
  });

  it('reads the transcript after a time with updated_after', async () => {
    const bot = service.addBot({ state: 'ended' });
    const line = (timestampMs: number) =>
      transcriptLine({
        speakerName: 'Ada',
        speakerUuid: 'p-ada',
        isHost: true,
        timestampMs,
        durationMs: 1000,
        text: `at ${timestampMs}`,
      });
    writeUtterance(bot, line(1000), Date.parse('2026-11-22T09:00:00Z'));
    writeUtterance(bot, line(2000), Date.parse('2026-11-22T09:00:05Z'));
    const later = await client().getTranscript(bot.id, { updatedAfter: '2026-11-22T09:00:00Z' });
    expect(later?.map((l) => l.timestamp_ms)).toEqual([2000]);
    expect((await client().getTranscript(bot.id))?.map((l) => l.timestamp_ms)).toEqual([1000, 2000]);
  });

  it('reads the 404 "No recording found for bot" as no transcript (a bot that never recorded), not a failure', async () => {
    const bot = service.addBot({ state: 'fatal_error', noRecordingRow: true });
    expect(await client().getTranscript(bot.id)).toBeNull();
    expect(await client().getRecording(bot.id)).toBeNull();
  });
});

describe('retryAfterMs', () => {
  it('reads seconds and HTTP dates', () => {
    expect(retryAfterMs('7', 0)).toBe(7000);
    expect(retryAfterMs(new Date(10_000).toUTCString(), 4_000)).toBe(6000);
    expect(retryAfterMs('soon', 0)).toBeUndefined();
    expect(retryAfterMs(null, 0)).toBeUndefined();
  });
});
