/**
 * The simulated service refuses what the real one (Attendee) refuses, with the
 * same status and body shape: every rule of the service we enforce (listed in
 * docs/upstream.md), as a table of requests and answers. A rule
 * relaxed in the simulator turns its row red (the request would be accepted).
 */

import { createServer, type IncomingHttpHeaders } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  recordBotEvent,
  type SimulatedBot,
  SimulatedServiceApi,
  type SimulatedStateChange,
  writeUtterance,
} from '../../local/simulator/api-server';
import { playMeeting } from '../../local/simulator/meeting-player';
import { transcriptLine } from '../../local/simulator/payloads';
import { NO_CHAOS, WebhookSender } from '../../local/simulator/webhook-sender';

const service = new SimulatedServiceApi();
const NOW = Date.parse('2026-11-22T09:00:00Z');
const IN_AN_HOUR = '2026-11-22T10:00:00Z';
const MEET = 'https://meet.google.com/abc-defg-hij';
let started: SimulatedBot[];

beforeAll(async () => {
  await service.start();
  service.apiKeys.set('k', 'all');
});
afterAll(() => service.stop());
beforeEach(() => {
  service.bots.clear();
  service.faults = [];
  service.now = () => NOW;
  started = [];
  service.onBotStarted = (bot) => void started.push(bot);
  service.onStateChange = undefined;
  service.onLaunchFailed = undefined;
});

async function call(
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: unknown; headers: Headers }> {
  const response = await fetch(new URL(path, service.baseUrl), {
    method,
    headers: { authorization: 'Token k', 'content-type': 'application/json' },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  const answer = { status: response.status, body: text === '' ? '' : JSON.parse(text) };
  // Headers ride along without taking part in toEqual.
  Object.defineProperty(answer, 'headers', { value: response.headers, enumerable: false });
  return answer as { status: number; body: unknown; headers: Headers };
}
const post = (fields: Record<string, unknown>) =>
  call('POST', 'bots', { meeting_url: MEET, bot_name: 'Notetaker', ...fields });

describe('POST bots: refused as the service refuses it', () => {
  it.each<[string, Record<string, unknown>, unknown]>([
    // Unknown fields: checked once every field passed, as a whole-body error.
    [
      'unknown fields',
      { size: 'L', colour: 'red' },
      {
        non_field_errors: [
          'Unexpected field(s): colour, size. Allowed fields are: automatic_leave_settings, bot_chat_message, bot_image, bot_name, calendar_event_id, callback_settings, debug_settings, deduplication_key, external_media_storage_settings, google_meet_settings, join_at, kubernetes_settings, meeting_url, metadata, recording_settings, rtmp_settings, teams_settings, transcription_settings, voice_agent_settings, webhooks, websocket_settings, zoom_settings',
        ],
      },
    ],
    // null where the serializer allows none: a field error each, never "not given".
    ['a null metadata', { metadata: null }, { metadata: ['This field may not be null.'] }],
    ['a null join_at', { join_at: null }, { join_at: ['This field may not be null.'] }],
    ['a null deduplication_key', { deduplication_key: null }, { deduplication_key: ['This field may not be null.'] }],
    [
      'three nulls and an unknown field (field errors first)',
      { metadata: null, join_at: null, deduplication_key: null, colour: 'red' },
      {
        metadata: ['This field may not be null.'],
        join_at: ['This field may not be null.'],
        deduplication_key: ['This field may not be null.'],
      },
    ],
    // metadata: an object, with a key, string values, at most 1000 characters of json.dumps.
    ['metadata that is an array', { metadata: ['a'] }, { metadata: ['metadata must be a JSON object'] }],
    ['metadata that is text', { metadata: 'a' }, { metadata: ['metadata must be a JSON object'] }],
    ['metadata without keys', { metadata: {} }, { metadata: ['metadata needs at least one key'] }],
    [
      'a metadata number',
      { metadata: { schedule_id: 'cal-1', schedule_version: 1 } },
      { metadata: ["Value for key 'schedule_version' must be a string"] },
    ],
    [
      'a metadata boolean',
      { metadata: { recorded: true } },
      { metadata: ["Value for key 'recorded' must be a string"] },
    ],
    [
      'a nested metadata value',
      { metadata: { room: { floor: '3' } } },
      { metadata: ["Value for key 'room' must be a string"] },
    ],
    ['a null metadata value', { metadata: { owner: null } }, { metadata: ["Value for key 'owner' must be a string"] }],
    // Lengths as Python counts them (checked with python3 -c 'len(json.dumps(...))').
    [
      'metadata of 1001 characters',
      { metadata: { a: 'x'.repeat(992) } },
      { metadata: ['metadata is longer than 1000 characters as JSON'] },
    ],
    [
      'metadata of 1003 characters with its ", " and ": " separators',
      { metadata: { k1: 'x'.repeat(400), k2: 'y'.repeat(583) } },
      { metadata: ['metadata is longer than 1000 characters as JSON'] },
    ],
    [
      'metadata of 1005 characters once "é" is escaped (166 characters as UTF-8 text)',
      { metadata: { a: 'é'.repeat(166) } },
      { metadata: ['metadata is longer than 1000 characters as JSON'] },
    ],
    // Meeting links: Zoom, Google Meet and Teams only.
    [
      'a link to another site',
      { meeting_url: 'https://meet.example.com/abc-defg-hij' },
      { meeting_url: ['Invalid meeting URL'] },
    ],
    [
      'a Zoom link without a meeting number',
      { meeting_url: 'https://zoom.us/j/abc' },
      { meeting_url: ['Invalid meeting URL'] },
    ],
    [
      'a Meet link without a code',
      { meeting_url: 'https://meet.google.com/' },
      { meeting_url: ['Invalid meeting URL'] },
    ],
    [
      'a Teams link without its context',
      { meeting_url: 'https://teams.microsoft.com/l/meetup-join/19%3ameeting_x%40thread.v2/0' },
      { meeting_url: ['Invalid meeting URL'] },
    ],
    [
      'a Zoom link carrying a second link',
      { meeting_url: 'https://zoom.us/j/85012345678?tk=https://evil.example.com/x' },
      { meeting_url: ['Invalid meeting URL'] },
    ],
    [
      'a look-alike host',
      { meeting_url: 'https://meet.google.com.evil.example/abc-defg-hij' },
      { meeting_url: ['Invalid meeting URL'] },
    ],
    ['no meeting_url', { meeting_url: undefined }, { meeting_url: ['This field is required.'] }],
    // Bot names: nothing above U+FFFF.
    [
      'an emoji in the bot name',
      { bot_name: 'Notetaker 📝' },
      { bot_name: ['bot_name cannot hold characters above U+FFFF (emoji or rare scripts)'] },
    ],
    ['a blank bot name', { bot_name: '  ' }, { bot_name: ['This field may not be blank.'] }],
    // join_at: not past, at most three years ahead.
    ['a join_at in the past', { join_at: '2026-11-22T08:59:59Z' }, { join_at: ['join_at cannot be in the past'] }],
    [
      'a join_at over three years ahead',
      { join_at: '2029-11-22T09:00:01Z' },
      { join_at: ['join_at is more than 3 years ahead'] },
    ],
    ['a join_at that is no time', { join_at: 'tomorrow' }, { join_at: [expect.stringMatching(/ISO 8601/)] }],
    // Every field error at once, each under its field.
    [
      'several bad fields',
      { meeting_url: 'https://example.com/x', join_at: '2020-01-01T00:00:00Z', metadata: { v: 1 }, colour: 'red' },
      {
        meeting_url: ['Invalid meeting URL'],
        join_at: ['join_at cannot be in the past'],
        metadata: ["Value for key 'v' must be a string"],
      },
    ],
  ])('refuses %s with 400 and the same body', async (_label, fields, body) => {
    expect(await post(fields)).toEqual({ status: 400, body });
    expect(service.bots.size).toBe(0);
  });

  it.each<[string, Record<string, unknown>]>([
    ['metadata of exactly 1000 characters', { metadata: { a: 'x'.repeat(991) } }],
    ['metadata of 1000 characters over two keys', { metadata: { k1: 'x'.repeat(400), k2: 'y'.repeat(580) } }],
    ['escaped metadata of 999 characters', { metadata: { a: 'é'.repeat(165) } }],
    ['a bot name inside the BMP', { bot_name: 'Café Notetaker – 会议' }],
    ['a join_at three years ahead', { join_at: '2029-11-22T09:00:00Z' }],
    ['a join_at now', { join_at: '2026-11-22T09:00:00Z' }],
  ])('takes %s', async (_label, fields) => {
    expect(await post(fields)).toMatchObject({ status: 201 });
  });

  it.each([
    ['a Meet link with query and no scheme', 'meet.google.com/abc-defg-hij?authuser=0&hs=1', MEET],
    [
      'a Zoom link: pwd kept (trailing text cut), other parameters dropped',
      'https://us02web.zoom.us/j/85012345678?pwd=AbCdEf123.1xyz&from=addon&uname=x',
      'https://us02web.zoom.us/j/85012345678?pwd=AbCdEf123.1',
    ],
    ['a zoom.com link', 'https://acme.zoom.com/j/85012345678', 'https://acme.zoom.us/j/85012345678'],
    ['a Zoom link with a trailing >', '<https://zoom.us/j/85012345678>'.slice(1), 'https://zoom.us/j/85012345678'],
    [
      'a Teams link with its context percent-encoded',
      'https://teams.microsoft.com/l/meetup-join/19%3ameeting_NzE4%40thread.v2/0?context=%7b%22Tid%22%3a%22t-1%22%2c%22Oid%22%3a%22o-2%22%7d',
      'https://teams.microsoft.com/l/meetup-join/19:meeting_NzE4@thread.v2/0?context={"Tid":"t-1","Oid":"o-2"}',
    ],
    [
      'a Teams short link',
      'https://teams.microsoft.com/meet/2345678901234?p=AbCdEf',
      'https://teams.microsoft.com/meet/2345678901234?p=AbCdEf',
    ],
  ])('stores %s as the service normalizes it', async (_label, given, stored) => {
    const answer = await post({ meeting_url: given });
    expect(answer).toMatchObject({ status: 201, body: { meeting_url: stored } });
  });
});

describe('deduplication_key: unique among bots not in a post-meeting state', () => {
  it('refuses a second POST with the key with 400 {"error"}, not the old bot', async () => {
    const first = await post({ deduplication_key: 'cal-1:v1' });
    expect(first.status).toBe(201);
    expect(await post({ deduplication_key: 'cal-1:v1' })).toEqual({
      status: 400,
      body: { error: expect.stringMatching(/^Deduplication key already in use\./) },
    });
    expect(service.bots.size).toBe(1);
  });

  it.each(['scheduled', 'staged', 'joining', 'joined_recording', 'post_processing'])(
    'a bot %s still holds its key',
    async (state) => {
      service.addBot({ deduplication_key: 'cal-2:v1', state });
      expect(await post({ deduplication_key: 'cal-2:v1' })).toMatchObject({ status: 400 });
    },
  );

  it.each(['ended', 'fatal_error', 'data_deleted'])('a bot %s frees its key', async (state) => {
    service.addBot({ deduplication_key: 'cal-3:v1', state });
    expect(await post({ deduplication_key: 'cal-3:v1' })).toMatchObject({ status: 201 });
  });
});

describe('GET bots filters', () => {
  it('by deduplication_key, meeting_url (as stored), states (repeatable) and join_at_after/before', async () => {
    const a = service.addBot({ deduplication_key: 'k-a', state: 'scheduled', join_at: '2026-11-22T10:00:00Z' });
    const b = service.addBot({ deduplication_key: 'k-b', state: 'ended', join_at: '2026-11-22T11:00:00Z' });
    const c = service.addBot({ meeting_url: 'https://zoom.us/j/85012345678', state: 'joining' });
    const ids = async (query: string) => {
      const answer = await call('GET', `bots?${query}`);
      expect(answer.status).toBe(200);
      return (answer.body as { results: Array<{ id: string }> }).results.map((bot) => bot.id);
    };
    expect(await ids('deduplication_key=k-a')).toEqual([a.id]);
    expect(await ids(`meeting_url=${encodeURIComponent('https://zoom.us/j/85012345678')}`)).toEqual([c.id]);
    expect(await ids('states=scheduled&states=joining')).toEqual([a.id, c.id]);
    expect(await ids('join_at_after=2026-11-22T10:00:00Z')).toEqual([b.id]);
    expect(await ids('join_at_before=2026-11-22T10:30:00Z')).toEqual([a.id]);
    expect(await ids('deduplication_key=k-none')).toEqual([]);
  });

  it.each([
    ['states=sleeping', /^Unknown state sleeping; states are ready, /],
    ['join_at_after=soon', /^join_at_after is not an ISO 8601 time/],
    ['join_at_before=2026-13-40T00:00:00Z', /^join_at_before is not an ISO 8601 time/],
  ])('refuses %s with 400 {"error"}', async (query, message) => {
    expect(await call('GET', `bots?${query}`)).toEqual({
      status: 400,
      body: { error: expect.stringMatching(message) },
    });
  });
});

describe('PATCH and DELETE bots/{id}: only while scheduled', () => {
  it('moves a scheduled bot; a past join_at is a field error', async () => {
    const { body } = await post({ join_at: IN_AN_HOUR });
    const id = (body as { id: string }).id;
    expect(await call('PATCH', `bots/${id}`, { join_at: '2026-11-22T12:00:00Z' })).toMatchObject({
      status: 200,
      body: { id, state: 'scheduled', join_at: '2026-11-22T12:00:00Z' },
    });
    expect(await call('PATCH', `bots/${id}`, { join_at: '2026-11-22T08:00:00Z' })).toEqual({
      status: 400,
      body: { join_at: ['join_at cannot be in the past'] },
    });
    expect(await call('PATCH', `bots/${id}`, { meeting_url: 'https://example.com/x' })).toEqual({
      status: 400,
      body: { meeting_url: ['Invalid meeting URL'] },
    });
    expect(await call('PATCH', `bots/${id}`, { metadata: { n: 1 } })).toEqual({
      status: 400,
      body: { metadata: ["Value for key 'n' must be a string"] },
    });
  });

  it('refuses to move a bot that is not scheduled (metadata may still change)', async () => {
    const bot = service.addBot({ state: 'joined_recording', join_at: IN_AN_HOUR });
    expect(await call('PATCH', `bots/${bot.id}`, { join_at: '2026-11-22T12:00:00Z' })).toEqual({
      status: 400,
      body: {
        error: expect.stringMatching(/^Bot is in state joined_recording; join_at, .* only while it is scheduled/),
      },
    });
    expect(bot.join_at).toBe(IN_AN_HOUR);
    expect(await call('PATCH', `bots/${bot.id}`, { metadata: { note: 'x' } })).toMatchObject({ status: 200 });
  });

  it('deletes a scheduled bot (200, no body) and no other', async () => {
    const scheduled = service.addBot({ state: 'scheduled', join_at: IN_AN_HOUR });
    expect(await call('DELETE', `bots/${scheduled.id}`)).toEqual({ status: 200, body: '' });
    expect(service.bots.has(scheduled.id)).toBe(false);
    const joining = service.addBot({ state: 'joining' });
    expect(await call('DELETE', `bots/${joining.id}`)).toEqual({
      status: 400,
      body: {
        error: expect.stringMatching(/^Bot is in state joining; only a bot in the scheduled state can be deleted/),
      },
    });
    expect(await call('DELETE', 'bots/bot_missing')).toEqual({ status: 404, body: { error: 'Bot not found' } });
  });
});

describe('GET bots/{id}/recording before the file exists', () => {
  it('is 404 "No recording file found for bot" until uploaded, "No recording found for bot" without one', async () => {
    const waiting = service.addBot({ state: 'post_processing' });
    expect(await call('GET', `bots/${waiting.id}/recording`)).toEqual({
      status: 404,
      body: { error: 'No recording file found for bot' },
    });
    const none = service.addBot({ state: 'ended', noRecordingRow: true });
    expect(await call('GET', `bots/${none.id}/recording`)).toEqual({
      status: 404,
      body: { error: 'No recording found for bot' },
    });
    waiting.recording = { size: 10, seed: 1, contentType: 'video/mp4' };
    expect(await call('GET', `bots/${waiting.id}/recording`)).toMatchObject({
      status: 200,
      body: { url: expect.any(String), start_timestamp_ms: 0 },
    });
  });
});

describe('the service starts a scheduled bot itself, 5–10 minutes before join_at', () => {
  it('holds it as scheduled until then, stages it in the window, and not at creation', async () => {
    let now = NOW;
    service.now = () => now;
    const { body } = await post({ join_at: IN_AN_HOUR });
    const bot = service.bots.get((body as { id: string }).id)!;
    expect(bot.state).toBe('scheduled');
    expect(started).toEqual([]);
    now = Date.parse('2026-11-22T09:49:59Z'); // more than 10 minutes ahead: not yet
    expect(service.startDueBots()).toEqual([]);
    now = Date.parse('2026-11-22T09:55:00Z'); // 5 minutes ahead: started by now
    expect(service.startDueBots()).toEqual([bot]);
    expect(started).toEqual([bot]);
    expect(bot.state).toBe('staged');
    expect(service.stageAt.has(bot.id)).toBe(false);
  });

  it('starts a bot without join_at at once', async () => {
    await post({});
    expect(started).toHaveLength(1);
  });

  it('never starts a bot missed by more than 5 minutes', async () => {
    const bot = service.addBot({ state: 'scheduled', join_at: '2026-11-22T08:54:59Z' });
    expect(service.startDueBots()).toEqual([]);
    expect(bot.state).toBe('scheduled');
  });
});

describe('the POST throttle: per project, per minute, POST only', () => {
  it('refuses the POST past the limit with 429, DRF\'s {"detail"} and Retry-After; reads go through', async () => {
    let clock = NOW + 86_400_000; // a minute no other test posted in
    service.now = () => clock;
    service.postThrottle = { limit: 3, windowMs: 60_000 };
    try {
      for (let i = 0; i < 3; i++) {
        expect((await post({})).status).toBe(201);
        clock += 10_000;
      }
      // 30 s after the first of the three: it leaves the window in 30 s.
      const refused = await post({});
      expect(refused).toEqual({
        status: 429,
        body: { detail: 'Request was throttled. Expected available in 30 seconds.' },
      });
      expect(refused.headers.get('retry-after')).toBe('30');
      const bot = [...service.bots.values()][0]!;
      expect((await call('GET', 'bots')).status).toBe(200);
      expect((await call('GET', `bots/${bot.id}`)).status).toBe(200);
      expect((await call('PATCH', `bots/${bot.id}`, { metadata: { a: 'b' } })).status).toBe(200);
      // Any POST counts and is refused alike, delete_data included.
      expect((await call('POST', `bots/${bot.id}/delete_data`)).status).toBe(429);
      clock += 29_500;
      const still = await post({});
      expect(still).toEqual({
        status: 429,
        body: { detail: 'Request was throttled. Expected available in 1 second.' },
      });
      expect(still.headers.get('retry-after')).toBe('1');
      clock += 500;
      expect((await post({})).status).toBe(201);
      expect(service.bots.size).toBe(4);
    } finally {
      service.postThrottle = { limit: 3000, windowMs: 60_000 };
    }
  });

  it('lets 3000 POSTs a minute through by default', () => {
    expect(new SimulatedServiceApi().postThrottle).toEqual({ limit: 3000, windowMs: 60_000 });
  });
});

describe("the project's own limits on POST bots", () => {
  afterAll(() => {
    service.zoomCredentials = true;
    service.concurrentBotsLimit = 2500;
  });

  it('refuses a Zoom link when the project has no Zoom app credentials, after the field checks', async () => {
    service.zoomCredentials = false;
    const zoom = 'https://us02web.zoom.us/j/85012345678?pwd=AbC';
    expect(await post({ meeting_url: zoom })).toEqual({
      status: 400,
      body: {
        error: `Zoom App credentials are required to create a Zoom bot. Please add Zoom credentials at ${new URL(service.baseUrl).origin}/projects/proj_simulated/credentials`,
      },
    });
    expect(await post({ meeting_url: zoom, colour: 'red' })).toMatchObject({
      status: 400,
      body: { non_field_errors: [expect.stringMatching(/^Unexpected field\(s\): colour\./)] },
    });
    expect((await post({})).status).toBe(201); // Meet needs no credentials
    service.zoomCredentials = true;
    expect((await post({ meeting_url: zoom })).status).toBe(201);
  });

  it('refuses a bot past the concurrent-bots limit, counting only bots in a meeting', async () => {
    service.concurrentBotsLimit = 2;
    for (const state of ['ready', 'scheduled', 'staged', 'ended', 'fatal_error', 'data_deleted', 'joined_recording'])
      service.addBot({ state });
    expect((await post({ join_at: IN_AN_HOUR })).status).toBe(201);
    service.addBot({ state: 'waiting_room' });
    expect(await post({ join_at: IN_AN_HOUR })).toEqual({
      status: 400,
      body: {
        error:
          'You have exceeded the maximum number of concurrent bots (2) for your account. Please reach out to customer support to increase the limit.',
      },
    });
    expect(service.bots.size).toBe(9);
  });
});

describe('GET bots/{id}/transcript?updated_after=', () => {
  it('keeps the lines written strictly after that time; a bad value is a 400', async () => {
    const bot = service.addBot({ state: 'ended' });
    const line = (timestampMs: number, text: string) =>
      transcriptLine({
        speakerName: 'Ada',
        speakerUuid: 'p-ada',
        isHost: true,
        timestampMs,
        durationMs: 1000,
        text,
      });
    writeUtterance(bot, line(1000, 'one'), Date.parse('2026-11-22T09:00:00Z'));
    writeUtterance(bot, line(2000, 'two'), Date.parse('2026-11-22T09:00:01Z'));
    writeUtterance(bot, line(3000, 'three'), Date.parse('2026-11-22T09:00:02Z'));
    // A correction rewrites line one later than the others.
    writeUtterance(bot, line(1000, 'one, corrected'), Date.parse('2026-11-22T09:00:03Z'));
    const texts = async (query: string) => {
      const answer = await call('GET', `bots/${bot.id}/transcript${query}`);
      expect(answer.status).toBe(200);
      return (answer.body as Array<{ transcription: { transcript: string } }>).map((l) => l.transcription.transcript);
    };
    expect(await texts('')).toEqual(['one, corrected', 'two', 'three']);
    expect(await texts('?updated_after=2026-11-22T09:00:01Z')).toEqual(['one, corrected', 'three']);
    expect(await texts('?updated_after=2026-11-22T09:00:01.001Z')).toEqual(['one, corrected', 'three']);
    expect(await texts('?updated_after=2026-11-22T09:00:02.000%2B00:00')).toEqual(['one, corrected']);
    expect(await texts('?updated_after=2026-11-22T09:00:03Z')).toEqual([]);
    expect(await texts('?updated_after=')).toEqual(['one, corrected', 'two', 'three']);
    for (const bad of ['yesterday', '2026-11-22', '2026-13-01T00:00:00Z'])
      expect(await call('GET', `bots/${bot.id}/transcript?updated_after=${bad}`)).toEqual({
        status: 400,
        body: { error: 'Invalid updated_after format. Use ISO 8601 format (e.g., 2024-01-18T12:34:56Z)' },
      });
  });
});

describe('webhooks as the service sends them', () => {
  it('carry User-Agent Attendee-Webhook/1.0; a Teams removal names the remover, and delete_data forgets them', async () => {
    const received: Array<{ headers: IncomingHttpHeaders; body: Record<string, unknown> }> = [];
    const receiver = createServer((request, response) => {
      const parts: Buffer[] = [];
      request.on('data', (part: Buffer) => parts.push(part));
      request.on('end', () => {
        received.push({ headers: request.headers, body: JSON.parse(Buffer.concat(parts).toString('utf8')) });
        response.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const { port } = receiver.address() as { port: number };
    try {
      const sender = new WebhookSender({
        url: () => `http://127.0.0.1:${port}/webhooks`,
        signingSecret: Buffer.from('secret').toString('base64'),
        chaos: NO_CHAOS,
        random: () => 0,
      });
      const bot = service.addBot({ meeting_url: 'https://teams.microsoft.com/meet/2345678901234?p=AbCdEf' });
      const played = playMeeting(bot, sender, { stepMs: 1, recordingBytes: 16, random: () => 0, removedBy: 0 });
      await played.done;
      await sender.drain();
      expect(received.length).toBeGreaterThan(5);
      for (const { headers } of received) expect(headers['user-agent']).toBe('Attendee-Webhook/1.0');
      const removal = received.find(
        ({ body }) =>
          body.trigger === 'bot.state_change' && (body.data as { event_type: string }).event_type === 'meeting_ended',
      );
      expect(removal?.body.data).toMatchObject({
        old_state: 'joined_recording',
        new_state: 'post_processing',
        event_metadata: {
          remover_name: 'Ada Lovelace',
          remover_uuid: 'p-ada',
          remover_user_uuid: null,
          remover_is_host: true,
        },
      });
      expect(bot.events.find((e) => e.type === 'meeting_ended')?.metadata).toMatchObject({
        remover_name: 'Ada Lovelace',
      });
      expect((await call('POST', `bots/${bot.id}/delete_data`)).status).toBe(200);
      expect(bot.events.find((e) => e.type === 'meeting_ended')?.metadata).toEqual({});
    } finally {
      receiver.closeAllConnections();
      await new Promise((resolve) => receiver.close(resolve));
    }
  });
});

describe("bot states: only the moves the service's transitions allow", () => {
  it.each<[string, string]>([
    ['joined_meeting', 'ready'],
    ['joined_meeting', 'scheduled'],
    ['could_not_join_meeting', 'joined_recording'],
    ['could_not_join_meeting', 'scheduled'],
    ['meeting_ended', 'scheduled'],
    ['meeting_ended', 'staged'],
    ['fatal_error', 'ready'],
    ['fatal_error', 'ended'],
    ['put_in_waiting_room', 'waiting_room'],
    ['left_meeting', 'joined_recording'],
    ['post_processing_completed', 'joining'],
    ['join_requested', 'joined_recording'],
    ['data_deleted', 'joining'],
  ])('refuses %s from %s and leaves the bot as it was', (eventType, state) => {
    const bot = service.addBot({ state });
    expect(() => recordBotEvent(bot, eventType, { atMs: NOW })).toThrow(`${eventType} is not allowed from ${state}`);
    expect(bot.state).toBe(state);
    expect(bot.events).toEqual([]);
  });

  it('refuses an event type the service does not have', () => {
    const bot = service.addBot({ state: 'joining' });
    expect(() => recordBotEvent(bot, 'bot_joined_meeting', { atMs: NOW })).toThrow(
      'unknown bot event type bot_joined_meeting',
    );
  });

  it.each<[string, string, string | null, string]>([
    // The bot was never admitted: the meeting ended while it waited, or it gave up.
    ['meeting_ended', 'joining', null, 'post_processing'],
    ['meeting_ended', 'waiting_room', null, 'post_processing'],
    ['could_not_join_meeting', 'joining', 'request_to_join_denied', 'fatal_error'],
    ['could_not_join_meeting', 'waiting_room', 'waiting_room_timeout_exceeded', 'fatal_error'],
    // Never launched.
    ['fatal_error', 'scheduled', 'bot_not_launched', 'fatal_error'],
    ['fatal_error', 'staged', 'out_of_credits', 'fatal_error'],
    ['put_in_waiting_room', 'joining', null, 'waiting_room'],
    ['joined_meeting', 'waiting_room', null, 'joined_not_recording'],
  ])('allows %s from %s (sub-type %s) to %s', (eventType, state, subType, newState) => {
    const bot = service.addBot({ state });
    expect(recordBotEvent(bot, eventType, { atMs: NOW, subType })).toEqual({
      oldState: state,
      newState,
      eventType,
      subType,
      createdAtMicros: NOW * 1000,
    });
    expect(bot.state).toBe(newState);
    expect(bot.events).toEqual([{ type: eventType, sub_type: subType, created_at: '2026-11-22T09:00:00Z' }]);
  });

  it('never sends a move the service would refuse: a bot already in its meeting is not played again', async () => {
    const sender = new WebhookSender({
      url: () => 'http://127.0.0.1:9/unused',
      signingSecret: 'c2VjcmV0',
      chaos: NO_CHAOS,
      random: () => 0,
    });
    const bot = service.addBot({ state: 'joined_recording' });
    const played = playMeeting(bot, sender, { stepMs: 1, recordingBytes: 16, random: () => 0 });
    await expect(played.done).rejects.toThrow('join_requested is not allowed from joined_recording');
    expect(sender.stats.sent).toBe(0);
    expect(bot.events).toEqual([]);
  });
});

describe('a bot the service never launches', () => {
  const NO_RECORDING = { status: 404, body: { error: 'No recording found for bot' } };

  it.each(['bot_not_launched', 'out_of_credits'])(
    'a scheduled bot fails from scheduled with %s at its launch time, and has no recording or transcript',
    async (subType) => {
      const changes: SimulatedStateChange[] = [];
      const failed: string[] = [];
      service.onStateChange = (_bot, change) => void changes.push(change);
      service.onLaunchFailed = (bot) => void failed.push(bot.id);
      const created = await post({ join_at: IN_AN_HOUR, metadata: { simulator_scenario: subType } });
      expect(created).toMatchObject({ status: 201, body: { state: 'scheduled' } });
      const id = (created.body as { id: string }).id;
      const stageAt = service.stageAt.get(id)!;
      service.now = () => stageAt;
      service.startDueBots();
      expect(started).toEqual([]);
      expect(failed).toEqual([id]);
      expect(changes).toEqual([
        {
          oldState: 'scheduled',
          newState: 'fatal_error',
          eventType: 'fatal_error',
          subType,
          createdAtMicros: stageAt * 1000,
        },
      ]);
      expect(await call('GET', `bots/${id}`)).toMatchObject({
        status: 200,
        body: { state: 'fatal_error', events: [{ type: 'fatal_error', sub_type: subType }] },
      });
      expect(await call('GET', `bots/${id}/transcript`)).toEqual(NO_RECORDING);
      expect(await call('GET', `bots/${id}/recording`)).toEqual(NO_RECORDING);
    },
  );

  it('a bot created to start at once asks to join, then fails with out_of_credits', async () => {
    const changes: SimulatedStateChange[] = [];
    service.onStateChange = (_bot, change) => void changes.push(change);
    const created = await post({ metadata: { simulator_scenario: 'out_of_credits' } });
    expect(created.status).toBe(201);
    expect(started).toEqual([]);
    expect(changes.map((c) => [c.oldState, c.eventType, c.subType, c.newState])).toEqual([
      ['ready', 'join_requested', null, 'joining'],
      ['joining', 'fatal_error', 'out_of_credits', 'fatal_error'],
    ]);
  });

  it('refuses a scenario name it cannot play, as a metadata field error', async () => {
    expect(await post({ metadata: { simulator_scenario: 'lost_in_space' } })).toEqual({
      status: 400,
      body: {
        metadata: [
          'simulator_scenario "lost_in_space" is no simulator scenario; one of recorded, removed, waiting_room_timeout_exceeded, ended_in_lobby, request_to_join_denied, meeting_not_found, login_required, blocked_by_captcha, unable_to_connect_to_meeting, bot_not_launched, out_of_credits',
        ],
      },
    });
  });
});
