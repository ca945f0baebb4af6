/**
 * Calendar syncs where a schedule is in a state the feed did not make: a meeting
 * erased after its bot launched, the service failing, an event deleted and
 * re-created under a new UID. One occurrence's trouble stays its own, and a
 * meeting keeps exactly one bot.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BOT_ERASED, getSchedule, launchInputOf } from '../../lambdas/core/schedule/schedules';
import { keys } from '../../lambdas/core/store/table-layout';
import { METRICS } from '../../lambdas/core/telemetry';
import { UpstreamClient } from '../../lambdas/core/upstream/client';
import { SimulatedServiceApi } from '../../local/simulator/api-server';
import { type CalendarHarness, calendarHarness, type FeedServer, startFeedServer } from '../fixtures/calendar-harness';
import { launched } from '../fixtures/launched-bots';
import { type LocalPipeline, recordingTelemetry, startLocalPipeline } from '../fixtures/local-pipeline';

const NOW = Date.parse('2027-03-01T08:00:00Z');
const now = () => NOW;
const HOUR = 3_600_000;
const OWNER = 'ada@acme.example';
const rules = { join: 'owner', owner_emails: [OWNER] };

let pipeline: LocalPipeline;
let feeds: FeedServer;
const service = new SimulatedServiceApi();

beforeAll(async () => {
  pipeline = await startLocalPipeline();
  feeds = await startFeedServer();
  await service.start();
  service.apiKeys.set('k', 'all');
});
afterAll(async () => {
  await service.stop();
  await feeds?.stop();
  await pipeline?.stop();
});

interface FeedEvent {
  uid: string;
  start: string;
  title: string;
  link: string;
  weekly?: number;
}

const icsTime = (iso: string) => iso.replace(/[-:]/g, '').replace('.000', '');

function feed(events: FeedEvent[]): string {
  const lines = ['BEGIN:VCALENDAR', 'VERSION:2.0'];
  for (const event of events)
    lines.push(
      'BEGIN:VEVENT',
      `UID:${event.uid}`,
      `DTSTART:${icsTime(event.start)}`,
      'DURATION:PT30M',
      ...(event.weekly === undefined ? [] : [`RRULE:FREQ=WEEKLY;COUNT=${event.weekly}`]),
      `SUMMARY:${event.title}`,
      `ORGANIZER:mailto:${OWNER}`,
      `X-GOOGLE-CONFERENCE:${event.link}`,
      'END:VEVENT',
    );
  lines.push('END:VCALENDAR', '');
  return lines.join('\r\n');
}

const meet = (i: number) => `https://meet.google.com/abc-${String(1000 + i).slice(1)}x-xyz`;
const at = (hours: number) => new Date(NOW + hours * HOUR).toISOString();

interface Listed {
  id: string;
  join_at: string;
  meeting_url: string;
  status: string;
  title: string;
}

const listed = async (calendars: CalendarHarness, id: string) =>
  (await calendars.call('GET', `/schedules?calendar_id=${id}`)).body.schedules as Listed[];

/** A calendar over `events`, synced once; the harness answers the service's calls with the simulator. */
async function syncedCalendar(id: string, events: FeedEvent[]) {
  const calendars = await calendarHarness(now);
  calendars.deps.schedules.upstream = new UpstreamClient({
    baseUrl: service.baseUrl,
    apiKey: async () => 'k',
    sleep: async () => undefined,
  });
  const path = `/${id}.ics`;
  feeds.set(path, feed(events));
  await calendars.call('PUT', `/calendars/${id}`, { ics_url: feeds.url(path), rules, lookahead_days: 30 });
  const first = await calendars.call('POST', `/calendars/${id}/sync`);
  expect(first.body).toMatchObject({ failed: [] });
  return { calendars, first, path };
}

/** Launches the bot of the listed schedule titled `title` at the simulated service, as the launcher would. */
async function launchListed(calendars: CalendarHarness, calendarId: string, title: string) {
  const row = (await listed(calendars, calendarId)).find((s) => s.title === title);
  const schedule = await getSchedule(String(row?.id), calendars.deps.schedules);
  if (schedule === undefined) throw new Error(`no schedule titled ${title}`);
  const bot = await launched(service, calendars.deps.schedules.table, launchInputOf(schedule), NOW);
  return { scheduleId: schedule.scheduleId, bot };
}

describe('one occurrence in trouble', () => {
  it('an erased meeting moved and another cancelled fail on their own; a new meeting still gets its bot', async () => {
    const events = [
      { uid: 'erased-moved@acme', start: at(3), title: 'Erased, then moved', link: meet(1) },
      { uid: 'erased-cancelled@acme', start: at(4), title: 'Erased, then cancelled', link: meet(2) },
      { uid: 'kept@acme', start: at(30), title: 'Kept', link: meet(3) },
    ];
    const { calendars, path } = await syncedCalendar('erased', events);
    const moved = await launchListed(calendars, 'erased', 'Erased, then moved');
    const cancelled = await launchListed(calendars, 'erased', 'Erased, then cancelled');
    // What erasing a meeting leaves of its schedule: launched, without the bot's id (erase/sweep.ts).
    for (const { scheduleId } of [moved, cancelled])
      await calendars.deps.schedules.table.db.send(
        new UpdateCommand({
          TableName: calendars.tableName,
          Key: keys.schedule(scheduleId),
          UpdateExpression: 'REMOVE botId',
        }),
      );

    feeds.set(
      path,
      feed([
        { ...events[0], start: at(5) } as FeedEvent,
        events[2] as FeedEvent,
        { uid: 'new@acme', start: at(48), title: 'New', link: meet(4) },
      ]),
    );
    const sync = await calendars.call('POST', '/calendars/erased/sync');
    expect(sync.status).toBe(200);
    expect(sync.body).toMatchObject({ created: 1, unchanged: 1, moved: 0, cancelled: 0 });
    expect(sync.body.failed).toEqual(
      [moved, cancelled].map(({ scheduleId }) =>
        expect.objectContaining({ schedule_id: scheduleId, reason: expect.stringContaining(BOT_ERASED) }),
      ),
    );
    const schedules = await listed(calendars, 'erased');
    expect(schedules.find((s) => s.title === 'New')).toMatchObject({ status: 'scheduled', join_at: at(48) });
    // Neither erased schedule was changed: the bots they launched are the service's to remove.
    expect(await getSchedule(moved.scheduleId, calendars.deps.schedules)).toMatchObject({
      status: 'launched',
      joinAt: at(3),
    });
    expect(service.bots.get(moved.bot.id)?.state).toBe('scheduled');
    expect(service.bots.get(cancelled.bot.id)?.state).toBe('scheduled');
  });

  it('the service failing on one launched bot fails that occurrence only', async () => {
    const events = [
      { uid: 'launched@acme', start: at(3), title: 'Launched', link: meet(5) },
      { uid: 'other@acme', start: at(26), title: 'Other', link: meet(6) },
    ];
    const { calendars, path } = await syncedCalendar('down', events);
    const { scheduleId, bot } = await launchListed(calendars, 'down', 'Launched');
    feeds.set(
      path,
      feed([
        { ...events[0], start: at(4) } as FeedEvent,
        { ...events[1], start: at(27) } as FeedEvent,
        { uid: 'new@acme', start: at(50), title: 'New', link: meet(7) },
      ]),
    );
    // Every attempt of the client at the bot answers 503.
    service.faults.push({ method: 'GET', path: new RegExp(`/bots/${bot.id}$`), times: 10, status: 503 });
    const { telemetry, metrics } = recordingTelemetry();
    calendars.deps.telemetry = telemetry;
    const sync = await calendars.call('POST', '/calendars/down/sync');
    service.faults.length = 0;
    expect(sync.status).toBe(200);
    expect(sync.body).toMatchObject({ created: 1, moved: 1, cancelled: 0 });
    expect(sync.body.failed).toEqual([
      expect.objectContaining({ schedule_id: scheduleId, reason: expect.stringContaining('503') }),
    ]);
    expect(metrics.filter((m) => m.name === METRICS.calendarOccurrenceFailed.name)).toHaveLength(1);
    // The next sync, with the service back, moves it.
    const again = await calendars.call('POST', '/calendars/down/sync');
    expect(again.body).toMatchObject({ moved: 1, failed: [] });
    expect(Date.parse(String(service.bots.get(bot.id)?.join_at))).toBe(Date.parse(at(4)));
  });
});

describe('an event deleted and re-created under a new UID', () => {
  const week: FeedEvent[] = [
    ...Array.from({ length: 8 }, (_, i) => ({
      uid: `one-off-${i}@acme`,
      start: at(2 + i * 20),
      title: `Meeting ${i}`,
      link: meet(10 + i),
    })),
    { uid: 'standup@acme', start: at(25), title: 'Standup', link: meet(30), weekly: 4 },
  ];
  const reissued = (events: FeedEvent[]) => events.map((e) => ({ ...e, uid: `re-${e.uid}` }));

  it('keeps every meeting of a calendar its one bot, in one sync', async () => {
    const { calendars, path, first } = await syncedCalendar('reissued', week);
    expect(first.body).toMatchObject({ created: 12 });
    const before = await listed(calendars, 'reissued');
    const oldEntries = await calendars.deps.store.listEntries('reissued');

    feeds.set(path, feed(reissued(week)));
    const sync = await calendars.call('POST', '/calendars/reissued/sync');
    expect(sync.body).toMatchObject({ created: 0, moved: 0, cancelled: 0, skipped: 0, unchanged: 12, failed: [] });
    // A sync cut short between writing an adopter's entry and deleting the old one leaves both: the old one
    // goes at the next sync without cancelling the schedule they share.
    await calendars.deps.store.putEntry('reissued', oldEntries[0] as (typeof oldEntries)[number]);
    const afterCrash = await calendars.call('POST', '/calendars/reissued/sync');
    expect(afterCrash.body).toMatchObject({ created: 0, cancelled: 0, unchanged: 12, failed: [] });
    expect(await calendars.deps.store.listEntries('reissued')).toHaveLength(12);
    const after = await listed(calendars, 'reissued');
    // The same schedules, still scheduled, one per meeting; nothing stopped or started again.
    expect(after.map((s) => [s.id, s.status, s.meeting_url, s.join_at])).toEqual(
      before.map((s) => [s.id, 'scheduled', s.meeting_url, s.join_at]),
    );
    expect(calendars.executions.stopped.size).toBe(0);
    expect(calendars.executions.started.size).toBe(12);

    // Each meeting now follows the new event: a move, a cancellation, and a re-sync that changes nothing.
    const [moving, cancelling, ...rest] = reissued(week) as [FeedEvent, FeedEvent, ...FeedEvent[]];
    feeds.set(path, feed([{ ...moving, start: at(3) }, ...rest]));
    const changed = await calendars.call('POST', '/calendars/reissued/sync');
    expect(changed.body).toMatchObject({ created: 0, moved: 1, cancelled: 1, unchanged: 10, failed: [] });
    expect(await getSchedule(String(before[0]?.id), calendars.deps.schedules)).toMatchObject({ joinAt: at(3) });
    expect(await getSchedule(String(before[1]?.id), calendars.deps.schedules)).toMatchObject({
      status: 'cancelled',
    });
    expect(cancelling.uid).toBe('re-one-off-1@acme');
    const quiet = await calendars.call('POST', '/calendars/reissued/sync');
    expect(quiet.body).toMatchObject({ created: 0, moved: 0, cancelled: 0, unchanged: 11 });
  });

  it('keeps a launched bot rather than deleting it and launching another', async () => {
    const { calendars, path } = await syncedCalendar('reissued-launched', week);
    const { scheduleId, bot } = await launchListed(calendars, 'reissued-launched', 'Meeting 0');
    const botsBefore = service.bots.size;

    feeds.set(path, feed(reissued(week)));
    const sync = await calendars.call('POST', '/calendars/reissued-launched/sync');
    expect(sync.body).toMatchObject({ created: 0, cancelled: 0, unchanged: 12, failed: [] });
    expect(await getSchedule(scheduleId, calendars.deps.schedules)).toMatchObject({
      status: 'launched',
      botId: bot.id,
    });
    expect(service.bots.get(bot.id)?.state).toBe('scheduled');
    expect(service.bots.size).toBe(botsBefore);
    expect((await listed(calendars, 'reissued-launched')).filter((s) => s.title === 'Meeting 0')).toEqual([
      expect.objectContaining({ id: scheduleId, status: 'launched' }),
    ]);
  });
});
