/** The company calendar load in `npm run capacity`, on figures worked out by hand. */
import { describe, expect, it } from 'vitest';
import {
  type CalendarAssumptions,
  calendarReport,
  DEFAULT_CALENDAR_ASSUMPTIONS,
  formatCalendarReport,
  PROVIDER_QUOTAS,
} from '../../capacity/calendar-load';
import { parseConfig } from '../../lib/config';

const config = parseConfig({ upstreamBaseUrl: 'https://m.example.org/api/v1/' });
const assumed = (changes: Partial<CalendarAssumptions> = {}) => ({ ...DEFAULT_CALENDAR_ASSUMPTIONS, ...changes });

describe('company calendar capacity', () => {
  it('counts each provider request per hour for 1,000 users × 20 events at the defaults', () => {
    const report = calendarReport(config, assumed());
    const [google, microsoft] = report.loads;
    // Every 5 minutes: 12 runs an hour, one page each (20 events fit a 250 page); one push an hour each.
    expect(google?.perHour).toEqual({
      polling: 12_000,
      push: 1_000,
      // One delegated token per user an hour.
      tokens: 1_000,
      renewals: 1_000 / 24,
      // 1,000 members in pages of 200, 12 times.
      groups: 60,
      total: 12_000 + 1_000 + 1_000 + 1_000 / 24 + 60,
    });
    // One app token per tenant in each of the 10 instances; 1,000 members in one page of 999... two.
    expect(microsoft?.perHour).toMatchObject({ tokens: 10, groups: 24 });
    // 10 instances, a sync each 0.5 s: 1,200 syncs a minute, a listing each (and a token, for Google).
    expect(google?.peakPerMinute).toBe(2_400);
    expect(microsoft?.peakPerMinute).toBe(1_200);
    expect(report.holds).toBe(true);
  });

  it('uses the published quotas', () => {
    expect(PROVIDER_QUOTAS.google).toEqual({ perMinutePerProject: 10_000, perMinutePerUser: 600 });
    expect(PROVIDER_QUOTAS.microsoft).toMatchObject({ perTenMinutesPerMailbox: 10_000, perTenSecondsPerApp: 130_000 });
  });

  it("fails, saying what to set, when the consumer's concurrency outruns Google's per-project quota", () => {
    const report = calendarReport({ ...config, calendarUserSyncConcurrency: 50 }, assumed());
    const failed = report.checks.filter((c) => !c.holds);
    // 50 × 120 syncs a minute × 2 requests = 12,000 > 10,000.
    expect(failed.map((c) => [c.limit, c.demand])).toEqual([
      ['Google Calendar API, per project (the consumer at full concurrency)', 12_000],
    ]);
    expect(failed[0]?.fix).toBe('-c calendarUserSyncConcurrency=27');
    expect(formatCalendarReport(report).join('\n')).toMatch(/FAIL Google Calendar API, per project .*\n\s+→ -c/);
  });

  it('fails when a run cannot be drained before the next', () => {
    // 10,000 users at 0.5 s over 2 instances: 2,500 s, more than the 300 s between runs.
    const report = calendarReport({ ...config, calendarUserSyncConcurrency: 2 }, assumed({ users: 10_000 }));
    const drain = report.checks.find((c) => c.limit.startsWith('user syncs of one run'));
    expect(drain).toMatchObject({
      demand: 2_500,
      capacity: 300,
      holds: false,
      fix: '-c calendarUserSyncConcurrency=25',
    });
  });

  it('prices a month: Lambda by syncs, DynamoDB by units, SQS by requests, Secrets Manager by secret and reads', () => {
    const report = calendarReport(config, assumed());
    const cost = Object.fromEntries(report.costPerMonth.map((l) => [l.service.split(' ')[0], l.dollars]));
    // 13,000 syncs an hour for 720 hours, half a second at 512 MB: 2.34 M GB-s.
    // Invocations: the run's 12,000 users in fives, 1,000 pushes alone, 12 runs of 2 s, each hour.
    const gbSeconds = 13_000 * 720 * 0.5 * 0.5 + 12 * 720 * 2 * 0.5;
    const invocations = (12_000 / 5 + 1_000 + 12) * 720;
    expect(cost.Lambda).toBeCloseTo(gbSeconds * 0.0000133334 + (invocations * 0.2) / 1e6, 2);
    // 9.36 M syncs × 3 write units + 720 k changes × 8, and 3 read units a sync.
    expect(cost.DynamoDB).toBeCloseTo((9_360_000 * 3 + 720_000 * 8) * 0.625e-6 + 9_360_000 * 3 * 0.125e-6, 2);
    // One secret, read by 11 instances once a minute.
    expect(cost.Secrets).toBeCloseTo(0.4 + ((11 * 60 * 720) / 10_000) * 0.05, 2);
    expect(report.totalPerMonth).toBeGreaterThan(40);
    expect(report.totalPerMonth).toBeLessThan(80);
  });
});
