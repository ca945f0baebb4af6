import { describe, expect, it } from 'vitest';
import { UTC_TIMESTAMP_PATTERN, utcTimestamp, utcTimestampOrNull } from '../../lambdas/core/text/utc-timestamp';

describe('utcTimestamp: every spelling of a time in the one answered form', () => {
  it.each([
    ['a webhook created_at (Python isoformat)', '2026-03-04T09:30:01.391000+00:00', '2026-03-04T09:30:01.391Z'],
    ['a webhook created_at whose fraction is zero', '2026-03-04T09:30:01+00:00', '2026-03-04T09:30:01.000Z'],
    ['a REST answer (microseconds, Z)', '2026-03-04T09:30:56.480000Z', '2026-03-04T09:30:56.480Z'],
    ['our own form', '2026-03-04T09:30:56.458Z', '2026-03-04T09:30:56.458Z'],
    ['a schedule launch time without a fraction', '2026-03-04T09:30:00Z', '2026-03-04T09:30:00.000Z'],
    ['another offset, converted to UTC', '2026-03-04T11:30:00.250+02:00', '2026-03-04T09:30:00.250Z'],
    ['a negative offset across midnight', '2026-03-03T23:00:00.5-05:30', '2026-03-04T04:30:00.500Z'],
    ['an offset without a colon', '2026-03-04T10:30:00+0100', '2026-03-04T09:30:00.000Z'],
    ['an hours-only offset', '2026-03-04T10:30:00+01', '2026-03-04T09:30:00.000Z'],
    ['a lower-case z', '2026-03-04t09:30:00z', '2026-03-04T09:30:00.000Z'],
  ])('%s', (_what, given, answered) => {
    expect(utcTimestamp(given)).toBe(answered);
    expect(utcTimestamp(given)).toMatch(UTC_TIMESTAMP_PATTERN);
  });

  it('cuts microseconds, never rounding into the next millisecond (or second)', () => {
    expect(utcTimestamp('2026-12-31T23:59:59.999999+00:00')).toBe('2026-12-31T23:59:59.999Z');
  });

  it('reads a number as epoch milliseconds, as the service sends timestamp_ms', () => {
    expect(utcTimestamp(1_772_616_601_391)).toBe('2026-03-04T09:30:01.391Z');
    expect(utcTimestampOrNull(1_772_616_601_391)).toBe('2026-03-04T09:30:01.391Z');
  });

  it('answers null for nothing stored, and refuses what is no time', () => {
    expect(utcTimestampOrNull(undefined)).toBeNull();
    expect(utcTimestampOrNull(null)).toBeNull();
    for (const bad of ['2026-03-04T09:30:00', '2026-03-04', 'yesterday', '', '2026-13-04T09:30:00Z'])
      expect(() => utcTimestamp(bad), bad).toThrow(RangeError);
    expect(() => utcTimestamp(Number.NaN)).toThrow(RangeError);
    expect(() => utcTimestampOrNull({ at: 1 })).toThrow(RangeError);
  });
});
