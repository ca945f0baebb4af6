/**
 * Deleting a company calendar with live push channels, through the calendar routes' real handler and
 * table, against the Google and Graph simulators: DELETE retires the channels (no credential needed),
 * a notification from then on queues nothing, and the next renewal run stops each at its provider
 * (the simulators forget a stopped channel), a failed stop being tried again at the run after.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCalendarPushHandler } from '../../lambdas/calendar-push/adapter';
import { calendarPushDependencies, pushRenewalDependencies } from '../../lambdas/calendar-push/dependencies';
import type { CompanyCalendarSource } from '../../lambdas/core/calendar/calendar-source';
import { companyStore } from '../../lambdas/core/calendar/company/company-store';
import type {
  CalendarProvider,
  ProviderEndpoints,
  UserSyncRequest,
} from '../../lambdas/core/calendar/company/provider-contract';
import { type PushChannelRecord, pushChannelStore } from '../../lambdas/core/calendar/company/push/push-store';
import {
  type ReconcileDependencies,
  reconcileSubscriptions,
} from '../../lambdas/core/calendar/company/push/reconcile-subscriptions';
import { companyCalendarApi } from '../../lambdas/core/calendar/company-calendar-api';
import { staticSecret } from '../../lambdas/core/secrets';
import { keys, TTL_ATTRIBUTE } from '../../lambdas/core/store/table-layout';
import { SERVICES } from '../../lambdas/core/telemetry';
import { documentClient } from '../../lambdas/shared/dynamo-client';
import { type LocalHttpApi, startLocalHttpApi } from '../../local/http-api-server';
import { GoogleCalendarSimulator } from '../../local/simulator/google-calendar/server';
import { GRAPH_AUDIENCE } from '../../local/simulator/microsoft-graph/directory';
import { MicrosoftGraphSimulator } from '../../local/simulator/microsoft-graph/simulator';
import { type CalendarHarness, calendarHarness } from '../fixtures/calendar-harness';
import { recordingTelemetry } from '../fixtures/local-pipeline';
import { type Emulators, startEmulators } from '../fixtures/world';

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
const PUSH_KEY = 'push-key-for-tests-only-0123456789abcdef';

const start = Date.parse('2026-03-10T08:00:00Z');
const google = new GoogleCalendarSimulator(start);
const graph = new MicrosoftGraphSimulator({ now: start });
const clock = () => google.clock.now();
const { telemetry } = recordingTelemetry();
/** What the notification routes asked the user-sync queue for. */
const queued: UserSyncRequest[] = [];
const usersOf = new Map<string, string[]>([
  ['eng-google', [ADA, BOB]],
  ['eng-microsoft', [MS_ADA.id]],
]);

let emulators: Emulators;
let calendars: CalendarHarness;
let api: LocalHttpApi;
let graphBase = '';
/** Answers every Calendar API call 503: Google down while a run stops channels. */
const googleDown = createServer((request, response) => {
  request.resume();
  response
    .writeHead(503, { 'content-type': 'application/json' })
    .end('{"error":{"code":503,"message":"Backend Error"}}');
});
let downBase = '';

/** Only the bearer token is asked of a provider by the push code. */
function tokenProvider(source: CompanyCalendarSource): CalendarProvider {
  const unused = () => Promise.reject(new Error('not used by push'));
  return {
    name: source.company.provider,
    listChanges: unused,
    resolveGroup: unused,
    accessToken: async (user) => {
      if (source.company.provider === 'google') return google.tenant.issueAccessToken(user, [READONLY], clock());
      const app = graph.directory.tenants.get(TENANT)!.apps.get(APP.clientId)!;
      return graph.directory.issue(TENANT, app, GRAPH_AUDIENCE);
    },
  };
}

/** The renewal run as the scheduled sync wires it (sources and sources' state from the table). */
function renewal(endpoints: Partial<ProviderEndpoints> = {}): ReconcileDependencies {
  return {
    ...pushRenewalDependencies(
      calendars.env(SERVICES.calendarSync, { PUBLIC_BASE_URL: api.baseUrl }),
      {
        db: documentClient(),
        tableName: calendars.tableName,
        pushKey: staticSecret(PUSH_KEY),
        endpoints: {
          googleCalendarApi: google.apiBase,
          googleDirectoryApi: `${google.apiBase}/directory-unused`,
          googleTokenUrl: google.tokenUrl,
          microsoftGraph: `${graphBase}/v1.0`,
          microsoftLogin: graphBase,
          ...endpoints,
        },
        providerFor: async (source) => tokenProvider(source),
      },
      telemetry,
      clock,
    ),
    // The users the syncs would have recorded (none has run here).
    listUsers: async (calendarId) => usersOf.get(calendarId) ?? [],
  };
}

const channels = () => pushChannelStore({ db: documentClient(), tableName: calendars.tableName });
const item = async (key: { pk: string; sk: string }) =>
  (await documentClient().send(new GetCommand({ TableName: calendars.tableName, Key: key, ConsistentRead: true })))
    .Item;

beforeAll(async () => {
  emulators = await startEmulators();
  calendars = await calendarHarness(clock);
  calendars.deps.companyCalendars = companyCalendarApi({
    ...calendars.deps,
    company: companyStore(calendars.deps.schedules.table),
    telemetry,
  });
  await google.start();
  graphBase = await graph.start();
  const handler = createCalendarPushHandler(
    calendarPushDependencies(
      calendars.env(SERVICES.calendarPush),
      {
        db: documentClient(),
        queue: { send: async (requests) => void queued.push(...requests) },
        pushKey: staticSecret(PUSH_KEY),
      },
      telemetry,
      clock,
    ),
  );
  api = await startLocalHttpApi({
    webhooks: async () => ({ statusCode: 404 }),
    calendarPush: () => handler as (event: APIGatewayProxyEventV2) => ReturnType<typeof handler>,
  });
  await new Promise<void>((resolve) => googleDown.listen(0, '127.0.0.1', resolve));
  downBase = `http://127.0.0.1:${(googleDown.address() as AddressInfo).port}/calendar/v3`;
  for (const user of [ADA, BOB]) google.control.addUser(user);
  graph.addApp(TENANT, APP);
  graph.addUser(TENANT, MS_ADA);
  const secret = 'meeting-pipeline/calendars/acme';
  expect(
    (
      await calendars.call('PUT', '/calendars/eng-google', {
        google: { credentials_secret: secret, users: [ADA, BOB] },
      })
    ).status,
  ).toBe(201);
  const microsoft = {
    tenant_id: TENANT,
    client_id: '35c2e2a1-8f52-4a3a-9cd4-2c9f0c1e5f11',
    credentials_secret: secret,
    users: [MS_ADA.id],
  };
  expect((await calendars.call('PUT', '/calendars/eng-microsoft', { microsoft })).status).toBe(201);
}, 60_000);

afterAll(async () => {
  await new Promise((resolve) => googleDown.close(resolve));
  await api?.stop();
  await google.stop();
  await graph.stop();
  await emulators?.stop();
});

let opened: PushChannelRecord[] = [];

describe('deleting a company calendar with live push channels', () => {
  it('the renewal run opened a channel per user, each item expiring by TTL a day after its channel', async () => {
    expect(await reconcileSubscriptions(renewal())).toMatchObject({ opened: 3, failed: 0 });
    opened = [
      ...(await channels().listForCalendar('eng-google')),
      ...(await channels().listForCalendar('eng-microsoft')),
    ];
    expect(opened).toHaveLength(3);
    for (const record of opened) {
      const ttl = Math.ceil(record.expiresAtMs / 1000) + 86_400;
      expect((await item(keys.pushChannel(record.calendarId, record.user)))?.[TTL_ATTRIBUTE]).toBe(ttl);
      expect((await item(keys.pushRoute(record.secretId)))?.[TTL_ATTRIBUTE]).toBe(ttl);
    }
  });

  it('DELETE retires them: no route or listing left, each kept (with its TTL) for the run to stop', async () => {
    expect((await calendars.call('DELETE', '/calendars/eng-google')).status).toBe(200);
    expect((await calendars.call('DELETE', '/calendars/eng-microsoft')).status).toBe(200);
    for (const record of opened) {
      expect(await item(keys.pushRoute(record.secretId))).toBeUndefined();
      expect(await item(keys.pushChannel(record.calendarId, record.user))).toBeUndefined();
      expect((await item(keys.retiredPushChannel(record.calendarId, record.secretId)))?.[TTL_ATTRIBUTE]).toBe(
        Math.ceil(record.expiresAtMs / 1000) + 86_400,
      );
    }
    // Still live at the providers until the run stops them.
    expect(google.push.channels.size).toBe(2);
    expect(graph.subscriptions.subscriptions.size).toBe(1);
  });

  it('a notification from a channel of the deleted calendar queues nothing', async () => {
    queued.length = 0;
    google.control.addEvent(ADA, {
      summary: 'After the delete',
      timing: { kind: 'timed', startLocal: '2026-03-10T10:00:00', timeZone: 'UTC', durationMinutes: 30 },
    });
    await google.push.settled();
    expect(google.push.deliveries.at(-1)).toMatchObject({ state: 'exists', status: 404 });
    const subscription = [...graph.subscriptions.subscriptions.values()][0]!;
    const body = JSON.stringify({
      value: [{ subscriptionId: subscription.id, clientState: subscription.clientState, changeType: 'updated' }],
    });
    const answer = await fetch(`${api.baseUrl}/calendars/push/microsoft`, { method: 'POST', body });
    expect(answer.status).toBe(404);
    expect(queued).toEqual([]);
  });

  it('a stop the provider fails is tried again at the next run; then nothing is left anywhere', async () => {
    const failing = await reconcileSubscriptions(renewal({ googleCalendarApi: downBase }));
    expect(failing).toMatchObject({ closed: 1, failed: 2, opened: 0 });
    expect(google.push.channels.size).toBe(2);
    expect(graph.subscriptions.subscriptions.size).toBe(0);
    expect(await channels().listRetired()).toHaveLength(2);

    expect(await reconcileSubscriptions(renewal())).toMatchObject({ closed: 2, failed: 0, opened: 0 });
    expect(google.push.channels.size).toBe(0);
    expect(await channels().listRetired()).toEqual([]);
    // A later run finds nothing to do.
    expect(await reconcileSubscriptions(renewal())).toMatchObject({ closed: 0, failed: 0, opened: 0, retired: 0 });
  });
});

describe('a calendar deleted while the renewal run works on it', () => {
  it('has what the run opened for it retired and stopped in the same run: no route is left to queue a sync', async () => {
    // The run listed the source just before DELETE forgot it: the table no longer has it.
    const gone: CompanyCalendarSource = {
      kind: 'company',
      calendarId: 'eng-gone',
      company: { provider: 'google', credentialsSecret: 'meeting-pipeline/calendars/acme', users: [ADA] },
      rules: {} as CompanyCalendarSource['rules'],
      botName: 'Notetaker',
      lookaheadDays: 14,
      createdAt: '2026-03-01T00:00:00Z',
      updatedAt: '2026-03-01T00:00:00Z',
    };
    usersOf.set(gone.calendarId, [ADA]);
    const outcome = await reconcileSubscriptions({ ...renewal(), listCompanySources: async () => [gone] });
    expect(outcome).toMatchObject({ opened: 1, retired: 1, closed: 1, failed: 0 });
    expect(google.push.channels.size).toBe(0);
    expect(await channels().listForCalendar(gone.calendarId)).toEqual([]);
    expect(await channels().listRetired()).toEqual([]);
  });
});
