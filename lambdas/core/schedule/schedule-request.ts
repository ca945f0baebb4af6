/**
 * What a calendar integration sends to schedule a bot (PUT /schedules/{id} body,
 * or the detail of a calendar EventBridge event), and the time rules it must meet.
 */
import * as z from 'zod/mini';

export const scheduleRequestSchema = z.object({
  meeting_url: z.url({ protocol: /^https$/, error: 'must be an https URL' }),
  join_at: z.iso.datetime({ offset: true, error: 'must be an ISO 8601 time with a zone, e.g. 2026-11-23T15:00:00Z' }),
  bot_name: z._default(z.string().check(z.minLength(1), z.maxLength(100)), 'Notetaker'),
  metadata: z._default(z.record(z.string(), z.unknown()), {}),
});
export type ScheduleRequest = z.infer<typeof scheduleRequestSchema>;

/** A schedule id becomes part of keys and names: calendar ids, without control characters or slashes. */
export const SCHEDULE_ID = /^[^\s/\\\p{Cc}]{1,200}$/u;

export interface ScheduleTiming {
  /** Launch this long before the join time, so the bot is in the meeting on time. */
  leadMs: number;
  /** A join time this far in the past is still launched at once; older ones are refused. */
  pastGraceMs: number;
  /** Standard workflows run at most a year. */
  maxAheadMs: number;
}

export const DEFAULT_TIMING: ScheduleTiming = {
  leadMs: 60_000,
  pastGraceMs: 5 * 60_000,
  maxAheadMs: 365 * 24 * 3_600_000 - 24 * 3_600_000,
};

export type TimingCheck = { ok: true; launchAtMs: number } | { ok: false; message: string };

export function launchTime(joinAtMs: number, nowMs: number, timing: ScheduleTiming): TimingCheck {
  if (joinAtMs < nowMs - timing.pastGraceMs) {
    return { ok: false, message: `join_at is more than ${timing.pastGraceMs / 60_000} minutes in the past` };
  }
  if (joinAtMs - timing.leadMs > nowMs + timing.maxAheadMs) {
    return {
      ok: false,
      message: `join_at is more than ${Math.floor(timing.maxAheadMs / 86_400_000)} days ahead (a Standard workflow runs at most a year)`,
    };
  }
  return { ok: true, launchAtMs: Math.max(nowMs, joinAtMs - timing.leadMs) };
}
