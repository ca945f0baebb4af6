/**
 * Two ICS calendars inviting some of the same meetings, synced through the calendar routes while
 * their feeds change and one of them is deleted, over random interleavings at every DynamoDB call
 * (fixtures/scheduled-clients.ts), with a fault at a random call of one request. Once every
 * remaining calendar has synced again quietly (as the scheduled run does): each meeting a remaining
 * feed holds has exactly one live schedule, and no live schedule is left for a meeting no
 * remaining feed holds — one bot per meeting, none for a meeting that went.
 * `SOAK_RUNS=<n>` runs it longer (npm run soak).
 */
import { randomUUID } from 'node:crypto';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SYNC_LEASE_MS } from '../../lambdas/core/calendar/calendar-api';
import { documentClient } from '../../lambdas/shared/dynamo-client';
import {
  type CalendarHarness,
  calendarHarness,
  type FeedServer,
  startFeedServer,
  testEvent,
  testFeed,
} from '../fixtures/calendar-harness';
import { faultyClient } from '../fixtures/faulty-client';
import { steppedClient } from '../fixtures/interleave';
import { type LocalPipeline, startLocalPipeline } from '../fixtures/local-pipeline';
import { clientFault, propertyParameters, reportExplored, scheduledClient } from '../fixtures/scheduled-clients';

const NOW = Date.parse('2027-03-01T00:00:00Z');
let pipeline: LocalPipeline;
let feeds: FeedServer;
let calendars: CalendarHarness;
/** The calendars' clock: NOW while the requests race, past every lease for the quiet syncs after. */
let clock = NOW;

beforeAll(async () => {
  pipeline = await startLocalPipeline();
  feeds = await startFeedServer();
  calendars = await calendarHarness(() => clock);
});
afterAll(async () => {
  await feeds?.stop();
  await pipeline?.stop();
});

/**
 * An invite to a meeting no other run of this file names: its own Meet code (testEvent's code comes
 * from a hash of the UID, and two runs' codes could meet; the claim would then be the other run's).
 */
let meetings = 0;
function uniqueMeeting(uid: string, start: string): string {
  const letters = (++meetings).toString(26).padStart(10, '0');
  const code = [...letters].map((c) => String.fromCharCode(97 + Number.parseInt(c, 26))).join('');
  return testEvent(uid, start).replace(
    /meet\.google\.com\/[a-z-]+/,
    `meet.google.com/${code.slice(0, 3)}-${code.slice(3, 7)}-${code.slice(7)}`,
  );
}

/** The meetings invites may name: one a day, at 09:00Z, from 2 March. */
const MEETINGS = [0, 1, 2, 3].map((n) => ({ n, start: `2027030${2 + n}T090000Z` }));
const meetingSet = fc.subarray(MEETINGS.map((m) => m.n));

type Step =
  | { kind: 'sync'; calendar: 0 | 1 }
  | { kind: 'feed-changes'; calendar: 0 | 1; to: number[] }
  | { kind: 'delete'; calendar: 0 | 1 };
const which = fc.constantFrom(0 as const, 1 as const);
const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('sync' as const), calendar: which }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('feed-changes' as const), calendar: which, to: meetingSet }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('delete' as const), calendar: which }) },
);

interface LiveSchedule {
  meetingUrl: string;
  joinAt: string;
  calendarId: string;
}

async function liveSchedules(calendarIds: string[]): Promise<LiveSchedule[]> {
  const live: LiveSchedule[] = [];
  let cursor: Record<string, unknown> | undefined;
  do {
    const page = await documentClient().send(
      new ScanCommand({ TableName: calendars.tableName, ConsistentRead: true, ExclusiveStartKey: cursor }),
    );
    for (const item of page.Items ?? []) {
      // A calendar's schedules carry its id in their metadata (sync-calendar.ts).
      const calendarId = calendarIds.find((id) => JSON.stringify(item).includes(`"calendar_id":"${id}"`));
      if (item.sk === 'SCHEDULE' && item.status === 'scheduled' && calendarId !== undefined)
        live.push({ meetingUrl: item.meetingUrl, joinAt: item.joinAt, calendarId });
    }
    cursor = page.LastEvaluatedKey;
  } while (cursor !== undefined);
  return live;
}

describe('a sync that fails at any one table call', () => {
  // Found by the property below: a sync whose schedule was saved but whose call then failed let the
  // meeting go, so the other invitee's calendar made a second schedule (two bots).
  it.each(Array.from({ length: 14 }, (_, i) => i + 1))(
    'leaves one live schedule for a meeting two calendars share (fault at call %i)',
    async (failAt) => {
      clock = NOW;
      const run = randomUUID().slice(0, 8);
      const ids = [`a-${run}`, `b-${run}`];
      const invite = uniqueMeeting(`shared-${run}`, '20270302T090000Z');
      for (const id of ids) {
        feeds.set(`/sweep/${id}.ics`, testFeed([invite]));
        await calendars.call('PUT', `/calendars/${id}`, {
          ics_url: feeds.url(`/sweep/${id}.ics`),
          rules: { join: 'all' },
          lookahead_days: 14,
        });
      }
      const faulty = faultyClient(documentClient());
      faulty.reset({ failAt, mode: 'before' });
      await calendars
        .through(faulty.client)('POST', `/calendars/${ids[1]}/sync`)
        .catch(() => undefined);
      clock = NOW + SYNC_LEASE_MS + 1;
      for (const id of [...ids, ...ids])
        expect((await calendars.call('POST', `/calendars/${id}/sync`)).status).toBe(200);
      expect((await liveSchedules(ids)).map((s) => s.joinAt)).toEqual(['2027-03-02T09:00:00.000Z']);
    },
  );
});

describe('a delete meeting a sync of the same calendar', () => {
  // Found by the property below: the delete cancelled the calendar's schedules while a sync that had
  // read it went on to make one, left behind for a calendar that no longer exists.
  it.each(Array.from({ length: 8 }, (_, i) => i + 1))(
    "leaves no live schedule once the calendar is gone (delete at the sync's call %i)",
    async (atCall) => {
      clock = NOW;
      const id = `del-${randomUUID().slice(0, 8)}`;
      feeds.set(`/delete-race/${id}.ics`, testFeed([uniqueMeeting(`m-${id}`, '20270302T090000Z')]));
      await calendars.call('PUT', `/calendars/${id}`, {
        ics_url: feeds.url(`/delete-race/${id}.ics`),
        rules: { join: 'all' },
        lookahead_days: 14,
      });
      let deleteStatus = 0;
      const sync = steppedClient(documentClient(), atCall, async () => {
        deleteStatus = (await calendars.call('DELETE', `/calendars/${id}`)).status;
      });
      await calendars.through(sync.client)('POST', `/calendars/${id}/sync`);
      const exists = (await calendars.call('GET', `/calendars/${id}`)).status === 200;
      if (exists) expect(deleteStatus).toBe(409);
      else expect(await liveSchedules([id])).toEqual([]);
    },
  );
});

describe('ICS calendars syncing while their feeds change and one is deleted, under random interleavings', () => {
  it('leave one live schedule per meeting a remaining feed holds, and none for any other', async () => {
    const parameters = propertyParameters(8);
    await fc.assert(
      fc.asyncProperty(
        fc.scheduler(),
        fc.tuple(meetingSet, meetingSet),
        fc.array(step, { minLength: 1, maxLength: 5 }),
        clientFault(30),
        async (scheduler, initial, steps, fault) => {
          clock = NOW;
          const run = randomUUID().slice(0, 8);
          const ids = [`a-${run}`, `b-${run}`];
          const paths = ids.map((id) => `/interleavings/${id}.ics`);
          // Both calendars invite the same meetings (same link, same start): one bot between them.
          const invites = MEETINGS.map((m) => uniqueMeeting(`meeting-${run}-${m.n}`, m.start));
          const feedOf = (chosen: number[]) => testFeed(invites.filter((_, n) => chosen.includes(n)));
          const current = [...initial];
          for (const i of [0, 1]) {
            feeds.set(paths[i]!, feedOf(current[i]!));
            const put = await calendars.call('PUT', `/calendars/${ids[i]}`, {
              ics_url: feeds.url(paths[i]!),
              rules: { join: 'all' },
              lookahead_days: 14,
            });
            expect(put.status).toBe(201);
          }

          const racing = steps.map(async (s, i) => {
            const client = scheduledClient(
              documentClient(),
              scheduler,
              `${s.kind} ${s.calendar} (${i})`,
              i === 0 ? fault : undefined,
            );
            const call = calendars.through(client.client);
            if (s.kind === 'feed-changes') {
              await scheduler.schedule(Promise.resolve(), `feed ${s.calendar} changes`);
              current[s.calendar] = s.to;
              feeds.set(paths[s.calendar]!, feedOf(s.to));
              return;
            }
            // A request the fault broke fails (its caller tries again later); what it did is read back below.
            await call(
              s.kind === 'sync' ? 'POST' : 'DELETE',
              `/calendars/${ids[s.calendar]}${s.kind === 'sync' ? '/sync' : ''}`,
            ).catch(() => undefined);
          });
          await scheduler.waitFor(Promise.all(racing));

          // The scheduled run syncs every remaining calendar; twice, so one may take over from the other.
          // It runs later: a lease a crashed request left behind has expired by then.
          clock = NOW + SYNC_LEASE_MS + 1;
          const remaining: number[] = [];
          for (const i of [0, 1])
            if ((await calendars.call('GET', `/calendars/${ids[i]}`)).status === 200) remaining.push(i);
          for (let round = 0; round < 2; round++)
            for (const i of remaining) {
              const sync = await calendars.call('POST', `/calendars/${ids[i]}/sync`);
              expect(sync.status, JSON.stringify(sync.body)).toBe(200);
            }

          const live = await liveSchedules(ids);
          const wanted = new Set(remaining.flatMap((i) => current[i]!).map((n) => MEETINGS[n]!.start));
          const liveStarts = live.map((s) => s.joinAt.replace(/[-:]|\.000/g, ''));
          expect(new Set(liveStarts).size, 'two live schedules for one meeting').toBe(liveStarts.length);
          expect(new Set(liveStarts)).toEqual(wanted);
        },
      ),
      parameters,
    );
    reportExplored('ICS calendar sync', parameters.numRuns ?? 0);
  }, 600_000);
});
