/**
 * One company user's calendar changing while syncs race: each change is followed by the push
 * notification the provider sends, consumed as the user-sync consumer consumes it (a request
 * finding the user's sync running goes back on the queue); scheduled syncs and lease expiry come
 * in between, every DynamoDB call interleaved at random (fixtures/scheduled-clients.ts), with a
 * fault at a random call of one consumer (its message comes back, as SQS redelivers it). Once the
 * queue is drained — no scheduled run after — each meeting the calendar holds has exactly one
 * live schedule at its current time, and nothing else is scheduled: no pushed change lost, no
 * bot doubled, none left for a cancelled meeting. Google Workspace and Microsoft 365 alike.
 * `SOAK_RUNS=<n>` runs it longer (npm run soak).
 */
import { randomUUID } from 'node:crypto';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { calendarStore } from '../../lambdas/core/calendar/calendar-store';
import { companyStore } from '../../lambdas/core/calendar/company/company-store';
import type { CompanySyncDependencies } from '../../lambdas/core/calendar/company/company-sync';
import { USER_SYNC_LEASE_MS } from '../../lambdas/core/calendar/company/company-sync';
import type { ProviderName, UserSyncRequest } from '../../lambdas/core/calendar/company/provider-contract';
import { consumeUserSyncRequest } from '../../lambdas/core/calendar/company/user-sync-consumer';
import type { TableAccess } from '../../lambdas/core/store/dynamo';
import { documentClient } from '../../lambdas/shared/dynamo-client';
import { type CompanyCalendars, DAY_MS, HOUR_MS, startCompanyCalendars } from '../fixtures/company-calendars';
import { type LocalPipeline, startLocalPipeline } from '../fixtures/local-pipeline';
import { clientFault, propertyParameters, reportExplored, scheduledClient } from '../fixtures/scheduled-clients';

/** The sample tenant's date; the runs happen 200 days later, past every sample meeting, so only the runs' own count. */
const START = Date.parse('2026-11-24T21:40:00Z');
const PROVIDERS: ProviderName[] = ['google', 'microsoft'];

let pipeline: LocalPipeline;
let h: CompanyCalendars;
beforeAll(async () => {
  pipeline = await startLocalPipeline();
  h = await startCompanyCalendars(START);
  h.advance(200 * DAY_MS);
});
afterAll(async () => {
  await h?.stop();
  await pipeline?.stop();
});

/** The sync's dependencies with every table call through `db` and every provider request through `fetch`. */
function depsThrough(db: TableAccess['db'], through: typeof fetch = fetch): CompanySyncDependencies {
  const table = { db, tableName: h.deps.schedules.table.tableName };
  return {
    ...h.deps,
    providerFor: h.providerThrough(through),
    store: calendarStore(table),
    company: companyStore(table),
    schedules: { ...h.deps.schedules, table },
  };
}

/** The join times of the schedules in force that name `calendarId` (sync-calendar.ts puts it in their metadata). */
async function liveJoinTimes(calendarId: string): Promise<number[]> {
  const found: number[] = [];
  let cursor: Record<string, unknown> | undefined;
  do {
    const page = await documentClient().send(
      new ScanCommand({ TableName: h.deps.schedules.table.tableName, ConsistentRead: true, ExclusiveStartKey: cursor }),
    );
    for (const item of page.Items ?? [])
      if (
        item.sk === 'SCHEDULE' &&
        item.status === 'scheduled' &&
        JSON.stringify(item).includes(`"calendar_id":"${calendarId}"`)
      )
        found.push(Date.parse(item.joinAt as string));
    cursor = page.LastEvaluatedKey;
  } while (cursor !== undefined);
  return found.sort((a, b) => a - b);
}

/** Meeting slots a run may use: one a day, at the hour, or two hours later once moved. */
const SLOTS = [0, 1, 2];
/**
 * Each step starts once the run's syncs have made `after` client calls (or sit idle): a change may
 * come at any point of a sync running, not only before its first call (the scheduler alone would
 * release a step that waits on nothing ahead of any call still at the emulator).
 */
type Step = { after: number } & (
  | { kind: 'add' | 'move' | 'cancel'; slot: number }
  | { kind: 'scheduled' }
  | { kind: 'push' }
  | { kind: 'lease-expires' }
);
const slot = fc.constantFrom(...SLOTS);
const after = fc.nat(20);
const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constantFrom('add' as const, 'move' as const), slot, after }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('cancel' as const), slot, after }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('scheduled' as const), after }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('push' as const), after }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('lease-expires' as const), after }) },
);

describe('a company user synced by pushes and scheduled runs under random interleavings', () => {
  it('ends, once the queue is drained, with one live schedule per meeting at its current time', async () => {
    const parameters = propertyParameters(6);
    await fc.assert(
      fc.asyncProperty(
        fc.scheduler(),
        fc.constantFrom(...PROVIDERS),
        fc.subarray(SLOTS),
        fc.array(step, { minLength: 1, maxLength: 6 }),
        clientFault(25),
        async (scheduler, providerName, initial, steps, fault) => {
          const provider = providerName === 'google' ? h.google : h.microsoft;
          const user = provider.users[0] ?? '';
          const calendarId = `push-${randomUUID().slice(0, 8)}`;
          const base = Math.ceil(h.clock.now / HOUR_MS) * HOUR_MS + DAY_MS;
          const slotStart = (n: number, moved: boolean) => base + n * DAY_MS + (moved ? 2 * HOUR_MS : 0);
          /** What the calendar holds now: slot → its event id and whether it was moved. */
          const meetings = new Map<number, { eventId: string; moved: boolean }>();
          const add = (n: number) =>
            meetings.set(n, {
              eventId: provider.addMeeting(user, { title: `${calendarId} ${n}`, startMs: slotStart(n, false) }),
              moved: false,
            });
          for (const n of initial) add(n);
          await h.register(calendarId, provider.source([user]));

          /** The user-sync queue: requests put back (in progress, or failed and redelivered) wait here. */
          const queued: UserSyncRequest[] = [];
          const queue = { send: async (requests: readonly UserSyncRequest[]) => void queued.push(...requests) };
          const request = (reason: UserSyncRequest['reason']): UserSyncRequest => ({
            calendar_id: calendarId,
            user,
            reason,
          });
          const consume = async (sent: UserSyncRequest, db: TableAccess['db'], through?: typeof fetch) => {
            try {
              await consumeUserSyncRequest(sent, { ...depsThrough(db, through), queue });
            } catch {
              queued.push(sent); // a failed invocation's message comes back after its visibility timeout
            }
          };
          // Synced once before the race, so the racing syncs list incrementally from a kept cursor.
          await consume(request('schedule'), documentClient());
          expect(queued).toEqual([]);

          /** The client calls the racing syncs have made so far. */
          const calls = { made: 0 };
          const real = documentClient();
          const counting = Object.create(real) as typeof real;
          counting.send = ((...args: Parameters<typeof real.send>) => {
            calls.made++;
            return real.send(...args);
          }) as typeof real.send;
          const racing = steps.map(async (s, i) => {
            const label = `${s.kind}${'slot' in s ? ` ${s.slot}` : ''} (${i})`;
            const client = scheduledClient(counting, scheduler, label, i === 0 ? fault : undefined);
            for (let seen = -1; calls.made < s.after && seen !== calls.made; ) {
              seen = calls.made;
              await new Promise((resolve) => setTimeout(resolve, 10));
            }
            if (s.kind === 'lease-expires') {
              await scheduler.schedule(Promise.resolve(), label);
              h.advance(USER_SYNC_LEASE_MS + 1);
              return;
            }
            if (s.kind === 'add' || s.kind === 'move' || s.kind === 'cancel') {
              await scheduler.schedule(Promise.resolve(), `${label}: the organizer's change`);
              const held = meetings.get(s.slot);
              if (s.kind === 'add' && held === undefined) add(s.slot);
              else if (s.kind === 'move' && held !== undefined) {
                held.moved = !held.moved;
                provider.moveMeeting(user, held.eventId, slotStart(s.slot, held.moved));
              } else if (s.kind === 'cancel' && held !== undefined) {
                provider.cancelMeeting(user, held.eventId);
                meetings.delete(s.slot);
              } else return; // nothing changed: the provider sends no notification
            }
            // The provider's answers are interleaved too: a listing may come before or after a change.
            const scheduledFetch: typeof fetch = async (input, init) => {
              await scheduler.schedule(Promise.resolve(), `${label} provider request`);
              return fetch(input, init);
            };
            await consume(request(s.kind === 'scheduled' ? 'schedule' : 'push'), client.client, scheduledFetch);
          });
          await scheduler.waitFor(Promise.all(racing));

          // The queue drained, as its consumer drains it: later (every lease and requeue delay past), one at a time.
          for (let rounds = 0; queued.length > 0; rounds++) {
            expect(rounds, 'the queue never drains').toBeLessThan(20);
            h.advance(USER_SYNC_LEASE_MS + 1);
            const next = queued.splice(0, queued.length);
            for (const sent of next) await consume(sent, documentClient());
          }

          const wanted = [...meetings].map(([n, m]) => slotStart(n, m.moved)).sort((a, b) => a - b);
          const live = await liveJoinTimes(calendarId);
          expect(live.map((ms) => new Date(ms).toISOString())).toEqual(wanted.map((ms) => new Date(ms).toISOString()));
          // Gone from the calendar, so later runs list only their own meetings.
          for (const { eventId } of meetings.values()) provider.cancelMeeting(user, eventId);
        },
      ),
      parameters,
    );
    reportExplored('company sync with push', parameters.numRuns ?? 0);
  }, 600_000);
});
