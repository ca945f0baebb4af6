/**
 * Calendar feeds end to end through the real handler: Google- and Outlook-shaped
 * fixtures served from 127.0.0.1, synced into schedules on dynalite; a changed
 * feed moves and cancels exactly what changed; two invitees' calendars send one
 * bot; the feed address never leaves in the clear.
 */
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXPANSION_LIMITS } from '../../lambdas/core/calendar/calendar-limits';
import type { CalendarSource } from '../../lambdas/core/calendar/calendar-source';
import { syncCalendar } from '../../lambdas/core/calendar/sync-calendar';
import { getSchedule } from '../../lambdas/core/schedule/schedules';
import { documentClient } from '../../lambdas/shared/dynamo-client';
import {
  calendarHarness,
  type FeedServer,
  fixtureFeed,
  startFeedServer,
  testEvent,
  testFeed,
} from '../fixtures/calendar-harness';
import { type LocalPipeline, startLocalPipeline } from '../fixtures/local-pipeline';

const NOW = Date.parse('2027-03-01T00:00:00Z');
const now = () => NOW;
const SECRET_PATH = '/calendar/ical/ada%40acme.example/private-3f9a1c7e5b2d4a6f8e0c/basic.ics';

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

interface PreviewRow {
  uid: string;
  start: string;
  original_start: string;
  title: string;
  meeting_url: string | null;
  decision: 'join' | 'skip';
  reason: string;
  schedule_id: string | null;
}

const ada = { owner_emails: ['ada@acme.example'] };

describe('a calendar feed', () => {
  it('keeps the feed address sealed and masked', async () => {
    const calendars = await calendarHarness(now);
    feeds.set(SECRET_PATH, fixtureFeed('google'));
    const put = await calendars.call('PUT', '/calendars/ada', { ics_url: feeds.url(SECRET_PATH), rules: ada });
    expect(put.status).toBe(201);
    expect(put.body.ics_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/…$/);
    const got = await calendars.call('GET', '/calendars/ada');
    expect(JSON.stringify(got.body)).not.toContain('private-3f9a');
    const { Items } = await documentClient().send(new ScanCommand({ TableName: calendars.tableName }));
    expect(JSON.stringify(Items)).not.toContain('private-3f9a');
  });

  it('refuses plain http away from this machine and bad ids', async () => {
    const calendars = await calendarHarness(now);
    const http = await calendars.call('PUT', '/calendars/x', { ics_url: 'http://calendar.example/feed.ics' });
    expect(http.status).toBe(400);
    expect(
      (await calendars.call('PUT', '/calendars/a%20b', { ics_url: 'https://calendar.example/x.ics' })).status,
    ).toBe(400);
  });

  it('previews the Outlook fixture: Windows zones, DST, EXDATE, RDATE, a moved and a cancelled instance', async () => {
    const calendars = await calendarHarness(now);
    feeds.set('/outlook.ics', fixtureFeed('outlook'));
    await calendars.call('PUT', '/calendars/grete', {
      ics_url: feeds.url('/outlook.ics'),
      rules: { owner_emails: ['grete@contoso.example'] },
      lookahead_days: 60,
    });
    const preview = await calendars.call('GET', '/calendars/grete/preview?days=60');
    expect(preview.status).toBe(200);
    const rows = preview.body.occurrences as PreviewRow[];
    console.log(
      `preview of test/fixtures/calendars/outlook.ics from ${new Date(NOW).toISOString()}, 60 days:\n${rows
        .map(
          (r) => `  ${r.start}  ${r.decision.padEnd(4)}  ${r.title.padEnd(30)}  ${r.meeting_url ?? '-'}  (${r.reason})`,
        )
        .join('\n')}`,
    );
    const series = rows.filter((r) => r.uid.endsWith('AABBCCDDEEFF0011'));
    // 09:00 in Berlin: 08:00Z before the change on 28 March, 07:00Z after; 15 March excluded; 7 April added.
    expect(series.map((r) => r.start)).toEqual([
      '2027-03-01T08:00:00.000Z',
      '2027-03-08T08:00:00.000Z',
      '2027-03-23T13:00:00.000Z',
      '2027-03-29T07:00:00.000Z',
      '2027-04-05T07:00:00.000Z',
      '2027-04-07T07:00:00.000Z',
      '2027-04-12T07:00:00.000Z',
      '2027-04-19T07:00:00.000Z',
      '2027-04-26T07:00:00.000Z',
    ]);
    const moved = series.find((r) => r.start === '2027-03-23T13:00:00.000Z');
    expect(moved?.original_start).toBe('2027-03-22T08:00:00.000Z');
    expect(series.find((r) => r.start.startsWith('2027-04-05'))).toMatchObject({
      decision: 'skip',
      reason: 'cancelled in the calendar',
    });
    // The Teams link is only in the description, percent-encoded as Outlook writes it.
    expect(series[0]).toMatchObject({
      decision: 'join',
      meeting_url:
        'https://teams.microsoft.com/l/meetup-join/19:meeting_NzQ4YjFhZTctMzk1OS00ZDQ2LWE1OTEtMmQ4NjBmMTk0MjJh@thread.v2/0?context={"Tid":"72f988bf-86f1-41af-91ab-2d7cd011db47","Oid":"35c2e2a1-8f52-4a3a-9cd4-2c9f0c1e5f11"}',
      // The default join rule (accepted) names what let it through.
      reason: 'Teams link in the description; organized by grete@contoso.example',
    });
    expect(rows.find((r) => r.title === 'Customer call')).toMatchObject({
      start: '2027-03-16T14:00:00.000Z', // 10:00 New York, already on summer time
      meeting_url: 'https://acme.zoom.us/j/85512345678?pwd=Q2xvdWRNZWV0aW5nUGFzcw.1',
    });
    expect(rows.find((r) => r.title === 'Offsite')).toMatchObject({ decision: 'skip', reason: 'all-day event' });
    expect(rows.find((r) => r.title === 'Lunch')?.decision).toBe('skip');
  });
});

describe('syncing', () => {
  it('creates schedules, answers 304 as unchanged, then moves and cancels exactly what changed', async () => {
    const calendars = await calendarHarness(now);
    const path = '/resync/google.ics';
    const original = fixtureFeed('google');
    feeds.set(path, original);
    await calendars.call('PUT', '/calendars/ada', { ics_url: feeds.url(path), rules: ada, lookahead_days: 30 });

    const first = await calendars.call('POST', '/calendars/ada/sync');
    expect(first.status).toBe(200);
    // Within 30 days: 7 standups (11 March excluded, 18 March moved, 25 March cancelled), the QBR and focus
    // time; skipped: the Zoom call Ada declined, the zoomgov call the service refuses, the cancelled standup.
    expect(first.body).toMatchObject({ created: 9, moved: 0, cancelled: 0, unchanged: 0, skipped: 3, failed: [] });

    const again = await calendars.call('POST', '/calendars/ada/sync');
    expect(again.body).toMatchObject({ created: 0, moved: 0, cancelled: 0, unchanged: 9, feed_not_modified: true });

    // The QBR moves an hour later; the standup of 30 March is cancelled (Google writes an override).
    const changed = original
      .replace(
        'DTSTART:20270309T160000Z\r\nDTEND:20270309T170000Z',
        'DTSTART:20270309T170000Z\r\nDTEND:20270309T180000Z',
      )
      .replace(
        'END:VCALENDAR',
        [
          'BEGIN:VEVENT',
          'DTSTART;TZID=America/New_York:20270330T093000',
          'DTEND;TZID=America/New_York:20270330T094500',
          'DTSTAMP:20270222T120000Z',
          'UID:5kq2v8n0c1d2e3f4g5h6i7j8k9@google.com',
          'RECURRENCE-ID;TZID=America/New_York:20270330T093000',
          'SEQUENCE:2',
          'STATUS:CANCELLED',
          'SUMMARY:Standup',
          'END:VEVENT',
          'END:VCALENDAR',
        ].join('\r\n'),
      );
    feeds.set(path, changed);
    const resync = await calendars.call('POST', '/calendars/ada/sync');
    expect(resync.body).toMatchObject({ created: 0, moved: 1, cancelled: 1, unchanged: 7, failed: [] });
    expect(calendars.executions.stopped.size).toBe(2); // the QBR's old version and the cancelled standup

    const listed = (await calendars.call('GET', '/schedules?calendar_id=ada')).body.schedules as Array<{
      id: string;
      join_at: string;
      status: string;
      title: string;
    }>;
    expect(listed.find((s) => s.title === 'Partner QBR')).toMatchObject({
      join_at: '2027-03-09T17:00:00.000Z',
      status: 'scheduled',
    });
    expect(listed.filter((s) => s.status === 'cancelled').map((s) => s.join_at)).toEqual(['2027-03-30T13:30:00.000Z']);
    expect(listed.filter((s) => s.status === 'scheduled')).toHaveLength(8);
  });

  it('sends one bot when two invitees sync the same meeting, and hands it over when one leaves', async () => {
    const calendars = await calendarHarness(now);
    feeds.set('/two/ada.ics', fixtureFeed('google'));
    feeds.set('/two/bo.ics', fixtureFeed('google-attendee'));
    await calendars.call('PUT', '/calendars/ada', { ics_url: feeds.url('/two/ada.ics'), rules: ada });
    await calendars.call('PUT', '/calendars/bo', {
      ics_url: feeds.url('/two/bo.ics'),
      rules: { owner_emails: ['bo@acme.example'] },
    });
    await calendars.call('POST', '/calendars/ada/sync');
    const bo = await calendars.call('POST', '/calendars/bo/sync');
    expect(bo.body).toMatchObject({ created: 0, skipped: 1 });

    const qbrStarts = [];
    for (const input of calendars.executions.started.values()) {
      const schedule = await getSchedule(input.scheduleId, calendars.deps.schedules);
      if (schedule?.meetingUrl === 'https://meet.google.com/pqr-stuv-wxy') qbrStarts.push(input);
    }
    expect(qbrStarts).toHaveLength(1);
    const boList = (await calendars.call('GET', '/schedules?calendar_id=bo')).body.schedules as Array<
      Record<string, unknown>
    >;
    expect(boList).toEqual([
      expect.objectContaining({ status: 'scheduled', covered_by_another_calendar: true, id: qbrStarts[0]?.scheduleId }),
    ]);

    // Ada's calendar goes: its schedules (14 days ahead: 3 standups, the QBR, focus time) are cancelled,
    // and Bo's next sync takes the meeting over.
    const deleted = await calendars.call('DELETE', '/calendars/ada');
    expect(deleted.body).toMatchObject({ deleted: true, cancelled: 5 });
    expect(await getSchedule(String(qbrStarts[0]?.scheduleId), calendars.deps.schedules)).toMatchObject({
      status: 'cancelled',
    });
    const takeover = await calendars.call('POST', '/calendars/bo/sync');
    expect(takeover.body).toMatchObject({ created: 1, skipped: 0 });
    const boSchedules = (await calendars.call('GET', '/schedules?calendar_id=bo')).body.schedules;
    expect(boSchedules).toEqual([
      expect.objectContaining({ status: 'scheduled', join_at: '2027-03-09T16:00:00.000Z' }),
    ]);
  });

  it('reports a feed it cannot fetch without naming its address', async () => {
    const calendars = await calendarHarness(now);
    await calendars.call('PUT', '/calendars/gone', { ics_url: feeds.url('/missing/private-token-xyz.ics') });
    const sync = await calendars.call('POST', '/calendars/gone/sync');
    expect(sync.status).toBe(502);
    expect(JSON.stringify(sync.body)).not.toContain('private-token-xyz');
    expect((await calendars.call('GET', '/calendars/gone')).body.last_sync).toMatchObject({
      outcome: expect.stringContaining('failed'),
    });
  });

  it('syncs a 500-event feed in reasonable time', async () => {
    // A speed figure for one sync of everything: the new-schedule limits (tested below) set out of the way.
    const calendars = await calendarHarness(now, { scheduleLimits: { perSync: 10_000, perDay: 10_000 } });
    const events = Array.from({ length: 500 }, (_, i) => {
      const day = String(2 + (i % 27)).padStart(2, '0');
      const hour = String(8 + (i % 9)).padStart(2, '0');
      const weekly = i % 10 === 0 ? 'RRULE:FREQ=WEEKLY;COUNT=8\r\n' : '';
      const code = `e${String(i).padStart(3, '0')}`;
      return `BEGIN:VEVENT\r\nUID:bench-${i}@example\r\nDTSTART;TZID=Europe/Berlin:202703${day}T${hour}${String(i % 60).padStart(2, '0')}00\r\nDURATION:PT30M\r\n${weekly}SUMMARY:Meeting ${i}\r\nX-GOOGLE-CONFERENCE:https://meet.google.com/${code.slice(0, 3)}-${code}-abc\r\nEND:VEVENT`;
    });
    feeds.set('/bench.ics', `BEGIN:VCALENDAR\r\nVERSION:2.0\r\n${events.join('\r\n')}\r\nEND:VCALENDAR\r\n`);
    await calendars.call('PUT', '/calendars/bench', {
      ics_url: feeds.url('/bench.ics'),
      rules: { join: 'all' },
      lookahead_days: 30,
    });
    const started = performance.now();
    const sync = await calendars.call('POST', '/calendars/bench/sync');
    const firstMs = performance.now() - started;
    const again = performance.now();
    const resync = await calendars.call('POST', '/calendars/bench/sync');
    const resyncMs = performance.now() - again;
    console.log(
      `500-event feed: first sync ${Math.round(firstMs)} ms (${JSON.stringify({ created: sync.body.created, skipped: sync.body.skipped })}), re-sync ${Math.round(resyncMs)} ms (unchanged ${resync.body.unchanged})`,
    );
    expect(sync.status).toBe(200);
    expect(Number(sync.body.created)).toBeGreaterThan(500);
    expect(resync.body.unchanged).toBe(sync.body.created);
  });
});

describe('limits against a flooded calendar', () => {
  const OWNER = 'owner@acme.example';
  const day = (n: number) => `202703${String(2 + n).padStart(2, '0')}T090000Z`;

  it('makes at most the new schedules a sync and a day allow, soonest first, and says why', async () => {
    const calendars = await calendarHarness(now, { scheduleLimits: { perSync: 4, perDay: 10 } });
    // 12 invites, each joinable, on 12 days; listed latest first so the order is the limit's doing.
    feeds.set('/flood.ics', testFeed(Array.from({ length: 12 }, (_, i) => testEvent(`flood-${11 - i}`, day(11 - i)))));
    await calendars.call('PUT', '/calendars/flood', {
      ics_url: feeds.url('/flood.ics'),
      rules: { join: 'all' },
      lookahead_days: 30,
    });
    const first = await calendars.call('POST', '/calendars/flood/sync');
    expect(first.body).toMatchObject({ created: 4, deferred: 8, failed: [] });
    expect(first.body.limits).toEqual([
      { limit: 'schedules-per-sync', reason: expect.stringContaining('8 new meeting(s) wait for a later sync') },
    ]);
    const joinAts = () => [...calendars.executions.started.values()].map((input) => input.joinAt).sort();
    expect(joinAts()).toEqual(
      [0, 1, 2, 3].map((n) => new Date(Date.parse('2027-03-02T09:00:00Z') + n * 86_400_000).toISOString()),
    );

    const second = await calendars.call('POST', '/calendars/flood/sync');
    expect(second.body).toMatchObject({ created: 4, unchanged: 4, deferred: 4 });
    // The day's count is kept in the table: the third sync may make only 2 more.
    const third = await calendars.call('POST', '/calendars/flood/sync');
    expect(third.body).toMatchObject({ created: 2, unchanged: 8, deferred: 2 });
    expect(third.body.limits).toEqual([
      { limit: 'schedules-per-day', reason: expect.stringContaining('at most 10 new schedules a day') },
    ]);
    expect(calendars.executions.started.size).toBe(10);
  });

  it('spends the budget only on schedules it makes: meetings another calendar covers never hold a new one back', async () => {
    const calendars = await calendarHarness(now, { scheduleLimits: { perSync: 5, perDay: 6 } });
    const shared = Array.from({ length: 5 }, (_, i) => testEvent(`shared-${i}`, day(i)));
    feeds.set('/holder.ics', testFeed(shared));
    feeds.set('/invitee.ics', testFeed(shared));
    for (const id of ['holder', 'invitee'])
      await calendars.call('PUT', `/calendars/${id}`, { ics_url: feeds.url(`/${id}.ics`), rules: { join: 'all' } });
    expect((await calendars.call('POST', '/calendars/holder/sync')).body).toMatchObject({ created: 5, deferred: 0 });
    // Every sync of the invitee re-claims the 5 covered meetings and loses: no schedule, so no budget spent.
    for (let run = 0; run < 3; run++)
      expect((await calendars.call('POST', '/calendars/invitee/sync')).body).toMatchObject({
        created: 0,
        skipped: 5,
        deferred: 0,
        limits: [],
      });
    // A meeting only the invitee has still gets its bot at once.
    feeds.set('/invitee.ics', testFeed([...shared, testEvent('invitee-own', day(6))]));
    expect((await calendars.call('POST', '/calendars/invitee/sync')).body).toMatchObject({
      created: 1,
      skipped: 5,
      deferred: 0,
      limits: [],
    });
    expect(calendars.executions.started.size).toBe(6);
  });

  it("expands a stranger's sub-daily series to nothing and the owner's only up to the per-event limit, and keeps what a limit cut short", async () => {
    const calendars = await calendarHarness(now, { scheduleLimits: { perSync: 1_000, perDay: 1_000 } });
    const feed = testFeed([
      testEvent('stranger-minutely', day(0), ['RRULE:FREQ=MINUTELY;INTERVAL=3', 'ORGANIZER:mailto:spam@evil.example']),
      testEvent('stranger-hourly', day(0), ['RRULE:FREQ=HOURLY', 'ORGANIZER:mailto:spam@evil.example']),
      testEvent('owner-hourly', day(0), ['RRULE:FREQ=HOURLY', `ORGANIZER:mailto:${OWNER}`]),
      testEvent('owner-weekly', day(0), ['RRULE:FREQ=WEEKLY', `ORGANIZER:mailto:${OWNER}`]),
    ]);
    feeds.set('/subdaily.ics', feed);
    await calendars.call('PUT', '/calendars/sub', {
      ics_url: feeds.url('/subdaily.ics'),
      rules: { join: 'all', owner_emails: [OWNER] },
    });
    const preview = await calendars.call('GET', '/calendars/sub/preview');
    const rows = preview.body.occurrences as PreviewRow[];
    const count = (uid: string) => rows.filter((r) => r.uid === uid).length;
    expect([
      count('stranger-minutely'),
      count('stranger-hourly'),
      count('owner-hourly'),
      count('owner-weekly'),
    ]).toEqual([0, 0, 200, 2]);
    expect(preview.body.limits).toEqual([
      expect.objectContaining({ limit: 'recurrence-rule', uid: 'stranger-minutely' }),
      expect.objectContaining({ limit: 'sub-daily-recurrence', uid: 'stranger-hourly' }),
      expect.objectContaining({ limit: 'occurrences-per-event', uid: 'owner-hourly' }),
    ]);
    const sync = await calendars.call('POST', '/calendars/sub/sync');
    expect(sync.body).toMatchObject({ created: 202, failed: [] });

    // Read again with a lower per-event limit: the 100 hourly occurrences it no longer reaches keep their
    // schedules. A limit's cut is not a cancellation.
    const source = await calendars.deps.store.getSource('sub');
    const resync = await syncCalendar(source as CalendarSource, {
      ...calendars.deps,
      expansionLimits: { ...EXPANSION_LIMITS, occurrencesPerEvent: 100 },
    });
    expect(resync).toMatchObject({ created: 0, cancelled: 0, unchanged: 102, failed: [] });
  });
});

describe('the default join rule', () => {
  it('joins what the owner organized or accepted, not an invite left unanswered', async () => {
    const calendars = await calendarHarness(now);
    const OWNER = 'ada@acme.example';
    const attendee = (partstat: string) => `ATTENDEE;PARTSTAT=${partstat}:mailto:${OWNER}`;
    feeds.set(
      '/default-join.ics',
      testFeed([
        testEvent('organized', '20270302T090000Z', [`ORGANIZER:mailto:${OWNER}`]),
        testEvent('accepted', '20270303T090000Z', ['ORGANIZER:mailto:x@partner.example', attendee('ACCEPTED')]),
        testEvent('unanswered', '20270304T090000Z', ['ORGANIZER:mailto:x@evil.example', attendee('NEEDS-ACTION')]),
      ]),
    );
    const put = await calendars.call('PUT', '/calendars/default', {
      ics_url: feeds.url('/default-join.ics'),
      rules: { owner_emails: [OWNER] },
    });
    expect(put.body.rules).toMatchObject({ join: 'accepted' });
    const rows = (await calendars.call('GET', '/calendars/default/preview')).body.occurrences as PreviewRow[];
    expect(rows.map((r) => [r.uid, r.decision, r.reason])).toEqual([
      ['organized', 'join', expect.stringContaining(`organized by ${OWNER}`)],
      ['accepted', 'join', expect.stringContaining(`accepted by ${OWNER}`)],
      ['unanswered', 'skip', 'neither organized nor accepted by the owner (join: accepted)'],
    ]);
  });
});
