/**
 * The leases kept on a calendar source and on a company user: a holder that outran its lease and
 * releases it late leaves the lease to whoever took it over since, so no third sync runs beside
 * the second.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { companyStore } from '../../lambdas/core/calendar/company/company-store';
import { type CalendarHarness, calendarHarness } from '../fixtures/calendar-harness';
import { type LocalPipeline, startLocalPipeline } from '../fixtures/local-pipeline';

const NOW = Date.parse('2027-03-01T00:00:00Z');
const LEASE_MS = 60_000;
let pipeline: LocalPipeline;
let calendars: CalendarHarness;
beforeAll(async () => {
  pipeline = await startLocalPipeline();
  calendars = await calendarHarness(() => NOW);
});
afterAll(async () => {
  await pipeline?.stop();
});

interface Leases<T> {
  take(nowMs: number): Promise<T | undefined>;
  release(token: T): Promise<void>;
}

async function outrunHolder<T>(leases: Leases<T>): Promise<void> {
  const first = await leases.take(NOW);
  expect(first).toBeDefined();
  expect(await leases.take(NOW + 1)).toBeUndefined();
  // The first holder stalls past its lease; a second takes it over.
  const second = await leases.take(NOW + LEASE_MS + 1);
  expect(second).toBeDefined();
  // The first comes back and releases what it no longer holds.
  await leases.release(first as T);
  expect(await leases.take(NOW + LEASE_MS + 2), 'a third sync beside the second').toBeUndefined();
  await leases.release(second as T);
  expect(await leases.take(NOW + LEASE_MS + 3)).toBeDefined();
}

describe('a lease released by a holder that outran it', () => {
  it("stays an ICS calendar's new holder's", async () => {
    const id = `lease-${NOW}`;
    const put = await calendars.call('PUT', `/calendars/${id}`, { ics_url: 'https://calendar.example.com/a.ics' });
    expect(put.status).toBe(201);
    const { store } = calendars.deps;
    await outrunHolder({
      take: (nowMs) => store.takeSyncLease(id, nowMs, LEASE_MS),
      release: (token) => store.releaseSyncLease(id, token),
    });
    // The lease is no part of what the calendar reads as.
    expect(Object.keys((await store.getSource(id)) ?? {}).filter((key) => /lease/i.test(key))).toEqual([]);
  });

  it("stays a company user's new holder's", async () => {
    const company = companyStore(calendars.deps.schedules.table);
    const user = 'ada@acme.example';
    await company.putUser('acme-lease', { user, state: 'pending', eventsSeen: 0, fromGroup: false });
    await outrunHolder({
      take: (nowMs) => company.takeUserLease('acme-lease', user, nowMs, LEASE_MS),
      release: (token) => company.releaseUserLease('acme-lease', user, token),
    });
    expect(Object.keys((await company.getUser('acme-lease', user)) ?? {}).filter((key) => /lease/i.test(key))).toEqual(
      [],
    );
  });
});
