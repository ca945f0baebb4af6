/**
 * The Google simulator's zone offsets are remembered per quarter hour (a listing of
 * a flooded calendar converts hundreds of thousands of times): the remembered
 * offsets must still change exactly at a DST transition, in either direction and
 * for a zone on a half-hour offset.
 */
import { describe, expect, it } from 'vitest';
import { formatZoned, zonedToUtc, zoneOffsetMinutes } from '../../local/simulator/google-calendar/zoned-time';

const MINUTE = 60_000;

describe('the Google simulator zone offsets', () => {
  it('change at the transition instant, asked before and after in any order', () => {
    // Europe/Berlin leaves summer time at 2026-10-25T01:00Z and enters it at 2027-03-28T01:00Z.
    const autumn = Date.parse('2026-10-25T01:00:00Z');
    const spring = Date.parse('2027-03-28T01:00:00Z');
    expect(zoneOffsetMinutes(autumn - MINUTE, 'Europe/Berlin')).toBe(120);
    expect(zoneOffsetMinutes(autumn, 'Europe/Berlin')).toBe(60);
    expect(zoneOffsetMinutes(autumn - 1, 'Europe/Berlin')).toBe(120);
    expect(zoneOffsetMinutes(spring, 'Europe/Berlin')).toBe(120);
    expect(zoneOffsetMinutes(spring - 1, 'Europe/Berlin')).toBe(60);
    // A half-hour zone, and the same instants in another zone: kept apart.
    expect(zoneOffsetMinutes(autumn, 'Asia/Kolkata')).toBe(330);
    expect(zoneOffsetMinutes(autumn, 'America/New_York')).toBe(-240);
  });

  it('convert wall times both ways across the change', () => {
    expect(new Date(zonedToUtc('2026-10-25T10:00:00', 'Europe/Berlin')).toISOString()).toBe('2026-10-25T09:00:00.000Z');
    expect(new Date(zonedToUtc('2026-10-24T10:00:00', 'Europe/Berlin')).toISOString()).toBe('2026-10-24T08:00:00.000Z');
    expect(formatZoned(Date.parse('2026-10-24T08:00:00Z'), 'Europe/Berlin')).toBe('2026-10-24T10:00:00+02:00');
    expect(formatZoned(Date.parse('2026-10-25T09:00:00Z'), 'Europe/Berlin')).toBe('2026-10-25T10:00:00+01:00');
  });
});
