/**
 * The scheduled run with company calendars: their users are enqueued by core's plan
 * (stood in for here: it is built beside this), never synced by the run itself, and a
 * failed plan neither stops the ICS calendars nor goes unnoticed. The same for the push
 * channels' renewal, which runs in every scheduled run (after the plan, beside the feeds).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCalendarSyncRun } from '../../lambdas/calendars/adapter';
import type { CalendarSource, CompanyCalendarSource } from '../../lambdas/core/calendar/calendar-source';
import { calendarHarness, type FeedServer, startFeedServer, testEvent, testFeed } from '../fixtures/calendar-harness';
import { type LocalPipeline, recordingTelemetry, startLocalPipeline } from '../fixtures/local-pipeline';

let pipeline: LocalPipeline;
let feeds: FeedServer;
beforeAll(async () => {
  pipeline = await startLocalPipeline();
  feeds = await startFeedServer();
  feeds.set('/team.ics', testFeed([testEvent('standup', '20270302T090000Z', ['ORGANIZER:mailto:owner@acme.example'])]));
});
afterAll(async () => {
  await feeds?.stop();
  await pipeline?.stop();
});

const now = () => Date.parse('2027-03-01T00:00:00Z');

async function withCompanySource() {
  const calendars = await calendarHarness(now);
  expect(
    (await calendars.call('PUT', '/calendars/team', { ics_url: feeds.url('/team.ics'), rules: { join: 'all' } }))
      .status,
  ).toBe(201);
  // A company source as the calendar store lists it beside ICS ones (its storing is the calendar API's).
  const company = {
    calendarId: 'acme-google',
    kind: 'company',
    company: { provider: 'google', credentialsSecret: 'meeting-pipeline/calendars/acme', users: ['ada@acme.example'] },
  } as unknown as CompanyCalendarSource;
  const listSources = calendars.deps.store.listSources.bind(calendars.deps.store);
  const store = {
    ...calendars.deps.store,
    listSources: async () => [...(await listSources()), company as unknown as CalendarSource],
  };
  return { ...calendars.deps, store };
}

describe('the scheduled run with company calendars', () => {
  it('enqueues company users through the plan and syncs only the ICS calendars itself', async () => {
    const { telemetry, metrics } = recordingTelemetry();
    const deps = { ...(await withCompanySource()), telemetry };
    let plans = 0;
    const run = createCalendarSyncRun(deps, {
      budgetMs: 60_000,
      planCompany: async () => {
        plans++;
        return { enqueued: 1 };
      },
    });
    expect(await run()).toEqual({ synced: 1, failed: 0, left: 0 });
    expect(plans).toBe(1);
    expect(metrics.filter((m) => m.name === 'CalendarSyncFailed')).toHaveLength(1);
  });

  it('counts a failed plan as a failure and still syncs every ICS calendar', async () => {
    const deps = await withCompanySource();
    const run = createCalendarSyncRun(deps, {
      budgetMs: 60_000,
      planCompany: async () => {
        throw new Error('SQS unavailable');
      },
    });
    expect(await run()).toEqual({ synced: 1, failed: 1, left: 0 });
  });

  it('runs the push renewal after the plan, and a failed renewal is logged and counted but stops no ICS sync', async () => {
    const recorded = recordingTelemetry();
    const errors: string[] = [];
    const telemetry = {
      ...recorded.telemetry,
      log: { ...recorded.telemetry.log, error: (m: string) => void errors.push(m) },
    };
    const deps = { ...(await withCompanySource()), telemetry };
    const order: string[] = [];
    const run = createCalendarSyncRun(deps, {
      budgetMs: 60_000,
      planCompany: async () => {
        order.push('plan');
        return { enqueued: 1 };
      },
      renewPush: async () => {
        order.push('renewal');
        throw new Error('Graph unavailable');
      },
    });
    expect(await run()).toEqual({ synced: 1, failed: 1, left: 0 });
    expect(order).toEqual(['plan', 'renewal']);
    // The renewal's failure is the one failure counted (CalendarSyncFailed carries the run's total).
    expect(recorded.metrics.filter((m) => m.name === 'CalendarSyncFailed')).toHaveLength(1);
    expect(errors).toEqual(['calendar push channels not reconciled']);
  });
});
