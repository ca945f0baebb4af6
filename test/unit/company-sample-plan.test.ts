/**
 * The sample tenant's plan holds on any day it is made: across a year of start times the
 * weekly series crosses a DST change (a regular instance on each side, the moved one just
 * before the cancelled one), at least three of its instances and every one-off meeting
 * fall between now and the lookahead, and the lookahead stays within the API's 180 days.
 */
import { describe, expect, it } from 'vitest';
import { samplePlan } from '../../local/company-tenant/sample-plan';
import { addLocalDays, zonedToUtc } from '../../local/simulator/google-calendar/zoned-time';

const DAY_MS = 86_400_000;
const YEAR_START = Date.parse('2027-01-01T00:00:00Z');

describe('the sample plan', () => {
  it('crosses a DST change and fits the lookahead on every day of a year, at any hour', () => {
    for (let day = 0; day < 365; day += 1) {
      const now = YEAR_START + day * DAY_MS + ((day * 7) % 24) * 3_600_000;
      const plan = samplePlan(now);
      const context = `${new Date(now).toISOString()} in ${plan.zone.iana}`;
      const windowEnd = now + plan.lookaheadDays * DAY_MS;
      expect(plan.lookaheadDays, context).toBeLessThanOrEqual(180);

      const series = plan.meetings.find((m) => m.weekly !== undefined);
      const weekly = series?.weekly;
      if (series === undefined || weekly === undefined) throw new Error('no series');
      const start = (i: number) => zonedToUtc(addLocalDays(series.startLocal, 7 * i), plan.zone.iana);
      const regular = Array.from({ length: weekly.count }, (_, i) => i).filter(
        (i) => i !== weekly.moved.index && i !== weekly.cancelled,
      );
      expect(
        regular.some((i) => start(i) < plan.dstChangeMs),
        context,
      ).toBe(true);
      expect(regular.filter((i) => start(i) > plan.dstChangeMs).length, context).toBeGreaterThanOrEqual(2);
      expect(weekly.cancelled, context).toBe(weekly.moved.index + 1);
      expect(start(weekly.cancelled), context).toBeGreaterThan(plan.dstChangeMs);
      const ahead = regular.filter((i) => start(i) >= now && start(i) < windowEnd).length;
      expect(ahead, context).toBeGreaterThanOrEqual(3);

      for (const meeting of plan.meetings.filter((m) => m.weekly === undefined)) {
        const at = zonedToUtc(meeting.movedToLocal ?? meeting.startLocal, plan.zone.iana);
        expect(at > now && at < windowEnd, `${meeting.title} ${context}`).toBe(true);
      }
      expect(plan.instancesPerUser.slice(3), context).toEqual([2, 2]);
    }
  });
});
