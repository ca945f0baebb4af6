/**
 * The calendar API for company sources (Google Workspace, Microsoft 365) through the
 * real handler on dynalite, the per-user sync stood in for by a fake `company`
 * dependency (its real one lives in company/): every refusal of PUT with its reason,
 * the credentials-secret prefix, no change of kind, the per-user view, a manual sync
 * queued per user, the preview per user, delete, and each user's schedules. The ICS
 * sync never runs on a company source.
 */
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCalendarSyncRun } from '../../lambdas/calendars/adapter';
import { occurrenceScheduleId } from '../../lambdas/core/calendar/calendar-ids';
import type { CompanyCalendarSource } from '../../lambdas/core/calendar/calendar-source';
import { companyStore } from '../../lambdas/core/calendar/company/company-store';
import { AccessRevokedError, type UserSyncRequest } from '../../lambdas/core/calendar/company/provider-contract';
import { userScopeId } from '../../lambdas/core/calendar/company/user-scope';
import {
  type CompanyCalendarApi,
  type CompanyUserStateView,
  companyCalendarApi,
} from '../../lambdas/core/calendar/company-calendar-api';
import type { FeedFetcher } from '../../lambdas/core/calendar/feed-fetch';
import type { Occurrence } from '../../lambdas/core/calendar/ics-occurrences';
import { upsertSchedule } from '../../lambdas/core/schedule/schedules';
import { METRICS, silentTelemetry } from '../../lambdas/core/telemetry';
import { documentClient } from '../../lambdas/shared/dynamo-client';
import { calendarHarness, type FeedServer, startFeedServer, testEvent, testFeed } from '../fixtures/calendar-harness';
import { type LocalPipeline, recordingTelemetry, startLocalPipeline } from '../fixtures/local-pipeline';

const NOW = Date.parse('2027-03-01T00:00:00Z');
const now = () => NOW;

let pipeline: LocalPipeline;
let feeds: FeedServer;
beforeAll(async () => {
  pipeline = await startLocalPipeline();
  feeds = await startFeedServer();
});
afterAll(async () => {
  await feeds?.stop();
  await pipeline?.stop();
});

/** The per-user sync as the routes see it: states, kept occurrences and cancellations in memory. */
function fakeCompany(
  options: { users?: CompanyUserStateView[]; kept?: Record<string, Occurrence[]>; members?: string[] | Error } = {},
) {
  const cancelled: string[] = [];
  const resolved: string[] = [];
  let failCancel: string | undefined;
  const company: CompanyCalendarApi = {
    listUsers: async () => options.users ?? [],
    userScopeId,
    resolveGroup: async (source: CompanyCalendarSource) => {
      resolved.push(source.calendarId);
      if (options.members instanceof Error) throw options.members;
      return options.members ?? [];
    },
    keptOccurrences: async (calendarId, user) => ({
      scopeId: userScopeId(calendarId, user),
      occurrences: options.kept?.[user] ?? [],
    }),
    // No channels in these tests: calendar-push-delete.test.ts retires real ones.
    retireChannels: async () => 0,
    cancelCompanyCalendar: async (calendarId) => {
      if (failCancel !== undefined) return { cancelled: 0, failed: [{ reason: failCancel }] };
      cancelled.push(calendarId);
      return { cancelled: 2, failed: [] };
    },
  };
  return {
    company,
    cancelled,
    resolved,
    failCancelWith: (reason: string) => {
      failCancel = reason;
    },
  };
}

function recordingQueue() {
  const sent: UserSyncRequest[] = [];
  return { sent, send: async (requests: readonly UserSyncRequest[]) => void sent.push(...requests) };
}

const SECRET = 'meeting-pipeline/calendars/acme-google';
const google = (extra: Record<string, unknown> = {}) => ({
  google: { credentials_secret: SECRET, users: ['ada@acme.example', 'bob@acme.example'], ...extra },
});
const TENANT = '72f988bf-86f1-41af-91ab-2d7cd011db47';
const CLIENT = '35c2e2a1-8f52-4a3a-9cd4-2c9f0c1e5f11';
const microsoft = (extra: Record<string, unknown> = {}) => ({
  microsoft: {
    tenant_id: TENANT,
    client_id: CLIENT,
    credentials_secret: 'meeting-pipeline/calendars/contoso',
    users: ['grete@contoso.example'],
    ...extra,
  },
});

const noLinks: Occurrence['links'] = {
  conference: [],
  url: undefined,
  location: undefined,
  description: undefined,
  descriptionHtml: undefined,
};

function occurrence(uid: string, start: string, fields: Partial<Occurrence> = {}): Occurrence {
  return {
    uid,
    originalStart: undefined,
    start,
    end: new Date(Date.parse(start) + 30 * 60_000).toISOString(),
    timeZone: 'Europe/Berlin',
    title: uid,
    allDay: false,
    cancelled: false,
    organizer: undefined,
    attendees: [],
    links: noLinks,
    ...fields,
  };
}

const errorOf = (body: Record<string, unknown>) => body.error as { code: string; message: string };

describe('PUT /calendars/{id} with a company source', () => {
  it('refuses every malformed source with a 400 that names the mistake', async () => {
    const calendars = await calendarHarness(now, { companyCalendars: fakeCompany().company });
    const cases: Array<[unknown, RegExp]> = [
      [{}, /give exactly one source: ics_url, google or microsoft/],
      [{ rules: { join: 'all' } }, /give exactly one source/],
      [{ ics_url: 'https://calendar.example/a.ics', ...google() }, /give exactly one source/],
      [{ ...google(), ...microsoft() }, /give exactly one source/],
      [{ google: { credentials_secret: SECRET } }, /give exactly one of users .* and group/],
      [google({ group: 'eng@acme.example', admin_email: 'it@acme.example' }), /give exactly one of users .* and group/],
      [{ google: { credentials_secret: SECRET, group: 'eng@acme.example' } }, /admin_email: admin_email is required/],
      [{ google: { users: ['ada@acme.example'] } }, /google\.credentials_secret: is required/],
      [google({ users: ['ada'] }), /google\.users\.0: each user is an email address/],
      [google({ users: [] }), /google\.users: must name at least one user/],
      [google({ users: 'ada@acme.example' }), /google\.users: must be a list of users/],
      [google({ user: ['x@acme.example'] }), /google: unknown key\(s\) user/],
      [google({ credentials_secret: '{"type":"service_account","private_key":"-----BEGIN' }), /never the credentials/],
      [microsoft({ tenant_id: 'not a tenant' }), /microsoft\.tenant_id: must be a GUID or a domain/],
      [microsoft({ client_id: 'contoso-app' }), /microsoft\.client_id: must be a GUID/],
      [microsoft({ group_id: '2b7e1c4a-1111-4222-8333-944455556666' }), /give exactly one of users .* and group_id/],
      [microsoft({ users: undefined }), /give exactly one of users .* and group_id/],
      [microsoft({ group: 'eng@contoso.example' }), /microsoft: unknown key\(s\) group/],
      [microsoft({ users: ['not an upn'] }), /microsoft\.users\.0: each user is a user principal name or an object id/],
    ];
    for (const [body, reason] of cases) {
      const answer = await calendars.call('PUT', '/calendars/acme', body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(errorOf(answer.body).code).toBe('invalid-calendar');
      expect(errorOf(answer.body).message, JSON.stringify(body)).toMatch(reason);
    }
    expect((await calendars.call('GET', '/calendars/acme')).status).toBe(404);
  });

  it('takes the credentials secret by name or ARN only under the prefix the sync functions may read', async () => {
    const calendars = await calendarHarness(now, { companyCalendars: fakeCompany().company });
    for (const secret of [
      'prod/google-key',
      'meeting-pipeline/other/key',
      'arn:aws:secretsmanager:eu-west-1:123456789012:secret:prod/google-key-AbC123',
    ]) {
      const answer = await calendars.call('PUT', '/calendars/acme', google({ credentials_secret: secret }));
      expect(answer.status, secret).toBe(400);
      expect(errorOf(answer.body).message).toBe(
        'google.credentials_secret: the secret\'s name must start with "meeting-pipeline/calendars/": the sync functions may read secrets under that prefix only',
      );
    }
    const arn = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:meeting-pipeline/calendars/acme-AbC123';
    const byArn = await calendars.call('PUT', '/calendars/acme', google({ credentials_secret: arn }));
    expect(byArn.status).toBe(201);
    expect((byArn.body.google as { credentials_secret: string }).credentials_secret).toBe(arn);

    // The prefix is the deployment's setting.
    const other = await calendarHarness(now, {
      companyCalendars: fakeCompany().company,
      credentialsSecretPrefix: 'cal/',
    });
    expect((await other.call('PUT', '/calendars/acme', google())).status).toBe(400);
    expect((await other.call('PUT', '/calendars/acme', google({ credentials_secret: 'cal/acme' }))).status).toBe(201);
  });

  it('counts users after folding case, up to the configured cap', async () => {
    const calendars = await calendarHarness(now, { companyCalendars: fakeCompany().company, maxUsersPerSource: 3 });
    const three = ['Ada@Acme.example', 'ada@acme.example', 'bob@acme.example', 'carl@acme.example'];
    const put = await calendars.call('PUT', '/calendars/acme', google({ users: three }));
    expect(put.status).toBe(201);
    expect((put.body.google as { users: string[] }).users).toEqual([
      'ada@acme.example',
      'bob@acme.example',
      'carl@acme.example',
    ]);
    // Long addresses: the list must still fit in the calendar's one table item.
    const long = (i: number) => `${'x'.repeat(60)}${i}@${'long-domain.'.repeat(20)}example`;
    const roomy = await calendarHarness(now, { companyCalendars: fakeCompany().company, maxUsersPerSource: 10_000 });
    const huge = await roomy.call(
      'PUT',
      '/calendars/acme',
      google({ users: Array.from({ length: 1_200 }, (_, i) => long(i)) }),
    );
    expect(huge.status).toBe(400);
    expect(errorOf(huge.body).message).toMatch(
      /^google\.users: the list takes \d+ bytes; at most 262144 fit in the calendar's record/,
    );
    const four = await calendars.call('PUT', '/calendars/acme', google({ users: [...three, 'dora@acme.example'] }));
    expect(four.status).toBe(400);
    expect(errorOf(four.body).message).toBe(
      'google.users: 4 distinct users; a source lists at most 3 (split them over several sources, or use a group)',
    );
  });

  it('stores the secret name and the configuration, and a Microsoft source by tenant domain', async () => {
    const calendars = await calendarHarness(now, { companyCalendars: fakeCompany().company });
    const put = await calendars.call('PUT', '/calendars/contoso', {
      ...microsoft({ tenant_id: 'contoso.onmicrosoft.com', users: undefined, group_id: CLIENT.toUpperCase() }),
      bot_name: 'Contoso notes',
    });
    expect(put.status).toBe(201);
    expect(put.body).toMatchObject({
      calendar_id: 'contoso',
      provider: 'microsoft',
      microsoft: {
        tenant_id: 'contoso.onmicrosoft.com',
        client_id: CLIENT,
        credentials_secret: 'meeting-pipeline/calendars/contoso',
        group_id: CLIENT,
      },
      bot_name: 'Contoso notes',
      lookahead_days: 14,
      users: [],
    });
    const { Items } = await documentClient().send(new ScanCommand({ TableName: calendars.tableName }));
    expect(Items?.find((item) => item.calendarId === 'contoso')).toMatchObject({
      kind: 'company',
      company: { provider: 'microsoft', credentialsSecret: 'meeting-pipeline/calendars/contoso' },
    });
  });

  it('refuses a company source where this deployment has no company sync (501)', async () => {
    const calendars = await calendarHarness(now);
    const answer = await calendars.call('PUT', '/calendars/acme', google());
    expect(answer.status).toBe(501);
    expect(errorOf(answer.body).code).toBe('company-calendars-unavailable');
  });

  it('refuses to change a source from ICS to a provider, back, or to another provider (409)', async () => {
    const calendars = await calendarHarness(now, { companyCalendars: fakeCompany().company });
    feeds.set('/kind.ics', testFeed([testEvent('kind-1', '20270302T090000Z')]));
    expect((await calendars.call('PUT', '/calendars/feed', { ics_url: feeds.url('/kind.ics') })).status).toBe(201);
    const toGoogle = await calendars.call('PUT', '/calendars/feed', google());
    expect(toGoogle.status).toBe(409);
    expect(errorOf(toGoogle.body)).toEqual({
      code: 'calendar-kind-change',
      message:
        'Calendar feed is an ICS feed; it cannot become a google source, or its schedules would be orphaned. Delete it first (its schedules are cancelled), or use another id.',
    });
    expect((await calendars.call('PUT', '/calendars/acme', google())).status).toBe(201);
    expect((await calendars.call('PUT', '/calendars/acme', { ics_url: feeds.url('/kind.ics') })).status).toBe(409);
    expect((await calendars.call('PUT', '/calendars/acme', microsoft())).status).toBe(409);
    // The same kind again is an update.
    expect((await calendars.call('PUT', '/calendars/acme', google({ users: ['ada@acme.example'] }))).status).toBe(200);
    expect((await calendars.call('GET', '/calendars/feed')).body.ics_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/…$/);
  });
});

describe('GET /calendars/{id} of a company source', () => {
  it('shows each user: state, reason, last sync in UTC, events seen, back-off; and the totals', async () => {
    const users: CompanyUserStateView[] = [
      {
        user: 'ada@acme.example',
        state: 'connected',
        lastSyncAt: '2027-03-01T01:00:00+01:00',
        lastSyncOutcome: 'created 3',
        eventsSeen: 12,
        fromGroup: false,
      },
      {
        user: 'bob@acme.example',
        state: 'disconnected',
        reason: 'invalid_grant: the user is suspended',
        lastSyncAt: '2027-02-28T23:00:00Z',
        eventsSeen: 0,
        backoffUntil: Date.parse('2027-03-01T00:05:00Z'),
        fromGroup: false,
      },
      // No longer listed, its schedules not yet gone: still shown.
      { user: 'dora@acme.example', state: 'connected', eventsSeen: 4, fromGroup: false },
    ];
    const calendars = await calendarHarness(now, { companyCalendars: fakeCompany({ users }).company });
    await calendars.call(
      'PUT',
      '/calendars/acme',
      google({ users: ['ada@acme.example', 'BOB@acme.example', 'carl@acme.example'] }),
    );
    const got = await calendars.call('GET', '/calendars/acme');
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({
      calendar_id: 'acme',
      provider: 'google',
      google: { credentials_secret: SECRET, users: ['ada@acme.example', 'bob@acme.example', 'carl@acme.example'] },
      created_at: '2027-03-01T00:00:00.000Z',
      users: [
        {
          user: 'ada@acme.example',
          state: 'connected',
          reason: null,
          last_sync: '2027-03-01T00:00:00.000Z',
          last_sync_outcome: 'created 3',
          events_seen: 12,
          backoff_until: null,
        },
        {
          user: 'bob@acme.example',
          state: 'disconnected',
          reason: 'invalid_grant: the user is suspended',
          last_sync: '2027-02-28T23:00:00.000Z',
          events_seen: 0,
          backoff_until: '2027-03-01T00:05:00.000Z',
        },
        { user: 'carl@acme.example', state: 'pending', last_sync: null, events_seen: 0 },
        { user: 'dora@acme.example', state: 'connected', events_seen: 4 },
      ],
      totals: { users: 4, pending: 1, connected: 2, disconnected: 1, events_seen: 16 },
    });
  });
});

describe('POST /calendars/{id}/sync of a company source', () => {
  it('queues every listed user now (202) and never runs the ICS sync', async () => {
    const queue = recordingQueue();
    let feedFetches = 0;
    const fetchFeed: FeedFetcher = async () => {
      feedFetches++;
      throw new Error('the ICS sync ran on a company source');
    };
    const recorded = recordingTelemetry();
    const calendars = await calendarHarness(now, {
      companyCalendars: fakeCompany().company,
      userSyncQueue: queue,
      fetchFeed,
      telemetry: recorded.telemetry,
    });
    await calendars.call('PUT', '/calendars/acme', google());
    const sync = await calendars.call('POST', '/calendars/acme/sync');
    expect(sync).toEqual({ status: 202, body: { calendar_id: 'acme', enqueued: 2 } });
    expect(queue.sent).toEqual([
      { calendar_id: 'acme', user: 'ada@acme.example', reason: 'manual' },
      { calendar_id: 'acme', user: 'bob@acme.example', reason: 'manual' },
    ]);
    expect(feedFetches).toBe(0);
    // Queued is not failed: each user's sync counts itself.
    expect(recorded.metrics.map((metric) => metric.name)).not.toContain(METRICS.calendarSyncFailed.name);
  });

  it("queues a group's members as the provider lists them now, and says why when it refuses", async () => {
    const queue = recordingQueue();
    const fake = fakeCompany({ members: ['ada@acme.example', 'eve@acme.example', 'finn@acme.example'] });
    const calendars = await calendarHarness(now, { companyCalendars: fake.company, userSyncQueue: queue });
    const group = { google: { credentials_secret: SECRET, group: 'eng@acme.example', admin_email: 'it@acme.example' } };
    await calendars.call('PUT', '/calendars/eng', group);
    expect((await calendars.call('POST', '/calendars/eng/sync')).body).toEqual({ calendar_id: 'eng', enqueued: 3 });
    expect(fake.resolved).toEqual(['eng']);
    expect(queue.sent.map((request) => request.user)).toEqual([
      'ada@acme.example',
      'eve@acme.example',
      'finn@acme.example',
    ]);

    const revoked = fakeCompany({ members: new AccessRevokedError('source', 'unauthorized_client: no delegation') });
    const refusing = await calendarHarness(now, { companyCalendars: revoked.company, userSyncQueue: recordingQueue() });
    await refusing.call('PUT', '/calendars/eng', group);
    const answer = await refusing.call('POST', '/calendars/eng/sync');
    expect(answer.status).toBe(502);
    expect(errorOf(answer.body)).toEqual({
      code: 'provider-refused',
      message: 'The provider refused to list the group: unauthorized_client: no delegation',
    });
  });

  it('leaves company sources to the company run in the scheduled ICS run', async () => {
    const calendars = await calendarHarness(now, { companyCalendars: fakeCompany().company });
    feeds.set('/run.ics', testFeed([testEvent('run-1', '20270302T090000Z')]));
    await calendars.call('PUT', '/calendars/feed', { ics_url: feeds.url('/run.ics') });
    await calendars.call('PUT', '/calendars/acme', google());
    const run = createCalendarSyncRun(calendars.deps, { budgetMs: 60_000 });
    expect(await run()).toEqual({ synced: 1, failed: 0, left: 0 });
    expect((await calendars.call('GET', '/calendars/acme')).body.last_sync).toBeUndefined();
  });
});

describe('GET /calendars/{id}/preview of a company source', () => {
  it("decides per user over what each user's last sync kept, that user counting as the owner", async () => {
    const meet = { conference: ['https://meet.google.com/abc-defg-hij'] };
    const kept = {
      'ada@acme.example': [
        occurrence('standup', '2027-03-02T08:00:00.000Z', {
          organizer: 'ada@acme.example',
          links: { ...noLinks, ...meet },
        }),
        occurrence('lunch', '2027-03-01T12:00:00.000Z'),
        occurrence('too-far', '2027-03-20T08:00:00.000Z', { links: { ...noLinks, ...meet } }),
      ],
    };
    const calendars = await calendarHarness(now, { companyCalendars: fakeCompany({ kept }).company });
    await calendars.call('PUT', '/calendars/acme', google());
    const preview = await calendars.call('GET', '/calendars/acme/preview?days=7');
    expect(preview.status).toBe(200);
    expect(preview.body).toMatchObject({
      calendar_id: 'acme',
      days: 7,
      users_not_shown: 0,
      users: [
        {
          user: 'ada@acme.example',
          state: 'pending',
          occurrences: [
            { uid: 'lunch', decision: 'skip', schedule_id: null },
            {
              uid: 'standup',
              start: '2027-03-02T08:00:00.000Z',
              time_zone: 'Europe/Berlin',
              decision: 'join',
              meeting_url: 'https://meet.google.com/abc-defg-hij',
              reason: expect.stringContaining('organized by ada@acme.example'),
              schedule_id: occurrenceScheduleId(userScopeId('acme', 'ada@acme.example'), 'standup', undefined),
            },
          ],
        },
        { user: 'bob@acme.example', occurrences: [] },
      ],
    });
    const one = await calendars.call('GET', '/calendars/acme/preview?user=BOB@acme.example');
    expect((one.body.users as Array<{ user: string }>).map((u) => u.user)).toEqual(['bob@acme.example']);
    expect((await calendars.call('GET', '/calendars/acme/preview?user=zed@acme.example')).status).toBe(404);
    expect((await calendars.call('GET', '/calendars/acme/preview?days=0')).status).toBe(400);
  });
});

describe('DELETE and GET /schedules of a company source', () => {
  it("lists every user's schedules, cancels them all on delete, and keeps the source when that fails", async () => {
    const fake = fakeCompany();
    const calendars = await calendarHarness(now, { companyCalendars: fake.company });
    await calendars.call('PUT', '/calendars/acme', google());
    for (const [user, start] of [
      ['ada@acme.example', '2027-03-02T08:00:00.000Z'],
      ['bob@acme.example', '2027-03-01T09:00:00.000Z'],
    ] as const) {
      const scope = userScopeId('acme', user);
      const scheduleId = occurrenceScheduleId(scope, `${user}-1`, undefined);
      const meetingUrl = `https://meet.google.com/${user.slice(0, 3)}-abcd-efg`;
      const made = await upsertSchedule(
        scheduleId,
        { meeting_url: meetingUrl, join_at: start },
        calendars.deps.schedules,
      );
      expect(made).not.toHaveProperty('error');
      await calendars.deps.store.putEntry(scope, {
        scheduleId,
        uid: `${user}-1`,
        originalStart: undefined,
        slot: { meetingUrl, start },
        title: `${user} weekly`,
        state: 'active',
        botName: 'Notetaker',
      });
    }
    const listed = await calendars.call('GET', '/schedules?calendar_id=acme');
    expect(listed.status).toBe(200);
    expect(listed.body.schedules).toMatchObject([
      {
        user: 'bob@acme.example',
        join_at: '2027-03-01T09:00:00.000Z',
        status: 'scheduled',
        title: 'bob@acme.example weekly',
      },
      { user: 'ada@acme.example', join_at: '2027-03-02T08:00:00.000Z', status: 'scheduled' },
    ]);
    const adaOnly = await calendars.call('GET', '/schedules?calendar_id=acme&user=ada@acme.example');
    expect((adaOnly.body.schedules as unknown[]).length).toBe(1);

    fake.failCancelWith('the service is down');
    const refused = await calendars.call('DELETE', '/calendars/acme');
    expect(refused.status).toBe(409);
    expect(errorOf(refused.body).message).toBe('1 schedule(s) could not be cancelled: the service is down');
    expect((await calendars.call('GET', '/calendars/acme')).status).toBe(200);

    const fine = fakeCompany();
    const again = await calendarHarness(now, { companyCalendars: fine.company });
    await again.call('PUT', '/calendars/acme', google());
    expect(await again.call('DELETE', '/calendars/acme')).toEqual({
      status: 200,
      body: { calendar_id: 'acme', deleted: true, cancelled: 2 },
    });
    expect(fine.cancelled).toEqual(['acme']);
    expect((await again.call('GET', '/calendars/acme')).status).toBe(404);
  });
});

describe('over the real per-user store (companyCalendarApi)', () => {
  it('shows the stored users, syncs the group members the last run resolved (never a provider), and removes every user on delete', async () => {
    const queue = recordingQueue();
    const calendars = await calendarHarness(now, { userSyncQueue: queue });
    const store = companyStore(calendars.deps.schedules.table);
    // Wired as the API function is: the same table, no provider (it may not read credentials).
    calendars.deps.companyCalendars = companyCalendarApi({
      ...calendars.deps,
      company: store,
      telemetry: silentTelemetry,
    });
    const group = { google: { credentials_secret: SECRET, group: 'eng@acme.example', admin_email: 'it@acme.example' } };
    expect((await calendars.call('PUT', '/calendars/eng', group)).status).toBe(201);
    await store.putUser('eng', {
      user: 'ada@acme.example',
      state: 'connected',
      lastSyncAt: '2027-02-28T23:00:00.000Z',
      eventsSeen: 5,
      fromGroup: true,
    });
    await store.putUser('eng', { user: 'bob@acme.example', state: 'pending', eventsSeen: 0, fromGroup: true });
    const got = await calendars.call('GET', '/calendars/eng');
    expect(got.body).toMatchObject({
      users: [
        { user: 'ada@acme.example', state: 'connected', events_seen: 5 },
        { user: 'bob@acme.example', state: 'pending', events_seen: 0 },
      ],
      totals: { users: 2, connected: 1, pending: 1 },
    });
    expect((await calendars.call('POST', '/calendars/eng/sync')).body).toEqual({ calendar_id: 'eng', enqueued: 2 });
    const preview = await calendars.call('GET', '/calendars/eng/preview');
    expect(preview.body).toMatchObject({
      users: [{ user: 'ada@acme.example', occurrences: [] }, { user: 'bob@acme.example' }],
    });
    expect((await calendars.call('DELETE', '/calendars/eng')).status).toBe(200);
    expect(await store.listUsers('eng')).toEqual([]);
  });
});
