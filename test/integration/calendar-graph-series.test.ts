/**
 * Recurring Teams meetings of a Microsoft 365 calendar, end to end: the real
 * Microsoft provider against the Graph simulator, which (as Graph does) lists a
 * series' plain occurrences as stubs without subject or link, each exception in
 * full, and the series master in full only when its first occurrence lies in the
 * window. The company calendar harness (fixtures/company-calendars.ts) syncs one
 * sample user; each test adds its own series to that user's mailbox and reads the
 * schedules the sync made for it.
 */
import { brotliCompressSync } from 'node:zlib';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { scheduleOf } from '../../lambdas/core/calendar/calendar-store';
import { userScopeId } from '../../lambdas/core/calendar/company/user-scope';
import { getSchedule } from '../../lambdas/core/schedule/schedules';
import { keys } from '../../lambdas/core/store/table-layout';
import type { EventFields } from '../../local/simulator/microsoft-graph/calendar-store';
import {
  type CompanyCalendars,
  DAY_MS,
  HOUR_MS,
  startCompanyCalendars,
  syncCounts,
} from '../fixtures/company-calendars';
import { type LocalPipeline, startLocalPipeline } from '../fixtures/local-pipeline';

const START = Date.parse('2026-11-24T21:40:00Z');
const TITLE = 'Platform standup';
const JOIN = 'https://teams.microsoft.com/meet/271828182845904?p=platformstandup';
const NEW_JOIN = 'https://teams.microsoft.com/meet/314159265358979?p=platformsync';

let pipeline: LocalPipeline;
beforeAll(async () => {
  pipeline = await startLocalPipeline();
});
afterAll(async () => {
  await pipeline?.stop();
});

let running: CompanyCalendars | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await running?.stop();
  running = undefined;
});

const wall = (ms: number) => new Date(ms).toISOString().slice(0, 19);
/** 10:00 UTC, `days` after the start day. */
const tenOClock = (days: number) => Date.parse(`${wall(START + days * DAY_MS).slice(0, 10)}T10:00:00Z`);
const week = (first: number, count: number) => Array.from({ length: count }, (_, i) => first + i * 7 * DAY_MS);

/** The harness with the first sample user registered alone, and what a test does to that user's mailbox. */
async function start() {
  const h = await startCompanyCalendars(START);
  running = h;
  const user = h.microsoft.users[0]!;
  const userId = h.tenant.microsoft.userIds[0]!;
  const sim = h.tenant.microsoft.simulator;
  await h.register('acme', h.microsoft.source([user]));
  const series = (firstStart: number, count: number, fields: Partial<EventFields> = {}) =>
    sim.addWeeklySeries(
      userId,
      {
        subject: TITLE,
        start: wall(firstStart),
        end: wall(firstStart + 30 * 60_000),
        timeZone: 'UTC',
        organizer: { address: user, name: 'Organizer' },
        attendees: [],
        joinUrl: JOIN,
        ...fields,
      },
      count,
    );
  /** The active schedules made for the series' occurrences: title, link and start, soonest first. */
  const bots = async (title = TITLE) => {
    const active = (await h.entries('acme', user)).filter((e) => e.title.startsWith(title) && e.state === 'active');
    const schedules = await Promise.all(active.map((e) => getSchedule(scheduleOf(e), h.deps.schedules)));
    return active
      .map((entry, i) => ({
        title: entry.title,
        link: schedules[i]?.meetingUrl,
        start: Date.parse(entry.slot.start),
        status: schedules[i]?.status,
      }))
      .sort((a, b) => a.start - b.start);
  };
  /** GETs of one event (the series masters) the provider sent since the test began. */
  const masterGets = () => h.requests.filter((r) => /\/users\/[^/]+\/events\/[^/]+$/.test(r.url.pathname));
  const sync = async () => {
    const outcome = await h.sync('acme', user);
    return { outcome, counts: syncCounts(outcome) };
  };
  return { h, user, userId, sim, series, bots, masterGets, sync };
}

const scheduledAt = (starts: number[], title = TITLE, link = JOIN) =>
  starts.map((start) => ({ title, link, start, status: 'scheduled' }));

describe('a weekly Teams series in a Microsoft 365 calendar', () => {
  it("every plain occurrence gets a bot with the master's title and Teams link; the master itself gets none", async () => {
    const t = await start();
    const starts = week(tenOClock(1), 4);
    t.series(starts[0]!, 4);
    const { counts } = await t.sync();
    expect(counts).toMatchObject({ full: true, created: expect.any(Number) });
    expect(await t.bots()).toEqual(scheduledAt(starts));
    // The master was listed in the round (its first occurrence is in the window): nothing fetched.
    expect(t.masterGets()).toEqual([]);
  });

  it('an exception keeps its own data: moved an hour and retitled, its bot moves with it; the other occurrences stay', async () => {
    const t = await start();
    const starts = week(tenOClock(1), 4);
    const master = t.series(starts[0]!, 4);
    await t.sync();
    const slot = wall(starts[1]!).slice(0, 10);
    t.sim.changeOccurrence(t.userId, master.id, slot, {
      start: wall(starts[1]! + HOUR_MS),
      end: wall(starts[1]! + HOUR_MS + 30 * 60_000),
      subject: `${TITLE} (moved)`,
    });
    t.h.advance(HOUR_MS);
    const { counts } = await t.sync();
    expect(counts).toMatchObject({ full: false, created: 0, moved: 1, cancelled: 0 });
    expect(await t.bots()).toEqual([
      ...scheduledAt([starts[0]!]),
      ...scheduledAt([starts[1]! + HOUR_MS], `${TITLE} (moved)`),
      ...scheduledAt(starts.slice(2)),
    ]);
  });

  it('a cancelled occurrence gets no bot, and one cancelled after it was scheduled loses its bot', async () => {
    const t = await start();
    const starts = week(tenOClock(1), 4);
    const master = t.series(starts[0]!, 4);
    t.sim.cancelOccurrence(t.userId, master.id, wall(starts[1]!).slice(0, 10));
    await t.sync();
    expect(await t.bots()).toEqual(scheduledAt([starts[0]!, starts[2]!, starts[3]!]));
    t.sim.cancelOccurrence(t.userId, master.id, wall(starts[2]!).slice(0, 10));
    t.h.advance(HOUR_MS);
    const { counts } = await t.sync();
    expect(counts).toMatchObject({ full: false, created: 0, cancelled: 1 });
    expect(await t.bots()).toEqual(scheduledAt([starts[0]!, starts[3]!]));
  });

  it('a master changed after its occurrences were listed (new title and Teams link), listed alone in a later round: every occurrence follows, an exception keeps its own', async () => {
    const t = await start();
    const starts = week(tenOClock(1), 4);
    const master = t.series(starts[0]!, 4);
    t.sim.changeOccurrence(t.userId, master.id, wall(starts[3]!).slice(0, 10), { subject: 'Platform retro' });
    await t.sync();
    t.sim.store.update(t.userId, master.id, (event) => {
      event.subject = 'Platform sync';
      event.joinUrl = NEW_JOIN;
    });
    t.h.advance(HOUR_MS);
    const { counts } = await t.sync();
    expect(counts).toMatchObject({ full: false, created: 0 });
    // The round held the master alone: no occurrence was listed, none fetched.
    expect(t.masterGets()).toEqual([]);
    expect(await t.bots('Platform')).toEqual([
      ...scheduledAt(starts.slice(0, 3), 'Platform sync', NEW_JOIN),
      // The exception, not listed again, keeps what it was listed with.
      ...scheduledAt([starts[3]!], 'Platform retro', JOIN),
    ]);
  });

  it('a master not in the round (its series began before the window) is fetched by GET once per series per sync', async () => {
    const t = await start();
    // Two series begun three weeks ago: their first occurrences, and so their masters, lie before the window.
    const first = week(tenOClock(-21), 6);
    const second = week(tenOClock(-20), 6);
    const one = t.series(first[0]!, 6);
    const two = t.series(second[0]!, 6, { subject: `${TITLE} B`, joinUrl: NEW_JOIN });
    await t.sync();
    const ahead = (starts: number[]) => starts.filter((start) => start > START);
    expect(await t.bots()).toEqual(
      [...scheduledAt(ahead(first)), ...scheduledAt(ahead(second), `${TITLE} B`, NEW_JOIN)].sort(
        (a, b) => a.start - b.start,
      ),
    );
    expect(
      t
        .masterGets()
        .map((r) => decodeURIComponent(r.url.pathname.split('/').at(-1)!))
        .sort(),
    ).toEqual([one.id, two.id].sort());
    // A sync with nothing changed fetches no master.
    t.h.advance(HOUR_MS);
    await t.sync();
    expect(t.masterGets()).toHaveLength(2);
  });

  it('a deleted series: its occurrences removed in the next round and their bots cancelled', async () => {
    const t = await start();
    const deleted = t.series(tenOClock(1), 3);
    await t.sync();
    expect(await t.bots()).toHaveLength(3);
    t.sim.cancelEvent(t.userId, deleted.id);
    t.h.advance(HOUR_MS);
    const { counts } = await t.sync();
    expect(counts).toMatchObject({ full: false, created: 0, cancelled: 3 });
    expect(await t.bots()).toEqual([]);
  });

  it('a master gone by the time it is fetched (404): its occurrences are skipped with a reason and lose their bots, no crash', async () => {
    const t = await start();
    const early = week(tenOClock(-14), 5);
    const vanishing = t.series(early[0]!, 5, { subject: 'Vanishing review', joinUrl: NEW_JOIN });
    await t.sync();
    const ahead = early.filter((start) => start > START).length;
    expect(await t.bots('Vanishing')).toHaveLength(ahead);

    // The next listing is full (Graph voided the delta state): the round lists the occurrences, not the master
    // (its first occurrence is before the window), and the series is deleted before its master is fetched.
    t.h.microsoft.voidCursor(t.user);
    const realFetch = globalThis.fetch;
    vi.spyOn(globalThis, 'fetch').mockImplementation((input, init) => {
      const url = String(input instanceof Request ? input.url : input);
      if (url.includes(`/events/${encodeURIComponent(vanishing.id)}`))
        t.sim.store.calendar(t.userId).events.delete(vanishing.id);
      return realFetch(input, init);
    });
    t.h.advance(HOUR_MS);
    const { outcome, counts } = await t.sync();
    expect(counts).toMatchObject({ full: true, created: 0, cancelled: ahead });
    expect(await t.bots('Vanishing')).toEqual([]);
    expect(outcome.outcome === 'synced' && outcome.result.problems).toEqual([
      expect.stringMatching(/instance\(s\) of 1 series Graph no longer holds \(the series master was deleted\)/),
    ]);
  });
  it('instances kept before occurrences were filled (no format named) are listed again in full once, nothing doubled', async () => {
    const t = await start();
    const starts = week(tenOClock(1), 4);
    t.series(starts[0]!, 4);
    await t.sync();
    // The kept item as the client before this one wrote it: the same shape, no format.
    const scopeId = userScopeId('acme', t.user);
    const { format: _format, ...old } = (await t.h.deps.company.getKept(scopeId))!;
    const { table } = t.h.deps.schedules;
    await table.db.send(
      new PutCommand({
        TableName: table.tableName,
        Item: { ...keys.calendarFeed(scopeId), items: brotliCompressSync(JSON.stringify(old)) },
      }),
    );
    expect((await t.h.deps.company.getKept(scopeId))?.cursor).toBeUndefined();
    t.h.advance(HOUR_MS);
    expect((await t.sync()).counts).toMatchObject({ full: true, created: 0, cancelled: 0 });
    expect(await t.bots()).toEqual(scheduledAt(starts));
    expect((await t.h.deps.company.getKept(scopeId))?.cursor).toEqual(expect.any(String));
  });
});
