/**
 * The Google Calendar simulator's push channels refuse what Google refuses (one test
 * per refusal of events.watch and channels.stop) and deliver as Google does: a `sync`
 * message first, then `exists` on each change of the watched calendar, with the
 * channel's headers, and nothing after the channel expired or was stopped.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ApiErrorBody } from '../../local/simulator/google-calendar/google-errors';
import { GoogleCalendarSimulator } from '../../local/simulator/google-calendar/server';
import { type PushReceiver, startPushReceiver } from '../fixtures/push-receiver';

const READONLY = 'https://www.googleapis.com/auth/calendar.readonly';
const ADA = 'ada@acme.example';
const BOB = 'bob@acme.example';
const HOUR = 3_600_000;

const sim = new GoogleCalendarSimulator(Date.parse('2026-03-10T08:00:00Z'));
let receiver: PushReceiver;
let adaToken: string;

beforeAll(async () => {
  await sim.start();
  receiver = await startPushReceiver();
  sim.control.addUser(ADA);
  sim.control.addUser(BOB);
});

afterAll(async () => {
  await sim.stop();
  await receiver.stop();
});

beforeEach(() => {
  adaToken = sim.tenant.issueAccessToken(ADA, [READONLY], sim.clock.now());
  receiver.received.length = 0;
  receiver.answer = () => ({ status: 200 });
});

let channelCount = 0;
const channelId = () => `channel-${++channelCount}`;

/** A Channel resource, or an error body. */
interface Answer {
  status: number;
  body: { id: string; resourceId: string; resourceUri: string; token?: string; expiration: string } & ApiErrorBody;
}

async function call(path: string, body: unknown, token = adaToken): Promise<Answer> {
  const response = await fetch(`${sim.apiBase}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text === '' ? undefined : JSON.parse(text) };
}

const watch = (body: Record<string, unknown>, calendar = ADA, token?: string) =>
  call(`/calendars/${encodeURIComponent(calendar)}/events/watch`, body, token);

const reasonOf = (answer: Answer) => answer.body.error.errors[0]?.reason;

describe('events.watch refuses', () => {
  it('a missing or expired access token (401)', async () => {
    const answer = await watch({ id: channelId(), type: 'web_hook', address: receiver.url() }, ADA, 'ya29.unknown');
    expect([answer.status, reasonOf(answer)]).toEqual([401, 'authError']);
  });

  it("another user's calendar the caller may not read (403)", async () => {
    const answer = await watch({ id: channelId(), type: 'web_hook', address: receiver.url() }, BOB);
    expect([answer.status, reasonOf(answer)]).toEqual([403, 'forbidden']);
  });

  it('a channel id outside [A-Za-z0-9-_+/=] or longer than 64 characters (400)', async () => {
    for (const id of ['has space', 'x'.repeat(65), 'semi;colon', '']) {
      const answer = await watch({ id, type: 'web_hook', address: receiver.url() });
      expect([answer.status, reasonOf(answer)]).toEqual([400, 'invalid']);
    }
    expect((await watch({ id: `A-z_0+/=${'x'.repeat(56)}`, type: 'web_hook', address: receiver.url() })).status).toBe(
      200,
    );
  });

  it('a channel id already in use (400 channelIdNotUnique)', async () => {
    const id = channelId();
    expect((await watch({ id, type: 'web_hook', address: receiver.url() })).status).toBe(200);
    const again = await watch({ id, type: 'web_hook', address: receiver.url() });
    expect([again.status, reasonOf(again)]).toEqual([400, 'channelIdNotUnique']);
  });

  it('an address that is not https (plain http only to 127.0.0.1) (400)', async () => {
    for (const address of ['http://example.com/hook', 'ftp://127.0.0.1/x', 'not a url', 'http://localhost:1/x']) {
      const answer = await watch({ id: channelId(), type: 'web_hook', address });
      expect([answer.status, reasonOf(answer)]).toEqual([400, 'push.webhookUrlNotHttps']);
    }
  });

  it('a type other than web_hook, a token over 256 characters, a bad ttl (400)', async () => {
    const address = receiver.url();
    for (const body of [
      { type: 'webhook', address },
      { type: 'web_hook', address, token: 't'.repeat(257) },
      { type: 'web_hook', address, params: { ttl: '-5' } },
    ]) {
      const answer = await watch({ id: channelId(), ...body });
      expect([answer.status, reasonOf(answer)]).toEqual([400, 'invalid']);
    }
  });
});

describe('channels.stop refuses', () => {
  it('an unknown channel, or a resource id that is not the channel’s (404)', async () => {
    const id = channelId();
    const opened = await watch({ id, type: 'web_hook', address: receiver.url() });
    expect((await call('/channels/stop', { id, resourceId: 'other' })).status).toBe(404);
    expect((await call('/channels/stop', { id: 'never-opened', resourceId: opened.body.resourceId })).status).toBe(404);
    expect((await call('/channels/stop', { id, resourceId: opened.body.resourceId })).status).toBe(204);
  });
});

describe('notifications', () => {
  it('sync first, then exists on each change of the watched calendar, with the channel headers; none after expiry', async () => {
    const id = channelId();
    const opened = await watch({
      id,
      type: 'web_hook',
      address: receiver.url('/push'),
      token: 'the-token',
      params: { ttl: '7200' },
    });
    expect(opened.status).toBe(200);
    expect(opened.body).toMatchObject({ kind: 'api#channel', id, token: 'the-token' });
    expect(Number(opened.body.expiration)).toBe(sim.clock.now() + 2 * HOUR);
    await sim.push.settled();

    const event = sim.control.addEvent(ADA, {
      summary: 'Standup',
      timing: { kind: 'timed', startLocal: '2026-03-11T09:00:00', timeZone: 'UTC', durationMinutes: 15 },
    });
    sim.control.moveEvent(ADA, event, {
      kind: 'timed',
      startLocal: '2026-03-11T10:00:00',
      timeZone: 'UTC',
      durationMinutes: 15,
    });
    sim.control.addEvent(BOB, {
      summary: 'Not watched',
      timing: { kind: 'timed', startLocal: '2026-03-11T09:00:00', timeZone: 'UTC', durationMinutes: 15 },
    });
    await sim.push.settled();

    const mine = receiver.received.filter((request) => request.headers['x-goog-channel-id'] === id);
    expect(
      mine.map((request) => [request.headers['x-goog-resource-state'], request.headers['x-goog-message-number']]),
    ).toEqual([
      ['sync', '1'],
      ['exists', '2'],
      ['exists', '3'],
    ]);
    expect(mine[0]!.method).toBe('POST');
    expect(mine[0]!.url.pathname).toBe('/push');
    expect(mine[0]!.body).toBe('');
    expect(mine[0]!.headers).toMatchObject({
      'x-goog-channel-token': 'the-token',
      'x-goog-resource-id': opened.body.resourceId,
      'x-goog-resource-uri': opened.body.resourceUri,
    });
    expect(Date.parse(mine[0]!.headers['x-goog-channel-expiration'] as string)).toBe(Number(opened.body.expiration));

    sim.control.advanceClock(2 * HOUR);
    sim.control.addEvent(ADA, {
      summary: 'After expiry',
      timing: { kind: 'timed', startLocal: '2026-03-12T09:00:00', timeZone: 'UTC', durationMinutes: 15 },
    });
    await sim.push.settled();
    expect(receiver.received.filter((request) => request.headers['x-goog-channel-id'] === id)).toHaveLength(3);
  });

  it('a stopped channel delivers nothing more', async () => {
    const id = channelId();
    const opened = await watch({ id, type: 'web_hook', address: receiver.url() });
    await call('/channels/stop', { id, resourceId: opened.body.resourceId });
    sim.control.addEvent(ADA, {
      summary: 'After stop',
      timing: { kind: 'timed', startLocal: '2026-03-12T11:00:00', timeZone: 'UTC', durationMinutes: 15 },
    });
    await sim.push.settled();
    const states = receiver.received
      .filter((request) => request.headers['x-goog-channel-id'] === id)
      .map((request) => request.headers['x-goog-resource-state']);
    expect(states).toEqual(['sync']);
  });
});
