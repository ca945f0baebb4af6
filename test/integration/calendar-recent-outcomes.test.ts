/**
 * What calendar admins read of the last week, per calendar and per company user: the meetings scheduled,
 * recorded, missed and failed, missed and failed by reason. Built as it happens: a calendar synced (an ICS
 * feed through the calendar routes, a company user's listing through the per-user reconcile), each
 * schedule launched at the simulated service, its bot's state changes applied by the deployed consumer's
 * code on dynalite, then `GET /calendars/{id}` and `calendars get` a week later.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { companyStore } from '../../lambdas/core/calendar/company/company-store';
import { userRules } from '../../lambdas/core/calendar/company/company-sync';
import { userScopeId } from '../../lambdas/core/calendar/company/user-scope';
import { companyCalendarApi } from '../../lambdas/core/calendar/company-calendar-api';
import type { Occurrence } from '../../lambdas/core/calendar/ics-occurrences';
import {
  RECENT_OUTCOME_DAYS,
  RECENT_OUTCOME_MAX_MEETINGS,
  type RecentOutcomes,
} from '../../lambdas/core/calendar/recent-outcomes';
import { reconcileOccurrences } from '../../lambdas/core/calendar/sync-calendar';
import { type ProcessDependencies, processQueuedEvent } from '../../lambdas/core/events/process-event';
import { getSchedule, launchInputOf } from '../../lambdas/core/schedule/schedules';
import { SERVICES, silentTelemetry } from '../../lambdas/core/telemetry';
import { processEventsDependencies } from '../../lambdas/process-events/adapter';
import { sqsClient } from '../../lambdas/shared/aws-clients';
import { documentClient } from '../../lambdas/shared/dynamo-client';
import { s3Client } from '../../lambdas/shared/s3-client';
import { SimulatedServiceApi } from '../../local/simulator/api-server';
import { stateChange } from '../../local/simulator/payloads';
import {
  type CalendarHarness,
  calendarHarness,
  type FeedServer,
  startFeedServer,
  testEvent,
  testFeed,
} from '../fixtures/calendar-harness';
import { cliInProcess } from '../fixtures/cli-in-process';
import { testEventLog } from '../fixtures/event-log';
import { launched } from '../fixtures/launched-bots';
import { type LocalPipeline, queuedMessage, startLocalPipeline } from '../fixtures/local-pipeline';

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
/** The calendars are synced then; the report is read a week and a half later. */
const SYNCED_AT = Date.parse('2027-03-01T00:00:00Z');
const REPORTED_AT = Date.parse('2027-03-10T12:00:00Z');

/** A state change `minutes` after the meeting's join time: [type, sub-type, old state, new state]. */
type Step = [minutes: number, type: string, subType: string | null, from: string, to: string];

const RECORDED: Step[] = [
  [0, 'join_requested', null, 'staged', 'joining'],
  [2, 'joined_meeting', null, 'joining', 'joined_recording'],
  [30, 'meeting_ended', null, 'joined_recording', 'post_processing'],
  [31, 'post_processing_completed', null, 'post_processing', 'ended'],
];
const DENIED: Step[] = [
  [0, 'join_requested', null, 'staged', 'joining'],
  [1, 'put_in_waiting_room', null, 'joining', 'waiting_room'],
  [3, 'could_not_join_meeting', 'request_to_join_denied', 'waiting_room', 'fatal_error'],
];
const LOBBY_TIMEOUT: Step[] = [
  [0, 'join_requested', null, 'staged', 'joining'],
  [1, 'put_in_waiting_room', null, 'joining', 'waiting_room'],
  [16, 'could_not_join_meeting', 'waiting_room_timeout_exceeded', 'waiting_room', 'fatal_error'],
];
const NOT_LAUNCHED: Step[] = [[0, 'fatal_error', 'bot_not_launched', 'scheduled', 'fatal_error']];

const service = new SimulatedServiceApi();
let clock = SYNCED_AT;
let pipeline: LocalPipeline;
let feeds: FeedServer;
let calendars: CalendarHarness;
let processing: ProcessDependencies;
let server: Server;
let endpoint = '';

beforeAll(async () => {
  pipeline = await startLocalPipeline();
  feeds = await startFeedServer();
  await service.start();
  service.apiKeys.set('k', 'all');
  calendars = await calendarHarness(() => clock);
  calendars.deps.companyCalendars = companyCalendarApi({
    ...calendars.deps,
    company: companyStore(calendars.deps.schedules.table),
    telemetry: silentTelemetry,
  });
  processing = processEventsDependencies(
    calendars.deployment.parsedEnvironmentOf(SERVICES.processEvents),
    { db: documentClient(), sqs: sqsClient(), s3: s3Client(), events: testEventLog().publisher },
    silentTelemetry,
  );
  // The calendar routes over HTTP, as local mode serves them, for the CLI.
  server = createServer((request, response) => {
    request.resume();
    request.on('end', async () => {
      const answer = await calendars.call(request.method ?? 'GET', request.url ?? '/');
      response.writeHead(answer.status, { 'content-type': 'application/json' }).end(JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server?.closeAllConnections();
  server?.close();
  await service.stop();
  await feeds?.stop();
  await pipeline?.stop();
});

/** The schedule launched at the service ten minutes before its join time, then its bot's webhooks applied. */
async function play(scheduleId: string, steps: Step[]): Promise<void> {
  const schedule = await getSchedule(scheduleId, calendars.deps.schedules);
  if (schedule === undefined) throw new Error(`no schedule ${scheduleId}`);
  const joinAt = Date.parse(schedule.joinAt);
  const bot = await launched(service, calendars.deps.schedules.table, launchInputOf(schedule), joinAt - 10 * MINUTE);
  for (const [minutes, type, subType, from, to] of steps) {
    const at = joinAt + minutes * MINUTE;
    const webhook = stateChange(bot.id, {
      oldState: from,
      newState: to,
      eventType: type,
      subType,
      createdAtMicros: at * 1000,
    });
    await processQueuedEvent(queuedMessage(webhook, new Date(at)), processing);
  }
}

/** Runs the CLI in process against the routes (test/fixtures/cli-in-process.ts): what it wrote. */
async function cli(args: string[]): Promise<{ code: number; stdout: string }> {
  const { code, stdout } = await cliInProcess([...args, '--endpoint', endpoint]);
  return { code, stdout };
}

const start = (day: number, hour: number) =>
  `202703${String(day).padStart(2, '0')}T${String(hour).padStart(2, '0')}0000Z`;

describe('the last week of a calendar, by outcome', () => {
  it('counts an ICS calendar’s meetings of the last 7 days by status, missed and failed by reason', async () => {
    clock = SYNCED_AT;
    const events = [
      testEvent('old-review', start(2, 9)), // 8 days before the report: outside its window
      testEvent('planning', start(4, 9)),
      testEvent('denied-1', start(4, 11)),
      testEvent('denied-2', start(5, 11)),
      testEvent('lobby', start(6, 11)),
      testEvent('crashed', start(7, 11)),
      testEvent('called-off', start(8, 11)),
      testEvent('tomorrow', start(11, 9)), // after the report: not yet in it
    ];
    feeds.set('/team.ics', testFeed(events));
    expect(
      (await calendars.call('PUT', '/calendars/team', { ics_url: feeds.url('/team.ics'), rules: { join: 'all' } }))
        .status,
    ).toBe(201);
    expect((await calendars.call('POST', '/calendars/team/sync')).status).toBe(200);
    // Taken off the calendar before it started: its schedule is cancelled.
    clock = SYNCED_AT + DAY;
    feeds.set('/team.ics', testFeed(events.filter((event) => !event.includes('UID:called-off'))));
    expect((await calendars.call('POST', '/calendars/team/sync')).status).toBe(200);

    const listed = (await calendars.call('GET', '/schedules?calendar_id=team')).body.schedules as Array<{
      id: string;
      title: string;
    }>;
    const id = (title: string) => listed.find((row) => row.title === title)?.id ?? '';
    await play(id('old-review'), RECORDED);
    await play(id('planning'), RECORDED);
    await play(id('denied-1'), DENIED);
    await play(id('denied-2'), DENIED);
    await play(id('lobby'), LOBBY_TIMEOUT);
    await play(id('crashed'), NOT_LAUNCHED);

    clock = REPORTED_AT;
    // A sync since: it tidies away past entries, but not those of the report's window.
    expect((await calendars.call('POST', '/calendars/team/sync')).status).toBe(200);
    const got = await calendars.call('GET', '/calendars/team');
    expect(got.status).toBe(200);
    expect(got.body.recent_outcomes).toEqual({
      days: RECENT_OUTCOME_DAYS,
      since: '2027-03-03T12:00:00.000Z',
      scheduled: 5,
      by_status: { scheduled: 0, in_progress: 0, recorded: 1, partial: 0, missed: 3, failed: 1, cancelled: 1 },
      missed_by_reason: { request_to_join_denied: 2, waiting_room_timeout_exceeded: 1 },
      failed_by_reason: { bot_not_launched: 1 },
      complete: true,
    });

    const shown = await cli(['calendars', 'get', 'team']);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(
      /^last 7 days\s+5 scheduled: 1 recorded, 3 missed \(request_to_join_denied 2, waiting_room_timeout_exceeded 1\), 1 failed \(bot_not_launched 1\), 1 cancelled$/m,
    );
  });

  it('gives each user of a company calendar their own week, and the calendar the sum', async () => {
    clock = SYNCED_AT;
    const users = ['ada@acme.example', 'bob@acme.example'];
    expect(
      (
        await calendars.call('PUT', '/calendars/acme', {
          google: { credentials_secret: 'meeting-pipeline/calendars/acme', users },
        })
      ).status,
    ).toBe(201);
    const source = await calendars.deps.store.getSource('acme');
    if (source === undefined) throw new Error('no source acme');
    const meetings: Record<string, Array<[uid: string, day: number, steps: Step[]]>> = {
      'ada@acme.example': [
        ['ada-1', 4, DENIED],
        ['ada-2', 5, DENIED],
        ['ada-3', 6, DENIED],
        ['ada-4', 7, LOBBY_TIMEOUT],
      ],
      'bob@acme.example': [
        ['bob-1', 5, RECORDED],
        ['bob-2', 6, RECORDED],
      ],
    };
    for (const user of users) {
      const scopeId = userScopeId('acme', user);
      const occurrences = (meetings[user] ?? []).map(([uid, day]) => companyOccurrence(uid, day, user));
      await reconcileOccurrences(
        { scopeId, calendarId: 'acme', rules: userRules(source.rules, user), botName: 'Notes', lookaheadDays: 14 },
        {
          occurrences,
          partial: { feed: false, uids: new Set() },
          problems: [],
          limits: [],
          notModified: false,
          events: 0,
        },
        calendars.deps,
      );
      const listed = (await calendars.call('GET', `/schedules?calendar_id=acme&user=${user}`)).body.schedules as Array<{
        id: string;
        title: string;
      }>;
      for (const [uid, , steps] of meetings[user] ?? [])
        await play(listed.find((row) => row.title === uid)?.id ?? '', steps);
    }

    clock = REPORTED_AT;
    const got = await calendars.call('GET', '/calendars/acme');
    const perUser = (got.body.users as Array<{ user: string; recent_outcomes: Record<string, unknown> }>).map(
      ({ user, recent_outcomes }) => ({ user, recent_outcomes }),
    );
    expect(perUser).toMatchObject([
      {
        user: 'ada@acme.example',
        recent_outcomes: {
          scheduled: 4,
          by_status: { missed: 4, recorded: 0 },
          missed_by_reason: { request_to_join_denied: 3, waiting_room_timeout_exceeded: 1 },
          complete: true,
        },
      },
      { user: 'bob@acme.example', recent_outcomes: { scheduled: 2, by_status: { recorded: 2, missed: 0 } } },
    ]);
    expect(got.body.totals).toMatchObject({
      recent_outcomes: { scheduled: 6, by_status: { recorded: 2, missed: 4 }, complete: true },
    });

    const shown = await cli(['calendars', 'get', 'acme']);
    expect(shown.stdout).toMatch(
      /^ada@acme\.example\s+4 scheduled: 0 recorded, 4 missed \(request_to_join_denied 3, waiting_room_timeout_exceeded 1\), 0 failed$/m,
    );
    expect(shown.stdout).toMatch(/^bob@acme\.example\s+2 scheduled: 2 recorded, 0 missed, 0 failed$/m);
    expect(shown.stdout).toMatch(/^Meetings of the last 7 days: 6 scheduled: 2 recorded, 4 missed/m);
  });
});

describe('the bound of one report', () => {
  it(`reads ${RECENT_OUTCOME_MAX_MEETINGS} meetings of a scope at most, and says the counts are partial beyond`, async () => {
    clock = REPORTED_AT;
    feeds.set('/busy.ics', testFeed([]));
    await calendars.call('PUT', '/calendars/busy', { ics_url: feeds.url('/busy.ics') });
    // Entries as a sync leaves them for occurrences it cancelled (their schedules gone): one an hour back.
    for (let n = 1; n <= RECENT_OUTCOME_MAX_MEETINGS + 1; n++) {
      const startAt = new Date(REPORTED_AT - n * 30 * MINUTE).toISOString();
      await calendars.deps.store.putEntry('busy', {
        scheduleId: `cal-busy-${String(n).padStart(32, '0')}`,
        uid: `busy-${n}`,
        originalStart: undefined,
        slot: { meetingUrl: `https://meet.google.com/abc-defg-hij?n=${n}`, start: startAt },
        title: `busy ${n}`,
        state: 'cancelled',
        botName: 'Notes',
      });
    }
    const report = (await calendars.call('GET', '/calendars/busy')).body.recent_outcomes as RecentOutcomes;
    expect(report.complete).toBe(false);
    expect(report.by_status.cancelled).toBe(RECENT_OUTCOME_MAX_MEETINGS);
    expect((await cli(['calendars', 'get', 'busy'])).stdout).toMatch(/more meetings than one answer reads/);
  });
});

/** An instance of the user's own meeting (they organize it), with a link of its own. */
function companyOccurrence(uid: string, day: number, organizer: string): Occurrence {
  const startAt = new Date(Date.UTC(2027, 2, day, 14)).toISOString();
  const code = uid.replace(/[^a-z]/g, '').padEnd(10, 'x');
  return {
    uid,
    originalStart: undefined,
    start: startAt,
    end: new Date(Date.parse(startAt) + 30 * MINUTE).toISOString(),
    timeZone: 'UTC',
    title: uid,
    allDay: false,
    cancelled: false,
    organizer,
    attendees: [],
    links: {
      conference: [`https://meet.google.com/${code.slice(0, 3)}-${code.slice(3, 7)}-${code.slice(7, 10)}`],
      url: undefined,
      location: undefined,
      description: undefined,
      descriptionHtml: undefined,
    },
  };
}
