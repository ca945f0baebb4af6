/**
 * Company calendars (Google Workspace, Microsoft 365) through the real core on the
 * local emulators: the scheduled run works out each source's users and queues their
 * syncs; each user's sync lists the provider's changes (a scripted provider here;
 * the real ones are tested against their simulators) and reconciles them with
 * schedules as an ICS calendar is: exact counts per move, cancel and new meeting,
 * a void cursor, a window sliding, revocation, throttling, one bot per meeting across
 * users, group changes, and the source-wide schedule budget.
 */

import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXPANSION_LIMITS, type ExpansionLimits } from '../../lambdas/core/calendar/calendar-limits';
import { type CompanyCalendarSource, calendarRulesSchema } from '../../lambdas/core/calendar/calendar-source';
import type { CalendarEntry } from '../../lambdas/core/calendar/calendar-store';
import {
  cancelCompanyCalendar,
  keptOccurrences,
  listUserScopes,
  planCompanySyncs,
} from '../../lambdas/core/calendar/company/company-run';
import { companyStore } from '../../lambdas/core/calendar/company/company-store';
import {
  type CompanySyncDependencies,
  syncCompanyUser,
  type UserSyncOutcome,
} from '../../lambdas/core/calendar/company/company-sync';
import {
  AccessRevokedError,
  type CompanySourceConfig,
  PROVIDER_LIMITS,
  ProviderUnavailableError,
  ThrottledError,
  type UserSyncRequest,
} from '../../lambdas/core/calendar/company/provider-contract';
import { looksLikeUserScope, userScopeId } from '../../lambdas/core/calendar/company/user-scope';
import type { DomainEvent } from '../../lambdas/core/domain-events/catalogue';
import { toPutEventsEntry } from '../../lambdas/core/domain-events/publisher';
import { getSchedule } from '../../lambdas/core/schedule/schedules';
import type { LeaseToken } from '../../lambdas/core/store/item-lease';
import { keys } from '../../lambdas/core/store/table-layout';
import { METRICS } from '../../lambdas/core/telemetry';
import { type CalendarHarness, calendarHarness } from '../fixtures/calendar-harness';
import { entryProblems } from '../fixtures/event-schemas';
import {
  type LocalPipeline,
  type RecordedMetric,
  recordingTelemetry,
  startLocalPipeline,
} from '../fixtures/local-pipeline';
import { meetingItem, ScriptedProvider } from '../fixtures/scripted-provider';

const START = Date.parse('2027-03-01T08:00:00Z');
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const ADA = 'ada@acme.example';
const BOB = 'bob@acme.example';
const CY = 'cy@acme.example';

let pipeline: LocalPipeline;
beforeAll(async () => {
  pipeline = await startLocalPipeline();
});
afterAll(async () => {
  await pipeline?.stop();
});

interface CompanyHarness {
  deps: CompanySyncDependencies;
  calendars: CalendarHarness;
  provider: ScriptedProvider;
  metrics: RecordedMetric[];
  published: DomainEvent[];
  queued: UserSyncRequest[];
  clock: { now: number };
  /** Registers a company source (as PUT /calendars/{id} stores it). */
  register(calendarId: string, company: Partial<CompanySourceConfig>): Promise<void>;
  /** The scheduled run, then every sync it queued, in order. */
  run(): Promise<UserSyncOutcome[]>;
  sync(calendarId: string, user: string): Promise<UserSyncOutcome>;
  entries(calendarId: string, user: string): Promise<CalendarEntry[]>;
}

async function companyHarness(
  options: { sourceSchedulesPerDay?: number; expansionLimits?: ExpansionLimits } = {},
): Promise<CompanyHarness> {
  const clock = { now: START };
  const now = () => clock.now;
  const { telemetry, metrics } = recordingTelemetry();
  const calendars = await calendarHarness(now, {
    telemetry,
    ...(options.expansionLimits !== undefined && { expansionLimits: options.expansionLimits }),
  });
  const table = calendars.deps.schedules.table;
  const provider = new ScriptedProvider('google');
  const published: DomainEvent[] = [];
  const queued: UserSyncRequest[] = [];
  const deps: CompanySyncDependencies = {
    ...calendars.deps,
    company: companyStore(table),
    providerFor: async () => provider,
    publisher: { publish: async (events) => void published.push(...events) },
    ...(options.sourceSchedulesPerDay !== undefined && { sourceSchedulesPerDay: options.sourceSchedulesPerDay }),
  };
  const harness: CompanyHarness = {
    deps,
    calendars,
    provider,
    metrics,
    published,
    queued,
    clock,
    async register(calendarId, company) {
      const source: CompanyCalendarSource = {
        kind: 'company',
        calendarId,
        company: { provider: 'google', credentialsSecret: 'acme/google-calendar', ...company } as CompanySourceConfig,
        rules: calendarRulesSchema.parse({}),
        botName: 'Notetaker',
        lookaheadDays: 14,
        createdAt: new Date(START).toISOString(),
        updatedAt: new Date(START).toISOString(),
      };
      await table.db.send(
        new PutCommand({ TableName: table.tableName, Item: { ...keys.calendar(calendarId), ...source } }),
      );
    },
    async run() {
      const from = queued.length;
      await planCompanySyncs({ ...deps, queue: { send: async (requests) => void queued.push(...requests) } });
      const outcomes: UserSyncOutcome[] = [];
      for (const request of queued.slice(from)) outcomes.push(await syncCompanyUser(request, deps));
      return outcomes;
    },
    sync: (calendarId, user) => syncCompanyUser({ calendar_id: calendarId, user, reason: 'manual' }, deps),
    entries: (calendarId, user) => calendars.deps.store.listEntries(userScopeId(calendarId, user)),
  };
  return harness;
}

const counts = (outcome: UserSyncOutcome | undefined) => {
  if (outcome?.outcome !== 'synced') throw new Error(`not synced: ${JSON.stringify(outcome)}`);
  const { created, moved, cancelled, unchanged } = outcome.result;
  return { full: outcome.full, created, moved, cancelled, unchanged };
};

function byState(entries: CalendarEntry[]): Record<string, number> {
  const states: Record<string, number> = {};
  for (const entry of entries) states[entry.state] = (states[entry.state] ?? 0) + 1;
  return states;
}

const named = (metrics: RecordedMetric[], metric: { name: string }) => metrics.filter((m) => m.name === metric.name);

/** A meeting Ada organizes, `hours` from the start of the test. */
const adaMeeting = (id: string, hours: number) => meetingItem({ id, start: START + hours * HOUR, organizer: ADA });

describe('a company calendar user', () => {
  it('syncs in full first, then incrementally: a move, a cancel, a removal and a new meeting, with exact counts', async () => {
    const h = await companyHarness();
    await h.register('acme', { users: [ADA] });
    for (const [id, hours] of [
      ['standup', 2],
      ['review', 26],
      ['retro', 50],
      ['planning', 74],
    ] as const)
      h.provider.put(ADA, adaMeeting(id, hours));
    const [first] = await h.run();
    expect(counts(first)).toEqual({ full: true, created: 4, moved: 0, cancelled: 0, unchanged: 0 });
    expect(await h.deps.company.getUser('acme', ADA)).toMatchObject({ state: 'connected', eventsSeen: 4 });

    h.clock.now += HOUR;
    h.provider.put(ADA, adaMeeting('review', 30));
    h.provider.put(ADA, {
      ...adaMeeting('retro', 50),
      occurrence: { ...adaMeeting('retro', 50).occurrence, cancelled: true },
    });
    h.provider.remove(ADA, 'planning');
    h.provider.put(ADA, adaMeeting('one-on-one', 98));
    const [second] = await h.run();
    expect(counts(second)).toEqual({ full: false, created: 1, moved: 1, cancelled: 2, unchanged: 1 });
    expect(h.provider.listings.at(-1)?.cursor).toBeDefined();
    const review = (await h.entries('acme', ADA)).find((e) => e.uid === 'review');
    expect(await getSchedule(String(review?.scheduleId), h.deps.schedules)).toMatchObject({
      joinAt: new Date(START + 30 * HOUR).toISOString(),
      status: 'scheduled',
    });
    expect(await h.deps.company.getUser('acme', ADA)).toMatchObject({ state: 'connected', eventsSeen: 3 });
    expect(named(h.metrics, METRICS.calendarUserSynced)).toEqual([
      { name: 'CalendarUserSynced', dimensions: { provider: 'google' } },
      { name: 'CalendarUserSynced', dimensions: { provider: 'google' } },
    ]);
    expect(named(h.metrics, METRICS.calendarProviderCalls)).toHaveLength(2);

    // Preview and GET /schedules read the user's scope.
    const kept = await keptOccurrences('acme', ADA, h.deps);
    expect(kept.occurrences.map((o) => o.uid)).toEqual(['standup', 'review', 'one-on-one']);
    expect(await listUserScopes('acme', h.deps)).toEqual([{ user: ADA, scopeId: userScopeId('acme', ADA) }]);
    // An ICS calendar may not take a user's scope as its id.
    expect([looksLikeUserScope(userScopeId('acme', ADA)), looksLikeUserScope('acme.ua')]).toEqual([true, false]);
    // DELETE while a sync holds a user: refused for that user, tried again.
    const adasLease = await h.deps.company.takeUserLease('acme', ADA, h.clock.now, 60_000);
    expect(adasLease).toBeDefined();
    expect((await cancelCompanyCalendar('acme', h.deps)).failed).toEqual([
      expect.objectContaining({ reason: expect.stringMatching(/^sync-in-progress/) }),
    ]);
    await h.deps.company.releaseUserLease('acme', ADA, adasLease as LeaseToken);
    // DELETE: every schedule of every user cancelled, the users gone.
    expect(await cancelCompanyCalendar('acme', h.deps)).toEqual({ cancelled: 3, failed: [] });
    expect(await h.deps.company.listUsers('acme')).toEqual([]);
    expect(await h.deps.company.getKept(userScopeId('acme', ADA))).toBeUndefined();
  });

  it('lists in full when the cursor is void, and nothing doubles', async () => {
    const h = await companyHarness();
    await h.register('acme', { users: [ADA] });
    for (const [id, hours] of [
      ['a', 2],
      ['b', 26],
      ['c', 50],
    ] as const)
      h.provider.put(ADA, adaMeeting(id, hours));
    await h.run();
    const before = await h.entries('acme', ADA);
    const launchersBefore = h.calendars.executions.started.size;
    h.provider.voidCursors(ADA);
    const [again] = await h.run();
    expect(counts(again)).toEqual({ full: true, created: 0, moved: 0, cancelled: 0, unchanged: 3 });
    expect(byState(await h.entries('acme', ADA))).toEqual(byState(before));
    expect(h.calendars.executions.started.size).toBe(launchersBefore);
    expect((await h.deps.company.getKept(userScopeId('acme', ADA)))?.items).toHaveLength(3);
    expect(await h.deps.company.getUser('acme', ADA)).toMatchObject({ eventsSeen: 3 });

    // A full listing replaces what was kept: an event deleted while the cursor was void is gone, not kept on.
    h.provider.voidCursors(ADA);
    h.provider.remove(ADA, 'c');
    expect(counts((await h.run())[0])).toEqual({ full: true, created: 0, moved: 0, cancelled: 1, unchanged: 2 });
  });

  it('lists in full again when the lookahead reaches the kept window, so a series instance sliding into view is scheduled', async () => {
    const h = await companyHarness();
    await h.register('acme', { users: [ADA] });
    const weekly = (week: number) =>
      meetingItem({
        id: `weekly_${week}`,
        uid: 'weekly',
        start: START + week * 7 * DAY + 2 * HOUR,
        originalStart: START + week * 7 * DAY + 2 * HOUR,
        organizer: ADA,
      });
    // Weeks 0..4: the first window (the lookahead of 14 days and 7 more) ends before week 3.
    for (const week of [0, 1, 2, 3, 4]) h.provider.put(ADA, weekly(week));
    expect(counts((await h.run())[0])).toMatchObject({ full: true, created: 2 });
    h.clock.now += DAY;
    // A day on: week 0 is over, week 2 comes into the lookahead from the kept items.
    expect(counts((await h.run())[0])).toMatchObject({ full: false, created: 1, unchanged: 1 });
    // Eight days on: week 3 is in the lookahead, beyond the first listing's window.
    h.clock.now += 7 * DAY;
    const [slid] = await h.run();
    expect(counts(slid)).toMatchObject({ full: true, created: 1, unchanged: 1, cancelled: 0 });
    // Week 0, past, is kept too: a past entry stays through the recent-outcomes report's week.
    expect(
      (await h.entries('acme', ADA))
        .filter((e) => e.state === 'active')
        .map((e) => e.slot.start)
        .sort(),
    ).toEqual([0, 1, 2, 3].map((week) => new Date(START + week * 7 * DAY + 2 * HOUR).toISOString()));
  });

  it('sends one bot when five colleagues have the same meeting in their calendars', async () => {
    const h = await companyHarness();
    const team = [ADA, BOB, CY, 'dee@acme.example', 'eve@acme.example'];
    await h.register('acme', { users: team });
    const attendees = Object.fromEntries(team.map((user) => [user, 'ACCEPTED']));
    for (const user of team)
      h.provider.put(
        user,
        meetingItem({ id: `${user}-copy`, uid: 'all-hands', start: START + 3 * HOUR, organizer: ADA, attendees }),
      );
    const outcomes = await h.run();
    expect(outcomes.map((o) => counts(o).created).reduce((a, b) => a + b)).toBe(1);
    const states = await Promise.all(team.map(async (user) => byState(await h.entries('acme', user))));
    expect(states.filter((s) => s.active === 1)).toHaveLength(1);
    expect(states.filter((s) => s.duplicate === 1)).toHaveLength(4);
    expect(h.calendars.executions.started.size).toBe(1);
  });
});

describe('a company calendar refused by its provider', () => {
  it('disconnects a revoked user with a metric and one domain event, keeps their bots, syncs the others, and reconnects', async () => {
    const h = await companyHarness();
    await h.register('acme', { users: [ADA, BOB, CY] });
    for (const user of [ADA, BOB, CY])
      h.provider.put(user, meetingItem({ id: `${user}-1`, start: START + 5 * HOUR, organizer: user }));
    await h.run();
    h.provider.failures.set(BOB, new AccessRevokedError('user', 'invalid_grant: Not a valid email or user ID.'));
    h.clock.now += HOUR;
    const outcomes = await h.run();
    expect(outcomes.map((o) => [o.user, o.outcome])).toEqual([
      [ADA, 'synced'],
      [BOB, 'disconnected'],
      [CY, 'synced'],
    ]);
    expect(await h.deps.company.getUser('acme', BOB)).toMatchObject({
      state: 'disconnected',
      reason: 'invalid_grant: Not a valid email or user ID.',
    });
    expect(named(h.metrics, METRICS.calendarUserDisconnected)).toEqual([
      { name: 'CalendarUserDisconnected', dimensions: { provider: 'google' } },
    ]);
    expect(h.published.map((e) => e.detailType)).toEqual(['calendar.disconnected']);
    expect(h.published[0]?.detail).toMatchObject({ calendar_id: 'acme', user: BOB, provider: 'google', scope: 'user' });
    expect(entryProblems(toPutEventsEntry(h.published[0] as DomainEvent, 'bus'))).toEqual([]);
    const [bobsEntry] = await h.entries('acme', BOB);
    expect(await getSchedule(String(bobsEntry?.scheduleId), h.deps.schedules)).toMatchObject({ status: 'scheduled' });

    // Found again: neither counted nor announced again.
    h.clock.now += HOUR;
    expect((await h.sync('acme', BOB)).outcome).toBe('disconnected');
    expect(named(h.metrics, METRICS.calendarUserDisconnected)).toHaveLength(1);
    expect(h.published).toHaveLength(1);

    h.provider.failures.delete(BOB);
    expect(counts(await h.sync('acme', BOB))).toMatchObject({ unchanged: 1 });
    const bob = await h.deps.company.getUser('acme', BOB);
    expect(bob).toMatchObject({ state: 'connected', eventsSeen: 1 });
    expect(bob?.reason).toBeUndefined();

    // The whole grant refused: every user disconnected, one event each, with ids of their own.
    h.provider.failures.set('*', new AccessRevokedError('source', 'unauthorized_client: Client is unauthorized'));
    expect(await h.sync('acme', ADA)).toMatchObject({
      outcome: 'disconnected',
      scope: 'source',
      newly_disconnected: 3,
    });
    expect(named(h.metrics, METRICS.calendarUserDisconnected)).toHaveLength(4);
    const bySource = h.published.slice(1);
    expect(bySource.map((e) => (e.detail as { user: string }).user).sort()).toEqual([ADA, BOB, CY]);
    expect(new Set(h.published.map((e) => e.detail.event_id)).size).toBe(4);
    for (const user of [ADA, BOB, CY])
      expect(await h.deps.company.getUser('acme', user)).toMatchObject({ state: 'disconnected' });
    // The users after it find themselves disconnected already: no second round over every user.
    const mark = h.deps.company.markDisconnected.bind(h.deps.company);
    const marked: string[] = [];
    h.deps.company.markDisconnected = (calendarId, user, reason, at) => {
      marked.push(user);
      return mark(calendarId, user, reason, at);
    };
    expect(await h.sync('acme', BOB)).toMatchObject({ outcome: 'disconnected', newly_disconnected: 0 });
    expect(marked).toEqual([BOB]);
    expect(h.published).toHaveLength(4);
  });

  it('announces a disconnection whose publish failed at the next sync, under the same id', async () => {
    const h = await companyHarness();
    await h.register('acme', { users: [ADA] });
    h.provider.failures.set(ADA, new AccessRevokedError('user', 'invalid_grant'));
    await h.run();
    const sent = h.published[0]?.detail.event_id;
    const publish = h.deps.publisher.publish;
    h.deps.publisher.publish = async () => {
      throw new Error('PutEvents refused');
    };
    await h.deps.company.updateUser('acme', ADA, { disconnectPublished: false });
    h.clock.now += HOUR;
    await expect(h.sync('acme', ADA)).rejects.toThrow('PutEvents refused');
    h.deps.publisher.publish = publish;
    h.clock.now += HOUR;
    await h.sync('acme', ADA);
    expect(h.published.map((e) => e.detail.event_id)).toEqual([sent, sent]);
    expect(named(h.metrics, METRICS.calendarUserDisconnected)).toHaveLength(1);
  });

  it('backs a throttled user off, doubling on repeats, without throwing; an outage is a failed sync that leaves the user connected', async () => {
    const h = await companyHarness();
    await h.register('acme', { users: [ADA, BOB] });
    h.provider.put(ADA, adaMeeting('a', 5));
    h.provider.failures.set(ADA, new ThrottledError(30_000, 'rateLimitExceeded'));
    const outcomes = await h.run();
    expect(outcomes[0]).toMatchObject({ outcome: 'throttled', backoff_until: new Date(START + 30_000).toISOString() });
    expect(outcomes[1]).toMatchObject({ outcome: 'synced' });
    expect(named(h.metrics, METRICS.calendarProviderThrottled)).toEqual([
      { name: 'CalendarProviderThrottled', dimensions: { provider: 'google' } },
    ]);
    // Backing off: neither queued by the run nor listed when asked.
    const listings = h.provider.listings.length;
    expect(await h.sync('acme', ADA)).toMatchObject({ outcome: 'skipped', reason: 'backing-off' });
    expect(h.provider.listings.length).toBe(listings);
    expect((await h.run()).map((o) => o.user)).toEqual([BOB]);
    h.clock.now += 31_000;
    expect(await h.sync('acme', ADA)).toMatchObject({
      outcome: 'throttled',
      backoff_until: new Date(h.clock.now + 60_000).toISOString(),
    });
    h.provider.failures.delete(ADA);
    h.clock.now += 61_000;
    expect(counts(await h.sync('acme', ADA))).toMatchObject({ created: 1 });
    const ada = await h.deps.company.getUser('acme', ADA);
    expect(ada?.backoffUntil).toBeUndefined();
    expect(ada?.throttledRuns).toBeUndefined();

    h.provider.failures.set(ADA, new ProviderUnavailableError('503 backendError'));
    h.clock.now += HOUR;
    expect(await h.sync('acme', ADA)).toMatchObject({ outcome: 'failed', reason: '503 backendError' });
    expect(await h.deps.company.getUser('acme', ADA)).toMatchObject({
      state: 'connected',
      lastSyncOutcome: 'failed: 503 backendError',
    });
  });
});

describe('a company calendar group', () => {
  it('adds new members as pending, cancels the schedules of members gone, and keeps the last members when the group cannot be read', async () => {
    const h = await companyHarness();
    await h.register('eng', { group: 'eng@acme.example', adminEmail: 'admin@acme.example' });
    h.provider.groups.set('eng@acme.example', [ADA, BOB]);
    h.provider.put(ADA, adaMeeting('ada-1', 5));
    h.provider.put(BOB, meetingItem({ id: 'bob-1', start: START + 6 * HOUR, organizer: BOB }));
    const first = await h.run();
    expect(first.map((o) => counts(o).created)).toEqual([1, 1]);
    expect(await h.deps.company.getUser('eng', BOB)).toMatchObject({ fromGroup: true, state: 'connected' });
    const [bobsEntry] = await h.entries('eng', BOB);

    h.provider.groups.set('eng@acme.example', [ADA, CY]);
    h.clock.now += HOUR;
    // A sync of Bob under way: he is removed at a later run, not under its feet.
    const bobsLease = await h.deps.company.takeUserLease('eng', BOB, h.clock.now, 60_000);
    expect(bobsLease).toBeDefined();
    expect((await h.run()).map((o) => o.user)).toEqual([ADA, CY]);
    expect(await h.deps.company.getUser('eng', BOB)).toMatchObject({ state: 'connected' });
    expect(await getSchedule(String(bobsEntry?.scheduleId), h.deps.schedules)).toMatchObject({ status: 'scheduled' });
    await h.deps.company.releaseUserLease('eng', BOB, bobsLease as LeaseToken);
    const second = await h.run();
    expect(second.map((o) => o.user)).toEqual([ADA, CY]);
    expect(await getSchedule(String(bobsEntry?.scheduleId), h.deps.schedules)).toMatchObject({ status: 'cancelled' });
    expect(await h.deps.company.getUser('eng', BOB)).toBeUndefined();
    expect(await h.deps.company.getKept(userScopeId('eng', BOB))).toBeUndefined();
    expect(await h.entries('eng', BOB)).toEqual([]);

    h.provider.groupFailure = new AccessRevokedError('source', 'Not Authorized to access this resource/api');
    const queuedBefore = h.queued.length;
    const planned = await planCompanySyncs({ ...h.deps, queue: { send: async (r) => void h.queued.push(...r) } });
    expect(planned).toMatchObject({ sources: 1, users: 2, enqueued: 2, removed: 0 });
    expect(planned.unresolved).toEqual([
      { calendar_id: 'eng', reason: 'AccessRevokedError: Not Authorized to access this resource/api' },
    ]);
    expect(h.queued.slice(queuedBefore).map((r) => r.user)).toEqual([ADA, CY]);
  });

  it('removes nobody on the word of a group read to the member cap, whose order may leave anyone out', async () => {
    const h = await companyHarness();
    await h.register('all', { group: 'all@acme.example', adminEmail: 'admin@acme.example' });
    h.provider.groups.set('all@acme.example', [ADA, BOB]);
    await planCompanySyncs({ ...h.deps, queue: { send: async () => {} } });
    // The next read is cut at the cap and names neither Ada nor Bob.
    const others = Array.from({ length: PROVIDER_LIMITS.membersPerGroup }, (_, i) => `member-${i}@acme.example`);
    h.provider.groups.set('all@acme.example', others);
    const planned = await planCompanySyncs({ ...h.deps, queue: { send: async () => {} } });
    expect(planned).toMatchObject({ removed: 0, added: PROVIDER_LIMITS.membersPerGroup });
    expect(planned.unresolved.map((u) => u.calendar_id)).toEqual(['all']);
    expect(await h.deps.company.getUser('all', ADA)).toBeDefined();
  }, 120_000);
});

describe('the schedule budget of a company calendar', () => {
  it('holds every user of a source to one day budget, so an invite flood sent to everyone waits', async () => {
    const h = await companyHarness({ sourceSchedulesPerDay: 3 });
    const team = [ADA, BOB, CY, 'dee@acme.example'];
    await h.register('acme', { users: team });
    for (const user of team)
      for (const n of [1, 2])
        h.provider.put(
          user,
          meetingItem({ id: `${user}-${n}`, start: START + 2 * DAY + n * 7 * HOUR, organizer: user }),
        );
    const outcomes = await h.run();
    expect(outcomes.map((o) => counts(o).created)).toEqual([2, 1, 0, 0]);
    expect(outcomes.map((o) => (o.outcome === 'synced' ? o.result.deferred : -1))).toEqual([0, 1, 2, 2]);
    const last = outcomes[3];
    expect(last?.outcome === 'synced' && last.result.limits).toEqual([
      {
        limit: 'schedules-per-source-day',
        reason:
          "2 new meeting(s) wait for tomorrow (UTC): a company calendar's users get together at most 3 new schedules a day",
      },
    ]);
    expect(
      named(h.metrics, METRICS.calendarLimitReached).filter((m) => m.dimensions?.limit === 'schedules-per-source-day'),
    ).toHaveLength(3);
    // The next UTC day, the rest.
    h.clock.now += DAY;
    expect((await h.run()).map((o) => counts(o).created).reduce((a, b) => a + b)).toBe(3);
  });

  it("applies the ICS path's per-event caps to a provider's instances: a stranger's sub-daily series, instances per event", async () => {
    const h = await companyHarness({ expansionLimits: { ...EXPANSION_LIMITS, occurrencesPerEvent: 3 } });
    await h.register('acme', { users: [ADA] });
    const series = (uid: string, organizer: string, slots: number[]) => {
      for (const [n, hours] of slots.entries())
        h.provider.put(
          ADA,
          meetingItem({
            id: `${uid}_${n}`,
            uid,
            start: START + hours * HOUR,
            originalStart: START + hours * HOUR,
            organizer,
            attendees: { [ADA]: 'ACCEPTED' },
          }),
        );
    };
    series('every-two-hours', 'stranger@elsewhere.example', [26, 28, 30, 32]);
    series('twice-a-day', ADA, [50, 54]);
    series('daily', ADA, [75, 99, 123, 147, 171]);
    const [outcome] = await h.run();
    expect(counts(outcome)).toMatchObject({ created: 5 });
    const active = (await h.entries('acme', ADA)).filter((e) => e.state === 'active');
    expect(active.map((e) => e.uid).sort()).toEqual(['daily', 'daily', 'daily', 'twice-a-day', 'twice-a-day']);
    expect(outcome?.outcome === 'synced' && outcome.result.limits.map((hit) => [hit.limit, hit.uid])).toEqual([
      ['sub-daily-recurrence', 'every-two-hours'],
      ['occurrences-per-event', 'daily'],
    ]);
    // The instances the cap left out are not cancellations: a later sync keeps the three it made.
    h.clock.now += HOUR;
    expect(counts((await h.run())[0])).toMatchObject({ created: 0, cancelled: 0, unchanged: 5 });
  });
});
