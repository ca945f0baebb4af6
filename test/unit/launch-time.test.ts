/** The launch-time rule on its own, as a table: when a schedule launches, or why it is refused. */
import { describe, expect, it } from 'vitest';
import { DEFAULT_TIMING, launchTime } from '../../lambdas/core/schedule/schedule-request';

const NOW = Date.UTC(2026, 10, 23, 15);
const MINUTE = 60_000;
const DAY = 86_400_000;
const { leadMs, pastGraceMs, maxAheadMs } = DEFAULT_TIMING;

describe('launchTime with the default timing', () => {
  it.each([
    ['join in an hour', NOW + 60 * MINUTE, NOW + 60 * MINUTE - leadMs],
    ['join exactly one lead ahead', NOW + leadMs, NOW],
    ['join inside the lead', NOW + leadMs / 2, NOW],
    ['join now', NOW, NOW],
    ['join within the past grace', NOW - pastGraceMs / 2, NOW],
    ['join exactly at the end of the grace', NOW - pastGraceMs, NOW],
    ['join at the furthest allowed time', NOW + maxAheadMs + leadMs, NOW + maxAheadMs],
  ])('%s launches at the expected time', (_label, joinAtMs, launchAtMs) => {
    expect(launchTime(joinAtMs, NOW, DEFAULT_TIMING)).toEqual({ ok: true, launchAtMs });
  });

  it.each([
    ['join just past the grace', NOW - pastGraceMs - 1, /more than 5 minutes in the past/],
    ['join a day ago', NOW - DAY, /in the past/],
    ['join one ms past the furthest time', NOW + maxAheadMs + leadMs + 1, /days ahead/],
    ['join two years ahead', NOW + 730 * DAY, /days ahead \(a Standard workflow runs at most a year\)/],
  ])('%s is refused with a reason', (_label, joinAtMs, reason) => {
    const check = launchTime(joinAtMs, NOW, DEFAULT_TIMING);
    expect(check.ok).toBe(false);
    if (!check.ok) expect(check.message).toMatch(reason);
  });

  it('launches never before now and never after the join time minus the lead', () => {
    for (let offset = -pastGraceMs; offset <= 3 * leadMs; offset += 7_919) {
      const check = launchTime(NOW + offset, NOW, DEFAULT_TIMING);
      expect(check.ok).toBe(true);
      if (check.ok) {
        expect(check.launchAtMs).toBeGreaterThanOrEqual(NOW);
        expect(check.launchAtMs).toBe(Math.max(NOW, NOW + offset - leadMs));
      }
    }
  });
});
