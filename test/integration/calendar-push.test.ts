import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createCalendarPushHandler } from '../../lambdas/calendar-push/adapter';
import { calendarPushDependencies, pushRenewalDependencies } from '../../lambdas/calendar-push/dependencies';
import type { CompanyCalendarSource } from '../../lambdas/core/calendar/calendar-source';
import type { CalendarProvider, UserSyncRequest } from '../../lambdas/core/calendar/company/provider-contract';
import { mintPushSecret } from '../../lambdas/core/calendar/company/push/push-secret';
import { DEFAULT_PUSH_TIMING } from '../../lambdas/core/calendar/company/push/push-settings';
import { pushChannelStore, routeDueMarks } from '../../lambdas/core/calendar/company/push/push-store';
import {
  type ReconcileDependencies,
  reconcileSubscriptions,
} from '../../lambdas/core/calendar/company/push/reconcile-subscriptions';
import { staticSecret } from '../../lambdas/core/secrets';
import { SERVICES, type Telemetry } from '../../lambdas/core/telemetry';
import { documentClient } from '../../lambdas/shared/dynamo-client';
import { type LocalHttpApi, startLocalHttpApi } from '../../local/http-api-server';
import { GoogleCalendarSimulator } from '../../local/simulator/google-calendar/server';
import { GRAPH_AUDIENCE } from '../../local/simulator/microsoft-graph/directory';
import { MicrosoftGraphSimulator } from '../../local/simulator/microsoft-graph/simulator';
import { recordingTelemetry } from '../fixtures/local-pipeline';
import { startWorld, type World } from '../fixtures/world';

const READONLY = 'https://www.googleapis.com/auth/calendar.readonly';
const TENANT = '8f1c2d3e-0000-4000-8000-00000000c0de';
const APP = { clientId: 'app-calendar', secret: 'right-secret', roles: ['Calendars.Read'] };
const ADA = 'ada@acme.example';
const BOB = 'bob@acme.example';
const MS_ADA = {
  id: 'a0000000-0000-4000-8000-0000000000ad',
  userPrincipalName: 'ada@contoso.example',
  displayName: 'Ada',
};
const MS_BOB = {
  id: 'b0000000-0000-4000-8000-0000000000b0',
  userPrincipalName: 'bob@contoso.example',
  displayName: 'Bob',
};
const PUSH_KEY = 'push-key-for-tests-only-0123456789abcdef';
const HOUR = 3_600_000;
const MINUTE = 60_000;

const start = Date.parse('2026-03-10T08:00:00Z');
const google = new GoogleCalendarSimulator(start);
const graph = new MicrosoftGraphSimulator({ now: start });
let world: World & { stop(): Promise<void> };
let api: LocalHttpApi;
let db: DynamoDBDocumentClient;
let tableName: string;
/** DynamoDB requests sent by the push core. */
let tableCalls = 0;
/** What the routes sent to the user-sync queue, each with when it was sent. */
const sent: Array<{ request: UserSyncRequest; at: number }> = [];
let recorded = recordingTelemetry();
/** Which simulator clock the push core reads (both start at the same instant; tests move one). */
let clock: () => number = () => google.clock.now();

const googleSource: CompanyCalendarSource = {
  kind: 'company',
  calendarId: 'eng-google',
  company: { provider: 'google', credentialsSecret: 'calendars/google', users: [ADA, BOB] },
  rules: {} as CompanyCalendarSource['rules'],
  botName: 'Notetaker',
  lookaheadDays: 14,
  createdAt: '2026-03-01T00:00:00Z',
  updatedAt: '2026-03-01T00:00:00Z',
};
const graphSource: CompanyCalendarSource = {
  ...googleSource,
  calendarId: 'eng-microsoft',
  company: {
    provider: 'microsoft',
    tenantId: TENANT,
    clientId: APP.clientId,
    credentialsSecret: 'calendars/microsoft',
    users: [MS_ADA.id, MS_BOB.id],
  },
};
const sources = new Map([googleSource, graphSource].map((source) => [source.calendarId, source]));
const usersOf = new Map<string, string[]>([
  [googleSource.calendarId, [ADA, BOB]],
  [graphSource.calendarId, [MS_ADA.id, MS_BOB.id]],
]);

/** Stands in for the provider implementations: only the bearer token is needed here. */
function tokenProvider(source: CompanyCalendarSource): CalendarProvider {
  const unused = () => Promise.reject(new Error('not used by push'));
  return {
    name: source.company.provider,
    listChanges: unused,
    resolveGroup: unused,
    accessToken: async (user) => {
      if (source.company.provider === 'google')
        return google.tenant.issueAccessToken(user, [READONLY], google.clock.now());
      const app = graph.directory.tenants.get(TENANT)!.apps.get(APP.clientId)!;
      return graph.directory.issue(TENANT, app, GRAPH_AUDIENCE);
    },
  };
}

/** The table client, counting every request the push core sends. */
function countingClient(client: DynamoDBDocumentClient): DynamoDBDocumentClient {
  return new Proxy(client, {
    get(target, property, receiver) {
      if (property === 'send')
        return (...args: Parameters<DynamoDBDocumentClient['send']>) => {
          tableCalls += 1;
          return target.send(...args);
        };
      return Reflect.get(target, property, receiver);
    },
  });
}

/** The metrics of the test running now (each test starts a fresh recording). */
const telemetry: Telemetry = {
  log: {
    debug: (...args) => recorded.telemetry.log.debug(...args),
    info: (...args) => recorded.telemetry.log.info(...args),
    warn: (...args) => recorded.telemetry.log.warn(...args),
    error: (...args) => recorded.telemetry.log.error(...args),
  },
  metrics: { emit: (...args) => recorded.telemetry.metrics.emit(...args) },
};

/** The push function's wiring, as its handler builds it from its environment: no provider, no credential. */
const routeDeps = () =>
  calendarPushDependencies(
    world.env(SERVICES.calendarPush),
    {
      db: countingClient(db),
      queue: {
        send: async (requests) => {
          for (const request of requests) sent.push({ request, at: performance.now() });
        },
      },
      pushKey: staticSecret(PUSH_KEY),
    },
    telemetry,
    () => clock(),
  );

/** The renewal's wiring, as the scheduled sync builds it; its sources and users stood in for here. */
const renewalDeps = (): ReconcileDependencies => ({
  ...pushRenewalDependencies(
    // The providers are told the local HTTP API's address for their notifications.
    world.env(SERVICES.calendarSync, { PUBLIC_BASE_URL: api.baseUrl }),
    {
      db: countingClient(db),
      tableName,
      pushKey: staticSecret(PUSH_KEY),
      endpoints: {
        googleCalendarApi: google.apiBase,
        googleDirectoryApi: `${google.apiBase}/directory-unused`,
        googleTokenUrl: google.tokenUrl,
        microsoftGraph: `${graphBase}/v1.0`,
        microsoftLogin: graphBase,
      },
      providerFor: async (source) => tokenProvider(source),
    },
    telemetry,
    () => clock(),
  ),
  listCompanySources: async () => [...sources.values()],
  currentSource: async (calendarId) => sources.get(calendarId),
  listUsers: async (calendarId) => usersOf.get(calendarId) ?? [],
});

const reconcile = () => reconcileSubscriptions(renewalDeps());

let graphBase = '';

beforeAll(async () => {
  world = await startWorld();
  db = documentClient();
  tableName = world.resources.tableName;
  await google.start();
  graphBase = await graph.start();
  let handler:
    | ((event: APIGatewayProxyEventV2) => ReturnType<ReturnType<typeof createCalendarPushHandler>>)
    | undefined;
  api = await startLocalHttpApi({
    webhooks: async () => ({ statusCode: 404 }),
    calendarPush: () => handler,
  });
  handler = createCalendarPushHandler(routeDeps());
  for (const user of [ADA, BOB]) google.control.addUser(user);
  graph.addApp(TENANT, APP);
  for (const user of [MS_ADA, MS_BOB]) graph.addUser(TENANT, user);
}, 60_000);

afterAll(async () => {
  await api?.stop();
  await google.stop();
  await graph.stop();
  await world?.stop();
});

beforeEach(() => {
  sent.length = 0;
  tableCalls = 0;
  recorded = recordingTelemetry();
});

const refusals = () => recorded.metrics.filter((metric) => metric.name === 'CalendarPushRefused');
const post = (path: string, init: { headers?: Record<string, string>; body?: string } = {}) =>
  fetch(`${api.baseUrl}${path}`, { method: 'POST', ...init });

describe('the renewal run opens a channel for every user', () => {
  it('one Google channel and one Graph subscription per user, the Graph handshake answered as Graph requires', async () => {
    const outcome = await reconcile();
    expect(outcome).toMatchObject({ opened: 4, failed: 0 });
    expect([...google.push.channels.values()].map((channel) => channel.owner).sort()).toEqual([ADA, BOB]);
    expect([...graph.subscriptions.subscriptions.values()].map((s) => s.userId).sort()).toEqual(
      [MS_ADA.id, MS_BOB.id].sort(),
    );
    // Google's first message (`sync`) is answered 200 and asks for no sync.
    await google.push.settled();
    expect(google.push.deliveries.map((delivery) => [delivery.state, delivery.status])).toEqual([
      ['sync', 200],
      ['sync', 200],
    ]);
    expect(sent).toEqual([]);
    // A second run finds nothing to do.
    expect(await reconcile()).toMatchObject({ opened: 0, renewed: 0, replaced: 0, closed: 0, failed: 0 });
  });
});

describe('the Graph validation handshake', () => {
  it('echoes the decoded token as 200 text/plain, and refuses an over-long one', async () => {
    const token = 'Validation: Testing client application reachability for subscription Request-Id: 42';
    const answer = await post(`/calendars/push/microsoft?validationToken=${encodeURIComponent(token)}`);
    expect([answer.status, answer.headers.get('content-type'), await answer.text()]).toEqual([
      200,
      'text/plain; charset=utf-8',
      token,
    ]);
    const lifecycle = await post(`/calendars/push/microsoft/lifecycle?validationToken=${encodeURIComponent(token)}`);
    expect([lifecycle.status, await lifecycle.text()]).toEqual([200, token]);
    const long = await post(`/calendars/push/microsoft?validationToken=${'x'.repeat(513)}`);
    expect(long.status).toBe(400);
    expect(tableCalls).toBe(0);
  });
});

describe('forged notifications are refused before any table read', () => {
  it('a Google message with a forged, missing or other-provider token', async () => {
    const channel = [...google.push.channels.values()][0]!;
    const graphSecret = mintPushSecret(PUSH_KEY, 'microsoft').secret;
    const otherKey = mintPushSecret('another-key', 'google').secret;
    const forged = [
      `${channel.token!.slice(0, 23)}${'A'.repeat(43)}`,
      graphSecret,
      otherKey,
      undefined,
      'x'.repeat(5000),
    ];
    for (const token of forged) {
      const answer = await post('/calendars/push/google', {
        headers: {
          'x-goog-channel-id': channel.id,
          'x-goog-resource-id': channel.resourceId,
          'x-goog-resource-state': 'exists',
          'x-goog-message-number': '9',
          ...(token !== undefined && { 'x-goog-channel-token': token }),
        },
      });
      expect(answer.status).toBe(401);
    }
    expect(tableCalls).toBe(0);
    expect(sent).toEqual([]);
    expect(refusals()).toEqual(Array(5).fill({ name: 'CalendarPushRefused', dimensions: { provider: 'google' } }));
  });

  it('a Graph notification with a forged clientState, and an oversized or malformed body', async () => {
    const subscription = [...graph.subscriptions.subscriptions.values()][0]!;
    const item = { subscriptionId: subscription.id, changeType: 'updated', tenantId: TENANT };
    const bodies = [
      JSON.stringify({ value: [{ ...item, clientState: mintPushSecret('another-key', 'microsoft').secret }] }),
      JSON.stringify({ value: [{ ...item, clientState: mintPushSecret(PUSH_KEY, 'google').secret }] }),
      JSON.stringify({ value: [item] }),
      JSON.stringify({ value: [{ ...item, clientState: subscription.clientState, padding: 'p'.repeat(70_000) }] }),
      '{"value": [',
      JSON.stringify({ value: Array(101).fill({ ...item, clientState: subscription.clientState }) }),
    ];
    const statuses = [];
    for (const body of bodies)
      statuses.push(
        (await post('/calendars/push/microsoft', { headers: { 'content-type': 'application/json' }, body })).status,
      );
    expect(statuses).toEqual([401, 401, 401, 413, 400, 400]);
    expect(tableCalls).toBe(0);
    expect(sent).toEqual([]);
    expect(refusals()).toHaveLength(6);
  });

  it('a verified secret naming another channel is refused after one read (a replayed token)', async () => {
    const [first, second] = [...graph.subscriptions.subscriptions.values()];
    const body = JSON.stringify({
      value: [{ subscriptionId: second!.id, clientState: first!.clientState, changeType: 'updated' }],
    });
    expect((await post('/calendars/push/microsoft', { body })).status).toBe(404);
    expect(tableCalls).toBe(1);
    expect(sent).toEqual([]);
  });
});

describe('a change in the provider reaches the user-sync queue', () => {
  it('Google: a moved event -> exists message -> one UserSyncRequest for that user', async () => {
    const changedAt = performance.now();
    google.control.addEvent(BOB, {
      summary: 'Moved two minutes before',
      timing: { kind: 'timed', startLocal: '2026-03-10T08:30:00', timeZone: 'UTC', durationMinutes: 30 },
    });
    await google.push.settled();
    expect(sent.map(({ request }) => request)).toEqual([
      { calendar_id: googleSource.calendarId, user: BOB, reason: 'push' },
    ]);
    const latency = sent[0]!.at - changedAt;
    console.info(`calendar push: Google change -> UserSyncRequest in ${latency.toFixed(1)} ms`);
    expect(latency).toBeLessThan(5_000);
  });

  it('Graph: a series change notifying many items -> one UserSyncRequest for that user (deduplicated), 202', async () => {
    const changedAt = performance.now();
    graph.addWeeklySeries(
      MS_ADA.id,
      {
        subject: 'Weekly',
        start: '2026-03-11T09:00:00',
        end: '2026-03-11T09:30:00',
        timeZone: 'UTC',
        organizer: { address: MS_ADA.userPrincipalName, name: 'Ada' },
      },
      4,
    );
    await graph.subscriptions.settled();
    expect(sent.map(({ request }) => request)).toEqual([
      { calendar_id: graphSource.calendarId, user: MS_ADA.id, reason: 'push' },
    ]);
    expect(graph.subscriptions.deliveries.at(-1)).toMatchObject({ kind: 'created', status: 202 });
    const latency = sent[0]!.at - changedAt;
    console.info(`calendar push: Graph change -> UserSyncRequest in ${latency.toFixed(1)} ms`);
    expect(latency).toBeLessThan(5_000);
  });
});

describe('renewal before expiry', () => {
  it('Graph: the subscription is PATCHed forward once it expires within the margin', async () => {
    const before = new Map([...graph.subscriptions.subscriptions].map(([id, s]) => [id, s.expiresAt]));
    clock = () => graph.directory.now();
    const untilMargin = Math.min(...before.values()) - graph.directory.now() - DEFAULT_PUSH_TIMING.renewMarginMs;
    graph.advanceClock(untilMargin + MINUTE);
    const outcome = await reconcile();
    expect(outcome).toMatchObject({ renewed: 2, failed: 0 });
    const after = [...graph.subscriptions.subscriptions];
    expect(after.map(([id]) => id).sort()).toEqual([...before.keys()].sort());
    for (const [id, subscription] of after) {
      expect(subscription.expiresAt).toBeGreaterThan(before.get(id)!);
      expect(subscription.expiresAt).toBeLessThanOrEqual(graph.directory.now() + 4_230 * MINUTE);
    }
    const stored = await pushChannelStore({ db, tableName }).listForCalendar(graphSource.calendarId);
    expect(stored.map((record) => record.expiresAtMs).sort()).toEqual(after.map(([, s]) => s.expiresAt).sort());
  });

  it('Google: a new channel is opened, then the old one stopped, before it expires; only the new one delivers', async () => {
    clock = () => google.clock.now();
    const before = [...google.push.channels.values()];
    const untilMargin =
      Math.min(...before.map((c) => c.expirationMs)) - google.clock.now() - DEFAULT_PUSH_TIMING.renewMarginMs;
    google.control.advanceClock(untilMargin + MINUTE);
    // Graph's clock keeps step: its subscriptions (4,230 minutes at most) lapsed meanwhile and are recreated.
    graph.advanceClock(google.clock.now() - graph.directory.now());
    const outcome = await reconcile();
    expect(outcome).toMatchObject({ replaced: 2, recreated: 2, failed: 0 });
    const after = [...google.push.channels.values()];
    expect(after.map((c) => c.owner).sort()).toEqual([ADA, BOB]);
    expect(after.some((c) => before.some((old) => old.id === c.id))).toBe(false);
    for (const channel of after) expect(channel.expirationMs).toBeGreaterThan(google.clock.now() + 6 * 24 * HOUR);
    await google.push.settled();
    sent.length = 0;
    google.control.addEvent(ADA, {
      summary: 'After replacement',
      timing: { kind: 'timed', startLocal: '2026-03-20T08:30:00', timeZone: 'UTC', durationMinutes: 30 },
    });
    await google.push.settled();
    expect(sent.map(({ request }) => request)).toEqual([
      { calendar_id: googleSource.calendarId, user: ADA, reason: 'push' },
    ]);
  });
});

describe('Graph lifecycle notifications', () => {
  const stored = async (user: string) =>
    (await pushChannelStore({ db, tableName }).listForCalendar(graphSource.calendarId)).find((r) => r.user === user);
  /** The due mark on the user's channel route (where the push function writes it), if any. */
  const dueMark = async (user: string) => {
    const record = (await stored(user))!;
    return (await routeDueMarks({ db, tableName }, [record])).get(record.secretId);
  };

  it('subscriptionRemoved -> the channel marked lapsed and a sync; the next run recreates it', async () => {
    clock = () => graph.directory.now();
    const removed = [...graph.subscriptions.subscriptions.values()].find((s) => s.userId === MS_BOB.id)!;
    graph.sendLifecycle(removed.id, 'subscriptionRemoved');
    await graph.subscriptions.settled();
    // The route opened nothing (it has no provider): it marked the channel and asked for the user's sync.
    expect([...graph.subscriptions.subscriptions.values()].filter((s) => s.userId === MS_BOB.id)).toEqual([]);
    expect(await dueMark(MS_BOB.id)).toBeLessThanOrEqual(graph.directory.now());
    expect(sent.map(({ request }) => request)).toEqual([
      { calendar_id: graphSource.calendarId, user: MS_BOB.id, reason: 'push' },
    ]);
    expect(await reconcile()).toMatchObject({ recreated: 1, renewed: 0, opened: 0, failed: 0 });
    const bobs = [...graph.subscriptions.subscriptions.values()].filter((s) => s.userId === MS_BOB.id);
    expect(bobs).toHaveLength(1);
    expect(bobs[0]!.id).not.toBe(removed.id);
    expect((await stored(MS_BOB.id))?.channelId).toBe(bobs[0]!.id);
  });

  it('reauthorizationRequired -> marked inside the renew margin, renewed by the next run; missed -> a sync', async () => {
    const ada = [...graph.subscriptions.subscriptions.values()].find((s) => s.userId === MS_ADA.id)!;
    graph.advanceClock(HOUR);
    const previous = ada.expiresAt;
    graph.sendLifecycle(ada.id, 'reauthorizationRequired');
    graph.sendLifecycle(ada.id, 'missed');
    await graph.subscriptions.settled();
    expect(ada.expiresAt).toBe(previous);
    expect(sent.map(({ request }) => request.user)).toEqual([MS_ADA.id, MS_ADA.id]);
    const due = (await dueMark(MS_ADA.id))!;
    expect(due).toBeGreaterThan(graph.directory.now());
    expect(due - graph.directory.now()).toBeLessThan(DEFAULT_PUSH_TIMING.renewMarginMs);
    // The next scheduled run, one sync interval later.
    graph.advanceClock(5 * MINUTE);
    expect(await reconcile()).toMatchObject({ renewed: 1, recreated: 0, failed: 0 });
    expect(ada.expiresAt).toBeGreaterThan(previous);
    expect((await stored(MS_ADA.id))?.expiresAtMs).toBe(ada.expiresAt);
    // The renewal's put cleared the mark.
    expect(await dueMark(MS_ADA.id)).toBeUndefined();
  });

  it('marks only the channel it names: a replaced channel (another secret) is left alone, and never later', async () => {
    const store = pushChannelStore({ db, tableName });
    const current = (await stored(MS_ADA.id))!;
    const now = graph.directory.now();
    expect(await store.markDue({ ...current, secretId: 'replaced-secret' }, now)).toBe(false);
    expect(await store.markDue({ ...current, channelId: 'another-subscription' }, now)).toBe(false);
    expect(await store.markDue(current, current.expiresAtMs + HOUR)).toBe(false);
    expect(await dueMark(MS_ADA.id)).toBeUndefined();
    expect(await store.markDue(current, now)).toBe(true);
    expect(await dueMark(MS_ADA.id)).toBe(now);
    expect(await store.markDue(current, now + MINUTE)).toBe(false);
    expect((await stored(MS_ADA.id))?.expiresAtMs).toBe(current.expiresAtMs);
    // Back to its real expiry for the tests after.
    await store.put(current);
  });
});

describe('users leaving the calendar', () => {
  it('their channels are stopped and forgotten', async () => {
    usersOf.set(googleSource.calendarId, [ADA]);
    usersOf.set(graphSource.calendarId, [MS_ADA.id]);
    const outcome = await reconcile();
    expect(outcome).toMatchObject({ closed: 2, failed: 0 });
    expect([...google.push.channels.values()].map((c) => c.owner)).toEqual([ADA]);
    expect([...graph.subscriptions.subscriptions.values()].map((s) => s.userId)).toEqual([MS_ADA.id]);
    const store = pushChannelStore({ db, tableName });
    expect((await store.listForCalendar(googleSource.calendarId)).map((r) => r.user)).toEqual([ADA]);
  });
});

describe('a user the grant does not cover', () => {
  it('fails alone (counted, logged); the other users keep their channels', async () => {
    const cy = {
      id: 'c0000000-0000-4000-8000-0000000000c0',
      userPrincipalName: 'cy@contoso.example',
      displayName: 'Cy',
    };
    const dee = {
      id: 'd0000000-0000-4000-8000-0000000000de',
      userPrincipalName: 'dee@contoso.example',
      displayName: 'Dee',
    };
    graph.addUser(TENANT, cy);
    graph.addUser(TENANT, dee);
    graph.setAccessPolicy(TENANT, APP.clientId, [MS_ADA.id, dee.id]);
    usersOf.set(graphSource.calendarId, [MS_ADA.id, cy.id, dee.id]);
    const outcome = await reconcile();
    expect(outcome).toMatchObject({ opened: 1, failed: 1 });
    expect([...graph.subscriptions.subscriptions.values()].map((s) => s.userId).sort()).toEqual(
      [MS_ADA.id, dee.id].sort(),
    );
  });
});
