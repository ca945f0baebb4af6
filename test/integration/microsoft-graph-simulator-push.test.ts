/**
 * The Graph simulator's subscriptions refuse what Graph refuses (one test per
 * refusal), run the validation handshake as Graph does (a POST with the token
 * URL-encoded, answered 200 text/plain with the decoded token within 10 s), notify
 * each change of the mailbox's events, send lifecycle notifications, and stop
 * delivering once a subscription expired or was removed.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { GRAPH_AUDIENCE } from '../../local/simulator/microsoft-graph/directory';
import { MicrosoftGraphSimulator } from '../../local/simulator/microsoft-graph/simulator';
import { type PushReceiver, type ReceivedRequest, startPushReceiver } from '../fixtures/push-receiver';

const TENANT = '8f1c2d3e-0000-4000-8000-00000000c0de';
const APP = { clientId: 'app-calendar', secret: 'right-secret', roles: ['Calendars.Read'] };
const ADA = { id: 'a0000000-0000-4000-8000-0000000000ad', userPrincipalName: 'ada@acme.example', displayName: 'Ada' };
const BOB = { id: 'b0000000-0000-4000-8000-0000000000b0', userPrincipalName: 'bob@acme.example', displayName: 'Bob' };
const MINUTE = 60_000;

const sim = new MicrosoftGraphSimulator({ now: Date.parse('2026-03-10T08:00:00Z') });
let base = '';
let receiver: PushReceiver;
let token = '';

/** A receiver that answers Graph's validation as Graph requires. */
const echoValidation = (request: ReceivedRequest) => {
  const validationToken = request.url.searchParams.get('validationToken');
  return validationToken === null
    ? { status: 202 }
    : { status: 200, contentType: 'text/plain; charset=utf-8', body: validationToken };
};

beforeAll(async () => {
  base = await sim.start();
  receiver = await startPushReceiver();
  sim.addApp(TENANT, APP);
  sim.addUser(TENANT, ADA);
  sim.addUser(TENANT, BOB);
});

afterAll(async () => {
  await sim.stop();
  await receiver.stop();
});

beforeEach(() => {
  const app = sim.directory.tenants.get(TENANT)!.apps.get(APP.clientId)!;
  token = sim.directory.issue(TENANT, app, GRAPH_AUDIENCE);
  receiver.received.length = 0;
  receiver.answer = echoValidation;
});

const inMinutes = (minutes: number) => new Date(sim.directory.now() + minutes * MINUTE).toISOString();

interface SubscriptionBody {
  id: string;
  expirationDateTime: string;
  clientState: string | null;
  error?: { code: string; message: string };
}

async function graph(method: string, path: string, body?: unknown, bearer = token) {
  const response = await fetch(`${base}/v1.0${path}`, {
    method,
    headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: (text === '' ? {} : JSON.parse(text)) as SubscriptionBody };
}

const subscription = (overrides: Record<string, unknown> = {}) => ({
  changeType: 'created,updated,deleted',
  notificationUrl: receiver.url('/notify'),
  lifecycleNotificationUrl: receiver.url('/lifecycle'),
  resource: `users/${ADA.id}/events`,
  expirationDateTime: inMinutes(60),
  clientState: 'state-1',
  ...overrides,
});

const create = (overrides: Record<string, unknown> = {}, bearer?: string) =>
  graph('POST', '/subscriptions', subscription(overrides), bearer);

describe('POST /subscriptions refuses', () => {
  it('a missing or unknown token (401)', async () => {
    const answer = await create({}, 'sim-graph.unknown');
    expect([answer.status, answer.body.error?.code]).toEqual([401, 'InvalidAuthenticationToken']);
  });

  it('an app without a calendar permission (403)', async () => {
    sim.addApp(TENANT, { clientId: 'app-mail', secret: 's', roles: ['Mail.Read'] });
    const app = sim.directory.tenants.get(TENANT)!.apps.get('app-mail')!;
    const answer = await create({}, sim.directory.issue(TENANT, app, GRAPH_AUDIENCE));
    expect(answer.status).toBe(403);
  });

  it("a mailbox outside the tenant's application access policy (403)", async () => {
    sim.setAccessPolicy(TENANT, APP.clientId, [BOB.id]);
    try {
      const answer = await create();
      expect([answer.status, answer.body.error?.code]).toEqual([403, 'ErrorAccessDenied']);
    } finally {
      sim.setAccessPolicy(TENANT, APP.clientId, undefined);
    }
  });

  it('an expiration more than 4,230 minutes ahead, or in the past (400)', async () => {
    const tooFar = await create({ expirationDateTime: inMinutes(4_231) });
    expect([tooFar.status, tooFar.body.error?.message]).toEqual([
      400,
      'Subscription expiration can only be 4230 minutes in the future.',
    ]);
    expect((await create({ expirationDateTime: inMinutes(-1) })).status).toBe(400);
    expect((await create({ expirationDateTime: inMinutes(4_230) })).status).toBe(201);
  });

  it('a clientState over 128 characters (400)', async () => {
    expect((await create({ clientState: 'c'.repeat(129) })).status).toBe(400);
    expect((await create({ clientState: 'c'.repeat(128) })).status).toBe(201);
  });

  it('a URL that is not https (plain http only to 127.0.0.1), a bad changeType or resource (400)', async () => {
    for (const overrides of [
      { notificationUrl: 'http://example.com/notify' },
      { lifecycleNotificationUrl: 'http://localhost:9/lifecycle' },
      { changeType: 'created,moved' },
      { resource: `users/${ADA.id}/messages` },
    ])
      expect((await create(overrides)).status).toBe(400);
  });

  it('a receiver that does not echo the decoded validation token as 200 text/plain within 10 s (400)', async () => {
    const wrongAnswers = [
      () => ({ status: 202 }),
      (request: ReceivedRequest) => ({
        status: 200,
        contentType: 'application/json',
        body: JSON.stringify(request.url.searchParams.get('validationToken')),
      }),
      (request: ReceivedRequest) => ({
        status: 200,
        contentType: 'text/plain',
        body: request.url.search.slice('?validationToken='.length),
      }),
    ];
    for (const answer of wrongAnswers) {
      receiver.answer = answer;
      const refused = await create();
      expect([refused.status, refused.body.error?.code]).toEqual([400, 'ValidationError']);
    }
    // The lifecycle URL is validated too.
    receiver.answer = (request) => (request.url.pathname === '/lifecycle' ? { status: 500 } : echoValidation(request));
    expect((await create()).status).toBe(400);
  });

  it('a receiver that answers the validation after 10 s (400)', { timeout: 20_000 }, async () => {
    receiver.answer = (request) => ({ ...echoValidation(request), delayMs: 10_500 });
    const refused = await create();
    expect(refused.status).toBe(400);
  });
});

describe('the validation request', () => {
  it('is a POST carrying a percent-encoded token that the receiver must decode', async () => {
    expect((await create()).status).toBe(201);
    const validation = receiver.received.find((request) => request.url.pathname === '/notify')!;
    expect(validation.method).toBe('POST');
    expect(validation.url.search).toMatch(/^\?validationToken=Validation%3A%20Testing/);
  });
});

describe('PATCH and DELETE /subscriptions/{id}', () => {
  it('renews within the same bounds, refuses an unknown or expired subscription (404), deletes (204)', async () => {
    const created = await create({ expirationDateTime: inMinutes(30) });
    const id = created.body.id;
    const renewed = await graph('PATCH', `/subscriptions/${id}`, { expirationDateTime: inMinutes(4_200) });
    expect([renewed.status, renewed.body.expirationDateTime]).toEqual([200, inMinutes(4_200)]);
    expect((await graph('PATCH', `/subscriptions/${id}`, { expirationDateTime: inMinutes(4_231) })).status).toBe(400);
    expect((await graph('PATCH', '/subscriptions/unknown', { expirationDateTime: inMinutes(60) })).status).toBe(404);
    expect((await graph('DELETE', `/subscriptions/${id}`)).status).toBe(204);
    expect((await graph('DELETE', `/subscriptions/${id}`)).status).toBe(404);

    const short = await create({ expirationDateTime: inMinutes(10) });
    sim.advanceClock(10 * MINUTE);
    token = sim.directory.issue(TENANT, sim.directory.tenants.get(TENANT)!.apps.get(APP.clientId)!, GRAPH_AUDIENCE);
    expect(
      (await graph('PATCH', `/subscriptions/${short.body.id}`, { expirationDateTime: inMinutes(60) })).status,
    ).toBe(404);
  });
});

describe('notifications', () => {
  it("each change of the mailbox's events, with the subscription's clientState; none once expired", async () => {
    const created = await create({
      resource: `users/${BOB.userPrincipalName}/events`,
      expirationDateTime: inMinutes(20),
    });
    expect(created.status).toBe(201);
    receiver.received.length = 0;
    const event = sim.addEvent(BOB.id, {
      subject: 'Standup',
      start: '2026-03-11T09:00:00',
      end: '2026-03-11T09:15:00',
      timeZone: 'UTC',
      organizer: { address: BOB.userPrincipalName, name: 'Bob' },
    });
    sim.moveEvent(BOB.id, event.id, '2026-03-11T10:00:00', '2026-03-11T10:15:00');
    sim.addEvent(ADA.id, {
      subject: 'Not subscribed here',
      start: '2026-03-11T09:00:00',
      end: '2026-03-11T09:15:00',
      timeZone: 'UTC',
      organizer: { address: ADA.userPrincipalName, name: 'Ada' },
    });
    await sim.subscriptions.settled();
    const mine = receiver.received
      .filter((request) => request.url.pathname === '/notify')
      .map((request) => JSON.parse(request.body).value[0])
      .filter((item) => item.subscriptionId === created.body.id);
    expect(mine.map((item) => item.changeType)).toEqual(['created', 'updated']);
    expect(mine[0]).toMatchObject({
      clientState: 'state-1',
      tenantId: TENANT,
      resource: `Users/${BOB.id}/Events/${event.id}`,
      subscriptionExpirationDateTime: created.body.expirationDateTime,
    });

    sim.advanceClock(20 * MINUTE);
    receiver.received.length = 0;
    sim.moveEvent(BOB.id, event.id, '2026-03-11T11:00:00', '2026-03-11T11:15:00');
    await sim.subscriptions.settled();
    expect(receiver.received.filter((request) => request.body.includes(created.body.id))).toEqual([]);
  });

  it('lifecycle notifications go to the lifecycle URL; a removed subscription delivers nothing more', async () => {
    const created = await create({ expirationDateTime: inMinutes(60) });
    for (const event of ['reauthorizationRequired', 'missed', 'subscriptionRemoved'] as const)
      sim.sendLifecycle(created.body.id, event);
    await sim.subscriptions.settled();
    const lifecycle = receiver.received
      .filter((request) => request.url.pathname === '/lifecycle' && request.body !== '')
      .map((request) => JSON.parse(request.body).value[0]);
    expect(lifecycle.map((item) => [item.subscriptionId, item.lifecycleEvent, item.clientState])).toEqual([
      [created.body.id, 'reauthorizationRequired', 'state-1'],
      [created.body.id, 'missed', 'state-1'],
      [created.body.id, 'subscriptionRemoved', 'state-1'],
    ]);
    receiver.received.length = 0;
    sim.addEvent(ADA.id, {
      subject: 'After removal',
      start: '2026-03-12T09:00:00',
      end: '2026-03-12T09:15:00',
      timeZone: 'UTC',
      organizer: { address: ADA.userPrincipalName, name: 'Ada' },
    });
    await sim.subscriptions.settled();
    expect(receiver.received.filter((request) => request.body.includes(created.body.id))).toEqual([]);
    expect((await graph('DELETE', `/subscriptions/${created.body.id}`)).status).toBe(404);
  });
});
