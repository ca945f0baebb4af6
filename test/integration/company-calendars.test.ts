/**
 * Company calendars through the REAL providers against BOTH simulators, on the local
 * emulators: the sample tenant of `npm run dev -- --calendar-simulators` (five users
 * per provider: a weekly series across a DST change with a moved and a cancelled
 * instance, an all-hands in every calendar, a declined meeting, one without a link,
 * one moved), synced by the scheduled run and the per-user sync. Each test runs for
 * Google Workspace and Microsoft 365 alike: first sync, incremental sync, a void
 * cursor, revoked grants, one bot per meeting, the series' UTC instants, throttling
 * and group sources. One clock drives the sync and both simulators.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { isCompanySource } from '../../lambdas/core/calendar/calendar-source';
import { type CalendarEntry, scheduleOf } from '../../lambdas/core/calendar/calendar-store';
import type { UserSyncOutcome } from '../../lambdas/core/calendar/company/company-sync';
import type { ProviderName } from '../../lambdas/core/calendar/company/provider-contract';
import { userScopeId } from '../../lambdas/core/calendar/company/user-scope';
import type { DomainEvent } from '../../lambdas/core/domain-events/catalogue';
import { toPutEventsEntry } from '../../lambdas/core/domain-events/publisher';
import { getSchedule } from '../../lambdas/core/schedule/schedules';
import { METRICS } from '../../lambdas/core/telemetry';
import { DEFAULT_CLIENT_TIMEOUTS, sqsClient } from '../../lambdas/shared/aws-clients';
import { startLocalCompanySync, templateUserSyncConsumer } from '../../local/company-sync-local';
import { type HttpRouteHandler, type LocalHttpApi, startLocalHttpApi } from '../../local/http-api-server';
import { LONG_POLL_SECONDS } from '../../local/queue-poller';
import {
  type CompanyCalendars,
  DAY_MS,
  HOUR_MS,
  type ProviderRequest,
  plannedSeriesStarts,
  startCompanyCalendars,
  syncCounts,
  totalCounts,
} from '../fixtures/company-calendars';
import { entryProblems } from '../fixtures/event-schemas';
import { type LocalPipeline, type RecordedMetric, startLocalPipeline } from '../fixtures/local-pipeline';

/** A date with the sample zone's next DST change ahead, inside the lookahead: the series crosses it. */
const START = Date.parse('2026-11-24T21:40:00Z');
const SERIES = 'Weekly team sync';

let pipeline: LocalPipeline;
beforeAll(async () => {
  pipeline = await startLocalPipeline();
});
afterAll(async () => {
  await pipeline?.stop();
});

/** Wall time (ms) of the first run of the sample users and of the run after one change, by provider (report only). */
const measured: {
  full: Partial<Record<ProviderName, number>>;
  incremental: Partial<Record<ProviderName, number>>;
  queuedFull?: number;
  queuedIncremental?: number;
  push?: Partial<Record<ProviderName, number>>;
} = {
  full: {},
  incremental: {},
};
afterAll(() => {
  if (process.env.COMPANY_CALENDARS_TIMES !== undefined)
    process.stdout.write(`company calendars sync times (ms): ${JSON.stringify(measured)}\n`);
});

let running: CompanyCalendars | undefined;
afterEach(async () => {
  await running?.stop();
  running = undefined;
});

async function start(): Promise<CompanyCalendars> {
  running = await startCompanyCalendars(START);
  return running;
}

/** Resolves once `condition` holds; fails the test past `withinMs` (the bound for a pushed change). */
async function until(condition: () => boolean | Promise<boolean>, withinMs: number): Promise<void> {
  const deadline = performance.now() + withinMs;
  while (!(await condition())) {
    if (performance.now() > deadline) throw new Error(`not within ${withinMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const named = (metrics: RecordedMetric[], metric: { name: string }) => metrics.filter((m) => m.name === metric.name);

/** The calendar listings a provider was asked for (tokens and directory reads left out). */
const listings = (requests: ProviderRequest[]) =>
  requests.filter((r) => /\/events$|\/calendarView\/delta$/.test(r.url.pathname));
/** An incremental listing names the kept cursor (Google `syncToken`, Graph `$deltatoken`); a full one its window. */
const isIncremental = (request: ProviderRequest) =>
  request.url.searchParams.has('syncToken') || request.url.searchParams.has('$deltatoken');
const listedUser = (request: ProviderRequest) =>
  decodeURIComponent(/\/(?:calendars|users)\/([^/]+)\//.exec(request.url.pathname)?.[1] ?? '');

/** Every entry of every user of a calendar. */
async function allEntries(h: CompanyCalendars, calendarId: string, users: string[]): Promise<CalendarEntry[]> {
  return (await Promise.all(users.map((user) => h.entries(calendarId, user)))).flat();
}

/** What must not double: schedules in force (each active entry's schedule still scheduled) and launcher executions. */
async function scheduled(h: CompanyCalendars, calendarId: string, users: string[]) {
  const active = (await allEntries(h, calendarId, users)).filter((entry) => entry.state === 'active');
  const statuses = await Promise.all(
    active.map(async (entry) => (await getSchedule(scheduleOf(entry), h.deps.schedules))?.status),
  );
  return {
    active: active.length,
    schedules: new Set(active.map(scheduleOf)).size,
    inForce: statuses.filter((status) => status === 'scheduled').length,
    executions: h.calendars.executions.started.size,
    stopped: h.calendars.executions.stopped.size,
  };
}

/**
 * Local mode's company sync over `h`, wired as local mode wires it: the template's user-sync queue
 * on the SQS emulator, consumed at its event source's batch size and concurrency; the push routes
 * on a local HTTP API. No timer run: only what the test does (runOnce, a push) brings a change in.
 */
async function localCompanySync(h: CompanyCalendars, requeueDelaySeconds?: number) {
  let handler: HttpRouteHandler | undefined;
  const api: LocalHttpApi = await startLocalHttpApi({
    webhooks: async () => ({ statusCode: 404 }),
    calendarPush: () => handler,
  });
  const local = startLocalCompanySync({
    calendars: h.calendars.deps,
    publicBaseUrl: api.baseUrl,
    endpoints: h.tenant.endpoints,
    credentials: async (name) => h.tenant.secrets.get(name) ?? '',
    publisher: h.deps.publisher,
    print: () => {},
    everyMs: 3_600_000,
    // Receives long-poll: the client must allow an answer that slow.
    ...templateUserSyncConsumer(
      h.calendars.deployment,
      sqsClient({ ...DEFAULT_CLIENT_TIMEOUTS, requestTimeoutMs: (LONG_POLL_SECONDS + 5) * 1000 }),
    ),
    ...(requeueDelaySeconds !== undefined && { requeueDelaySeconds }),
  });
  handler = local.pushHandler;
  return {
    local,
    async stop() {
      await local.stop();
      await api.stop();
    },
  };
}

const outcomeStates = (outcomes: UserSyncOutcome[]) => outcomes.map((o) => [o.user, o.outcome]);

describe.each(['google', 'microsoft'] as const)(
  'company calendars through the %s provider and its simulator',
  (name) => {
    const driver = (h: CompanyCalendars) => h[name];

    it('a listed user synced right after registration, before any scheduled run, is recorded and synced; a group member the run has not resolved is not', async () => {
      const h = await start();
      const d = driver(h);
      await h.register('acme', d.source(d.users));
      const first = await h.sync('acme', d.users[0]!);
      expect(first).toMatchObject({ outcome: 'synced', full: true });
      expect(await h.deps.company.getUser('acme', d.users[0]!)).toMatchObject({ state: 'connected', fromGroup: false });
      await h.register('eng', d.groupSource(d.users.slice(0, 2)));
      expect(await h.sync('eng', d.users[0]!)).toMatchObject({ outcome: 'skipped', reason: 'not-a-user' });
      expect(await h.deps.company.listUsers('eng')).toEqual([]);
    });

    it("push as local mode runs it: the run opens each user's channel, and a meeting moved at the provider is synced within 5 s, with no run or poll in between", async () => {
      const h = await start();
      const d = driver(h);
      await h.register('acme', d.source(d.users));
      const { local, stop } = await localCompanySync(h);
      try {
        await local.runOnce();
        await until(() => local.drained(), 30_000);
        const cy = d.users[2]!;
        const review = async () => {
          const entry = (await h.entries('acme', cy)).find((e) => e.title === 'Design review' && e.state === 'active');
          return entry === undefined ? undefined : getSchedule(scheduleOf(entry), h.deps.schedules);
        };
        const before = (await review())?.joinAt;
        expect(before).toBeDefined();
        const synced = local.stats.completed;
        const movedTo = new Date(START + 9 * DAY_MS).toISOString();
        const changed = performance.now();
        d.moveMeeting(cy, d.eventId(cy, 'Design review'), Date.parse(movedTo));
        // The schedule moves (to the new time as the sample plan's zone reads it: the point is that it moved).
        await until(async () => (await review())?.joinAt !== before, 5_000);
        measured.push = { ...measured.push, [name]: performance.now() - changed };
        // The push asked for Cy's sync: more syncs completed, and no run was started.
        await until(() => local.stats.completed > synced, 5_000);
        expect(local.stats.completed).toBeGreaterThan(5);
      } finally {
        await stop();
      }
    });

    it("a push arriving while that user's sync holds the lease is not lost: the consumer sends it back delayed, and a second sync after the first sees the moved meeting", async () => {
      const h = await start();
      const d = driver(h);
      await h.register('acme', d.source(d.users));
      // The production path with a 1 s delay on the queue instead of the deployed wait.
      const { local, stop } = await localCompanySync(h, 1);
      try {
        await local.runOnce();
        await until(() => local.drained(), 30_000);
        const cy = d.users[2]!;
        const review = async () => {
          const entry = (await h.entries('acme', cy)).find((e) => e.title === 'Design review' && e.state === 'active');
          return entry === undefined ? undefined : getSchedule(scheduleOf(entry), h.deps.schedules);
        };
        const before = (await review())?.joinAt;
        expect(before).toBeDefined();
        // Cy's next sync is held under its lease, after its listing, at its first launcher execution.
        const executions = h.calendars.executions;
        const start = executions.start.bind(executions);
        let held = false;
        let release = () => {};
        const released = new Promise<void>((resolve) => {
          release = resolve;
        });
        executions.start = async (executionName, input) => {
          if (!held) {
            held = true;
            await released;
          }
          return start(executionName, input);
        };
        d.addMeeting(cy, { title: 'Planning', startMs: START + 3 * DAY_MS });
        await until(() => held, 10_000);
        // The running sync listed before this change: only the push it sends can bring it in.
        const synced = local.stats.completed;
        d.moveMeeting(cy, d.eventId(cy, 'Design review'), START + 9 * DAY_MS);
        await until(() => local.stats.completed > synced, 10_000);
        release();
        // The first sync ends; the request sent back runs after it and moves the schedule.
        await until(async () => (await review())?.joinAt !== before, 15_000);
        await until(() => local.drained(), 15_000);
        expect(local.stats.failed).toBe(0);
        expect(named(h.metrics, METRICS.calendarUserSyncRequeued).length).toBeGreaterThan(0);
      } finally {
        await stop();
      }
    });

    it('a user sync still queued when its calendar is being deleted schedules nothing behind the deletion, and the run skips the calendar', async () => {
      const h = await start();
      const d = driver(h);
      await h.register('acme', d.source(d.users));
      const source = await h.deps.store.getSource('acme');
      if (source === undefined || !isCompanySource(source)) throw new Error('no source');
      // What DELETE /calendars/{id} writes first, before it cancels each user's schedules.
      await h.deps.store.putSource({ ...source, deleting: new Date(h.clock.now).toISOString() });
      expect(await h.sync('acme', d.users[0]!)).toMatchObject({ outcome: 'skipped', reason: 'no-calendar' });
      expect(await h.entries('acme', d.users[0]!)).toEqual([]);
      expect(await h.deps.company.listUsers('acme')).toEqual([]);
      expect((await h.run()).planned).toMatchObject({ sources: 0, enqueued: 0 });
    });

    it('first sync: every user listed in full, the sample meetings scheduled once, a decline and a meeting without a link skipped with their reasons', async () => {
      const h = await start();
      const d = driver(h);
      const { plan } = h.tenant;
      await h.register('acme', d.source(d.users));
      const began = performance.now();
      const { planned, outcomes } = await h.run();
      const tookMs = performance.now() - began;
      // The series' instances ahead: in Ada's, Bo's and Cy's calendars.
      const ahead = plan.instancesPerUser[0]! - 1;
      expect(ahead).toBeGreaterThanOrEqual(3);
      expect(planned).toMatchObject({ sources: 1, users: 5, enqueued: 5, added: 5, removed: 0, unresolved: [] });
      expect(outcomes.map((o) => syncCounts(o))).toEqual([
        // Ada: the series and the all-hands.
        { full: true, created: ahead + 1, moved: 0, cancelled: 0, unchanged: 0, skipped: 0 },
        // Bo: the same series and all-hands, covered by Ada's bots.
        { full: true, created: 0, moved: 0, cancelled: 0, unchanged: 0, skipped: ahead + 1 },
        // Cy: the same, and the design review Cy organizes.
        { full: true, created: 1, moved: 0, cancelled: 0, unchanged: 0, skipped: ahead + 1 },
        // Dee: the declined vendor pitch, and the all-hands.
        { full: true, created: 0, moved: 0, cancelled: 0, unchanged: 0, skipped: 2 },
        // Eve: the coffee chat without a link, and the all-hands.
        { full: true, created: 0, moved: 0, cancelled: 0, unchanged: 0, skipped: 2 },
      ]);
      const reasons = outcomes.map((o) => (o.outcome === 'synced' ? o.result.skipped_reasons : {}));
      expect(reasons[3]).toEqual({ [`declined by ${d.users[3]}`]: 1, "covered by another calendar's bot": 1 });
      expect(reasons[4]).toEqual({
        'no Zoom, Google Meet or Teams link in the event': 1,
        "covered by another calendar's bot": 1,
      });
      expect(await scheduled(h, 'acme', d.users)).toEqual({
        active: ahead + 2,
        schedules: ahead + 2,
        inForce: ahead + 2,
        executions: ahead + 2,
        stopped: 0,
      });
      // One full listing per user, no cursor given.
      const listed = listings(h.requests);
      expect(listed.map(listedUser)).toEqual(d.users);
      expect(listed.filter(isIncremental)).toEqual([]);
      for (const [i, user] of d.users.entries())
        expect(await h.deps.company.getUser('acme', user)).toMatchObject({
          state: 'connected',
          eventsSeen: plan.instancesPerUser[i],
        });
      expect(named(h.metrics, METRICS.calendarUserSynced)).toEqual(
        d.users.map(() => ({ name: 'CalendarUserSynced', dimensions: { provider: name } })),
      );
      measured.full[name] = tookMs;
    });

    it('incremental sync after a move, a cancel and a new meeting: exact counts, each user listed from the kept cursor', async () => {
      const h = await start();
      const d = driver(h);
      const [, , cy, , eve] = d.users as [string, string, string, string, string];
      const oneOnOne = d.addMeeting(eve, { title: 'Eve 1:1', startMs: START + 3 * DAY_MS });
      const demo = d.addMeeting(eve, { title: 'Eve demo', startMs: START + 4 * DAY_MS });
      await h.register('acme', d.source(d.users));
      const first = await h.run();
      expect(syncCounts(first.outcomes[4])).toMatchObject({ full: true, created: 2 });
      const before = await scheduled(h, 'acme', d.users);
      const cursors = await Promise.all(
        d.users.map(async (user) => (await h.deps.company.getKept(userScopeId('acme', user)))?.cursor),
      );

      h.advance(HOUR_MS);
      d.moveMeeting(eve, oneOnOne, START + 3 * DAY_MS + 2 * HOUR_MS);
      d.cancelMeeting(eve, demo);
      d.addMeeting(eve, { title: 'Eve retro', startMs: START + 5 * DAY_MS });
      d.moveMeeting(cy, d.eventId(cy, 'Design review'), START + 6 * DAY_MS);
      const mark = h.requests.length;
      const began = performance.now();
      const { outcomes } = await h.run();
      measured.incremental[name] = performance.now() - began;
      const ahead = h.tenant.plan.instancesPerUser[0]! - 1;
      expect(outcomes.map((o) => syncCounts(o))).toEqual([
        { full: false, created: 0, moved: 0, cancelled: 0, unchanged: ahead + 1, skipped: 0 },
        { full: false, created: 0, moved: 0, cancelled: 0, unchanged: 0, skipped: ahead + 1 },
        { full: false, created: 0, moved: 1, cancelled: 0, unchanged: 0, skipped: ahead + 1 },
        { full: false, created: 0, moved: 0, cancelled: 0, unchanged: 0, skipped: 2 },
        { full: false, created: 1, moved: 1, cancelled: 1, unchanged: 0, skipped: 2 },
      ]);
      expect(totalCounts(outcomes)).toEqual({
        created: 1,
        moved: 2,
        cancelled: 1,
        unchanged: ahead + 1,
        skipped: 2 * ahead + 6,
      });
      // Incremental: one listing per user, each naming that user's kept cursor, none naming a window.
      const listed = listings(h.requests.slice(mark));
      expect(listed.map(listedUser)).toEqual(d.users);
      for (const [i, request] of listed.entries()) {
        expect(isIncremental(request)).toBe(true);
        expect(request.url.searchParams.has('timeMin') || request.url.searchParams.has('startDateTime')).toBe(false);
        const cursor = cursors[i]!;
        if (name === 'google') expect(request.url.searchParams.get('syncToken')).toBe(cursor);
        else expect(request.url.href).toBe(cursor);
      }
      // The moves moved the schedules, the cancel cancelled one, the new meeting has one.
      const eves = await h.entries('acme', eve);
      const byTitle = async (title: string) => {
        const entry = eves.find((e) => e.title === title && e.state === 'active');
        return entry === undefined ? undefined : getSchedule(scheduleOf(entry), h.deps.schedules);
      };
      expect(await byTitle('Eve 1:1')).toMatchObject({
        joinAt: new Date(START + 3 * DAY_MS + 2 * HOUR_MS).toISOString(),
        status: 'scheduled',
      });
      expect(await byTitle('Eve demo')).toBeUndefined();
      expect(await byTitle('Eve retro')).toMatchObject({ joinAt: new Date(START + 5 * DAY_MS).toISOString() });
      const after = await scheduled(h, 'acme', d.users);
      expect(after).toEqual({
        active: before.active,
        schedules: before.schedules,
        inForce: before.inForce,
        // A new execution for the new meeting and for each move (a new version); the replaced ones and the cancelled one stopped.
        executions: before.executions + 3,
        stopped: before.stopped + 3,
      });
    });

    it('a void cursor is recovered by a full listing, and nothing doubles', async () => {
      const h = await start();
      const d = driver(h);
      await h.register('acme', d.source(d.users));
      await h.run();
      const before = await scheduled(h, 'acme', d.users);
      const kept = await Promise.all(
        d.users.map(async (user) => (await h.deps.company.getKept(userScopeId('acme', user)))?.cursor),
      );
      for (const user of d.users) d.voidCursor(user);
      h.advance(HOUR_MS);
      const mark = h.requests.length;
      const { outcomes } = await h.run();
      const ahead = h.tenant.plan.instancesPerUser[0]! - 1;
      expect(outcomes.map((o) => syncCounts(o).full)).toEqual([true, true, true, true, true]);
      expect(totalCounts(outcomes)).toEqual({
        created: 0,
        moved: 0,
        cancelled: 0,
        unchanged: ahead + 2,
        skipped: 2 * ahead + 6,
      });
      expect(await scheduled(h, 'acme', d.users)).toEqual(before);
      // Each user: the void cursor refused, then a full listing; a new cursor kept.
      const listed = listings(h.requests.slice(mark));
      expect(listed.map((r) => [listedUser(r), isIncremental(r)])).toEqual(
        d.users.flatMap((user) => [
          [user, true],
          [user, false],
        ]),
      );
      for (const [i, user] of d.users.entries()) {
        const cursor = (await h.deps.company.getKept(userScopeId('acme', user)))?.cursor;
        expect(cursor).toBeDefined();
        expect(cursor).not.toBe(kept[i]);
      }

      // A meeting cancelled while the cursor was void is absent from the full listing: what was kept is replaced, not kept on.
      const cy = d.users[2]!;
      d.cancelMeeting(cy, d.eventId(cy, 'Design review'));
      d.voidCursor(cy);
      h.advance(HOUR_MS);
      expect(syncCounts(await h.sync('acme', cy))).toEqual({
        full: true,
        created: 0,
        moved: 0,
        cancelled: 1,
        unchanged: 0,
        skipped: ahead + 1,
      });
      expect(await scheduled(h, 'acme', d.users)).toMatchObject({
        active: before.active - 1,
        inForce: before.inForce - 1,
        stopped: before.stopped + 1,
      });
    });

    it("a revoked grant disconnects the user, then the source, with the provider's reason, a metric and one valid domain event each, while the other provider's users sync on", async () => {
      const h = await start();
      const d = driver(h);
      const other = name === 'google' ? h.microsoft : h.google;
      await h.register('a-revoked', d.source(d.users));
      await h.register('b-other', other.source(other.users));
      await h.run();
      const [, bo] = d.users as [string, string];
      const events = (from: number) => h.published.slice(from);

      // One user outside the grant (Google: gone from the tenant; Microsoft: outside the access policy).
      d.excludeUser(bo);
      h.advance(HOUR_MS);
      const single = await h.run();
      expect(outcomeStates(single.outcomes)).toEqual([
        ...d.users.map((user) => [user, user === bo ? 'disconnected' : 'synced']),
        ...other.users.map((user) => [user, 'synced']),
      ]);
      const reason =
        name === 'google'
          ? /^Google will not delegate to bo@acme\.example: invalid_grant.*Invalid email or User ID/
          : /^the tenant's application access policy leaves out this mailbox: ErrorAccessDenied/;
      expect(single.outcomes[1]).toMatchObject({ outcome: 'disconnected', scope: 'user', newly_disconnected: 1 });
      expect(await h.deps.company.getUser('a-revoked', bo)).toMatchObject({
        state: 'disconnected',
        reason: expect.stringMatching(reason),
      });
      // The metric with the dimension its alarm watches, once.
      const disconnected = named(h.metrics, METRICS.calendarUserDisconnected);
      expect(disconnected).toEqual([{ name: 'CalendarUserDisconnected', dimensions: { provider: name } }]);
      expect(Object.keys(disconnected[0]?.dimensions ?? {})).toEqual([...METRICS.calendarUserDisconnected.dimensions]);
      expect(h.published.map((e) => e.detailType)).toEqual(['calendar.disconnected']);
      expect(h.published[0]?.detail).toMatchObject({
        calendar_id: 'a-revoked',
        user: bo,
        provider: name,
        scope: 'user',
        reason: expect.stringMatching(reason),
      });
      expect(entryProblems(toPutEventsEntry(h.published[0] as DomainEvent, 'bus'))).toEqual([]);

      // Found again at the next run: neither counted nor announced again.
      h.advance(HOUR_MS);
      await h.run();
      expect(named(h.metrics, METRICS.calendarUserDisconnected)).toHaveLength(1);
      expect(h.published).toHaveLength(1);

      // The admin grant revoked for everyone (Google: delegation; Microsoft: the app's secret rotated).
      d.revokeGrant();
      h.advance(HOUR_MS);
      const published = h.published.length;
      const whole = await h.run();
      expect(whole.outcomes[0]).toMatchObject({ outcome: 'disconnected', scope: 'source', newly_disconnected: 4 });
      expect(outcomeStates(whole.outcomes)).toEqual([
        ...d.users.map((user) => [user, 'disconnected']),
        ...other.users.map((user) => [user, 'synced']),
      ]);
      const sourceReason =
        name === 'google'
          ? /^Google refused the service account's grant: unauthorized_client/
          : /^Entra refused the app's token request: .*AADSTS7000215/;
      for (const user of d.users.filter((u) => u !== bo))
        expect(await h.deps.company.getUser('a-revoked', user)).toMatchObject({
          state: 'disconnected',
          reason: expect.stringMatching(sourceReason),
        });
      expect(named(h.metrics, METRICS.calendarUserDisconnected)).toHaveLength(5);
      const announced = events(published);
      expect(announced.map((e) => (e.detail as { user: string }).user).sort()).toEqual(
        d.users.filter((u) => u !== bo).sort(),
      );
      for (const event of announced) {
        expect(event.detail).toMatchObject({ provider: name, scope: 'source' });
        expect(entryProblems(toPutEventsEntry(event, 'bus'))).toEqual([]);
      }
      // The other source is untouched: connected, its schedules in force.
      for (const user of other.users)
        expect(await h.deps.company.getUser('b-other', user)).toMatchObject({ state: 'connected' });
      const others = await scheduled(h, 'b-other', other.users);
      expect(others.inForce).toBe(others.active);
    });

    it('one meeting in five calendars: one schedule, one launcher execution', async () => {
      const h = await start();
      const d = driver(h);
      await h.register('acme', d.source(d.users));
      await h.run();
      const allHands = (await allEntries(h, 'acme', d.users)).filter((e) => e.title === 'All hands');
      expect(allHands.map((e) => e.state).sort()).toEqual([
        'active',
        'duplicate',
        'duplicate',
        'duplicate',
        'duplicate',
      ]);
      const [active] = allHands.filter((e) => e.state === 'active');
      const launched = [...h.calendars.executions.started.values()].filter((input) =>
        JSON.stringify(input).includes(active === undefined ? '-' : scheduleOf(active)),
      );
      expect(launched).toHaveLength(1);
    });

    it('a weekly series across a DST change, with instances moved and cancelled before and after the first sync: schedules at the right UTC instants', async () => {
      const h = await start();
      const d = driver(h);
      const { plan } = h.tenant;
      const holders = d.users.slice(0, 3);
      await h.register('acme', d.source(d.users));
      await h.run();
      const windowEnd = () => h.clock.now + plan.lookaheadDays * DAY_MS;
      const seriesSchedules = async () => {
        const active = (await allEntries(h, 'acme', d.users)).filter((e) => e.title === SERIES && e.state === 'active');
        const joins = await Promise.all(
          active.map(async (e) => (await getSchedule(scheduleOf(e), h.deps.schedules))?.joinAt),
        );
        return joins.map((at) => Date.parse(String(at))).sort((a, b) => a - b);
      };
      const planned = plannedSeriesStarts(plan, h.clock.now, windowEnd());
      expect(await seriesSchedules()).toEqual(planned);
      // A 10:00 meeting on the zone's wall clock: its UTC hour differs on each side of the DST change.
      expect(planned[0]).toBeLessThan(plan.dstChangeMs);
      expect(planned.at(-1)).toBeGreaterThan(plan.dstChangeMs);
      expect(new Date(planned[0]!).getUTCHours()).not.toBe(new Date(planned.at(-1)!).getUTCHours());

      // After the first sync, the organizer cancels one more instance after the change and moves the next an hour later.
      const series = plan.meetings.find((m) => m.title === SERIES)!.weekly!;
      const cancelled = series.cancelled + 1;
      const moved = series.cancelled + 2;
      const series0 = plan.meetings.find((m) => m.title === SERIES)!.startLocal;
      const movedLocal = new Date(Date.parse(`${series0}Z`) + moved * 7 * DAY_MS + HOUR_MS).toISOString().slice(0, 19);
      d.cancelSeriesInstance(holders, SERIES, cancelled);
      d.moveSeriesInstance(holders, SERIES, moved, movedLocal, 30);
      h.advance(HOUR_MS);
      const { outcomes } = await h.run();
      expect(totalCounts(outcomes)).toMatchObject({ created: 0, moved: 1, cancelled: 1 });
      const changed = plannedSeriesStarts(plan, h.clock.now, windowEnd(), {
        cancelled: new Set([cancelled]),
        moved: new Map([[moved, movedLocal]]),
      });
      expect(changed).toHaveLength(planned.length - 1);
      expect(await seriesSchedules()).toEqual(changed);
    });

    it('throttled by the provider: the user backs off without a throw, the others sync, and the next sync after the wait succeeds', async () => {
      const h = await start();
      const d = driver(h);
      const eve = d.users[4]!;
      await h.register('acme', d.source(d.users));
      await h.run();
      h.advance(HOUR_MS);
      d.throttle(eve);
      const { outcomes } = await h.run();
      expect(outcomeStates(outcomes)).toEqual(d.users.map((user) => [user, user === eve ? 'throttled' : 'synced']));
      const throttled = outcomes[4];
      if (throttled?.outcome !== 'throttled') throw new Error('not throttled');
      const waitMs = Date.parse(throttled.backoff_until) - h.clock.now;
      // Google sends no Retry-After: the provider's first back-off (30 s); Graph's Retry-After: the window's rest (600 s).
      expect(waitMs).toBe(name === 'google' ? 30_000 : 600_000);
      expect(named(h.metrics, METRICS.calendarProviderThrottled)).toEqual([
        { name: 'CalendarProviderThrottled', dimensions: { provider: name } },
      ]);
      expect(await h.deps.company.getUser('acme', eve)).toMatchObject({
        state: 'connected',
        backoffUntil: throttled.backoff_until,
        throttledRuns: 1,
      });
      // Backing off: not queued by the run, nothing asked of the provider.
      h.advance(waitMs / 2);
      const mark = h.requests.length;
      const waiting = await h.run();
      expect(waiting.planned).toMatchObject({ backing_off: 1, enqueued: 4 });
      expect(listings(h.requests.slice(mark)).map(listedUser)).not.toContain(eve);
      expect(await h.sync('acme', eve)).toMatchObject({ outcome: 'skipped', reason: 'backing-off' });
      // After the wait: synced, incrementally, the back-off cleared.
      h.advance(waitMs / 2 + 1_000);
      expect(syncCounts(await h.sync('acme', eve))).toMatchObject({ full: false, created: 0, cancelled: 0 });
      const after = await h.deps.company.getUser('acme', eve);
      expect(after?.backoffUntil).toBeUndefined();
      expect(after?.throttledRuns).toBeUndefined();
    });

    it("a group source: the group's members resolved at each run, a member removed from the group has their future schedules cancelled", async () => {
      const h = await start();
      const d = driver(h);
      const [ada, bo, cy] = d.users as [string, string, string];
      await h.register('eng', d.groupSource([ada, bo, cy]));
      const first = await h.run();
      expect(first.planned).toMatchObject({ sources: 1, users: 3, added: 3, removed: 0, unresolved: [] });
      const members = first.outcomes.map((o) => o.user);
      expect(members.map((m) => m.toLowerCase()).sort()).toEqual([ada, bo, cy].sort());
      expect(first.outcomes.map((o) => o.outcome)).toEqual(['synced', 'synced', 'synced']);
      const cyMember = members.find((m) => m.toLowerCase() === cy)!;
      const review = (await h.entries('eng', cyMember)).find((e) => e.title === 'Design review');
      expect(review?.state).toBe('active');
      expect(await getSchedule(review === undefined ? '-' : scheduleOf(review), h.deps.schedules)).toMatchObject({
        status: 'scheduled',
      });

      d.setGroupMembers([ada, bo]);
      h.advance(HOUR_MS);
      const second = await h.run();
      expect(second.planned).toMatchObject({ users: 2, added: 0, removed: 1, failed: [] });
      expect(second.outcomes.map((o) => o.user.toLowerCase())).toEqual([ada, bo]);
      expect(await getSchedule(review === undefined ? '-' : scheduleOf(review), h.deps.schedules)).toMatchObject({
        status: 'cancelled',
      });
      expect(await h.deps.company.getUser('eng', cyMember)).toBeUndefined();
      expect(await h.entries('eng', cyMember)).toEqual([]);
    });
  },
);

describe("both providers through local mode's user-sync queue", () => {
  it('ten users synced four at a time: the same meetings scheduled once each, nothing failed, then an incremental run', async () => {
    const h = await start();
    await h.register('g', h.google.source(h.google.users));
    await h.register('m', h.microsoft.source(h.microsoft.users));
    const ahead = h.tenant.plan.instancesPerUser[0]! - 1;
    let began = performance.now();
    const first = await h.runQueued(4);
    measured.queuedFull = performance.now() - began;
    expect(first.failures).toEqual([]);
    expect(first.planned).toMatchObject({ sources: 2, users: 10, enqueued: 10 });
    expect(first.outcomes.map((o) => syncCounts(o).full)).toEqual(Array(10).fill(true));
    // Each tenant: the series, its all-hands and the design review, once, whichever user's sync came first.
    expect(totalCounts(first.outcomes)).toEqual({
      created: 2 * (ahead + 2),
      moved: 0,
      cancelled: 0,
      unchanged: 0,
      skipped: 2 * (2 * ahead + 6),
    });
    const g = await scheduled(h, 'g', h.google.users);
    const m = await scheduled(h, 'm', h.microsoft.users);
    expect([g.active, m.active, h.calendars.executions.started.size]).toEqual([ahead + 2, ahead + 2, 2 * (ahead + 2)]);
    for (const [calendarId, users] of [
      ['g', h.google.users],
      ['m', h.microsoft.users],
    ] as const)
      expect(
        (await allEntries(h, calendarId, users))
          .filter((e) => e.title === 'All hands')
          .map((e) => e.state)
          .sort(),
      ).toEqual(['active', 'duplicate', 'duplicate', 'duplicate', 'duplicate']);

    h.advance(HOUR_MS);
    began = performance.now();
    const again = await h.runQueued(4);
    measured.queuedIncremental = performance.now() - began;
    expect(again.failures).toEqual([]);
    expect(again.outcomes.map((o) => syncCounts(o).full)).toEqual(Array(10).fill(false));
    expect(totalCounts(again.outcomes)).toMatchObject({
      created: 0,
      moved: 0,
      cancelled: 0,
      unchanged: 2 * (ahead + 2),
    });
  });
});

describe('Microsoft: the admin consent to Calendars.Read removed', () => {
  it("disconnects every user of the source with Graph's refusal, one event each, once", async () => {
    const h = await start();
    const d = h.microsoft;
    await h.register('acme', d.source(d.users));
    await h.run();
    h.tenant.microsoft.simulator.revokePermission(
      h.tenant.microsoft.tenantId,
      h.tenant.microsoft.clientId,
      'Calendars.Read',
    );
    h.advance(HOUR_MS);
    const { outcomes } = await h.run();
    expect(outcomes[0]).toMatchObject({ outcome: 'disconnected', scope: 'source', newly_disconnected: 5 });
    expect(outcomes.map((o) => o.outcome)).toEqual(d.users.map(() => 'disconnected'));
    for (const user of d.users)
      expect(await h.deps.company.getUser('acme', user)).toMatchObject({
        state: 'disconnected',
        reason: expect.stringMatching(
          /^Graph refused to read calendars \(the app needs Calendars\.Read\): ErrorAccessDenied/,
        ),
      });
    expect(named(h.metrics, METRICS.calendarUserDisconnected)).toHaveLength(5);
    expect(h.published.map((e) => (e.detail as { user: string }).user).sort()).toEqual([...d.users].sort());
    // Schedules stay: a refused grant says nothing about the meetings.
    const kept = await scheduled(h, 'acme', d.users);
    expect(kept.inForce).toBe(kept.active);
  });
});

describe('one meeting across both providers', () => {
  it('the same meeting link at the same time in a Google and a Microsoft calendar: one schedule, one launcher execution', async () => {
    const h = await start();
    const zoom = 'https://acme.zoom.us/j/81234567890';
    const at = START + 2 * DAY_MS + 5 * HOUR_MS;
    h.google.addMeeting(h.google.users[4]!, { title: 'Partner sync', startMs: at, link: zoom });
    h.microsoft.addMeeting(h.microsoft.users[4]!, { title: 'Partner sync', startMs: at, link: zoom });
    await h.register('g', h.google.source([h.google.users[4]!]));
    await h.register('m', h.microsoft.source([h.microsoft.users[4]!]));
    const before = h.calendars.executions.started.size;
    const { outcomes } = await h.run();
    // Each Eve: her tenant's all-hands (no one else of the tenant is synced) and the partner sync; the coffee chat has no link.
    expect(outcomes.map((o) => syncCounts(o).created)).toEqual([2, 1]);
    expect(outcomes[1]?.outcome === 'synced' && outcomes[1].result.skipped_reasons).toEqual({
      "covered by another calendar's bot": 1,
      'no Zoom, Google Meet or Teams link in the event': 1,
    });
    const partner = [
      ...(await h.entries('g', h.google.users[4]!)),
      ...(await h.entries('m', h.microsoft.users[4]!)),
    ].filter((e) => e.title === 'Partner sync');
    expect(partner.map((e) => e.state).sort()).toEqual(['active', 'duplicate']);
    // The all-hands of each tenant has its own link; the partner sync is the one shared meeting.
    expect(h.calendars.executions.started.size - before).toBe(2 + 1);
  });
});
