/**
 * What a calendar integration sends to schedule a bot (PUT /schedules/{id} body,
 * or the detail of a calendar EventBridge event), and the time rules it must meet.
 */
import { createHash } from 'node:crypto';
import * as z from 'zod/mini';
import { BOT_METADATA_RULES, type BotMetadata, metadataJsonLength } from '../upstream/rest-contract';

/**
 * The service keeps string metadata values only, so numbers and booleans are
 * sent as their text; nested values (objects, arrays, null) have no faithful
 * text and are refused up front rather than by the service at launch time.
 */
const metadataValue = z.pipe(
  z.union([z.string(), z.number(), z.boolean()], {
    error:
      'must be a string, number or boolean: the service keeps metadata values as text, so objects, arrays and null are refused',
  }),
  z.transform((value) => String(value)),
);

export const scheduleRequestSchema = z.object({
  meeting_url: z.url({ protocol: /^https$/, error: 'must be an https URL' }),
  join_at: z.iso.datetime({ offset: true, error: 'must be an ISO 8601 time with a zone, e.g. 2026-11-23T15:00:00Z' }),
  bot_name: z._default(z.string().check(z.minLength(1), z.maxLength(100)), 'Notetaker'),
  metadata: z._default(z.record(z.string(), metadataValue), {}),
});
export type ScheduleRequest = z.infer<typeof scheduleRequestSchema>;

/** A schedule id becomes part of keys and names: calendar ids, without control characters or slashes. */
export const SCHEDULE_ID = /^[^\s/\\\p{Cc}]{1,200}$/u;

/** The metadata a launched bot carries: the caller's, plus which schedule version launched it. */
export function launchMetadata(metadata: Record<string, unknown>, scheduleId: string, version: number): BotMetadata {
  const text: BotMetadata = {};
  // Schedules saved before values were turned into text may still hold numbers.
  for (const [key, value] of Object.entries(metadata))
    text[key] = typeof value === 'string' ? value : JSON.stringify(value);
  return { ...text, schedule_id: scheduleId, schedule_version: String(version) };
}

/** Why the service would refuse this metadata at launch (too long), or undefined. */
export function launchMetadataProblem(metadata: BotMetadata): string | undefined {
  const length = metadataJsonLength(metadata);
  const max = BOT_METADATA_RULES.maxJsonLength;
  return length > max
    ? `metadata: ${length} characters as the service counts them (JSON, with schedule_id and schedule_version added); at most ${max}`
    : undefined;
}

export interface ScheduleTiming {
  /** Launch this long before the join time, so the service has the bot before it starts it (5–10 min ahead). */
  leadMs: number;
  /** Launch up to this much earlier still, by an amount fixed per schedule, so meetings on the hour do not all launch at once. */
  jitterMs: number;
  /** A join time this far in the past is still launched at once; older ones are refused. */
  pastGraceMs: number;
  /** Standard workflows run at most a year. */
  maxAheadMs: number;
}

export const DEFAULT_TIMING: ScheduleTiming = {
  leadMs: 15 * 60_000,
  jitterMs: 5 * 60_000,
  pastGraceMs: 5 * 60_000,
  maxAheadMs: 365 * 24 * 3_600_000 - 24 * 3_600_000,
};

/** How much earlier than the lead this schedule launches: from its id, so every version and retry agrees. */
export function launchJitterMs(scheduleId: string, jitterMs: number): number {
  const fraction = createHash('sha256').update(scheduleId).digest().readUInt32BE(0) / 2 ** 32;
  return Math.floor((fraction * jitterMs) / 1000) * 1000;
}

export type TimingCheck = { ok: true; launchAtMs: number } | { ok: false; message: string };

/** When to launch: `earlierByMs` (the schedule's jitter) before the lead, never before now. */
export function launchTime(joinAtMs: number, nowMs: number, timing: ScheduleTiming, earlierByMs = 0): TimingCheck {
  if (joinAtMs < nowMs - timing.pastGraceMs) {
    return { ok: false, message: `join_at is more than ${timing.pastGraceMs / 60_000} minutes in the past` };
  }
  if (joinAtMs - timing.leadMs > nowMs + timing.maxAheadMs) {
    return {
      ok: false,
      message: `join_at is more than ${Math.floor(timing.maxAheadMs / 86_400_000)} days ahead (a Standard workflow runs at most a year)`,
    };
  }
  return { ok: true, launchAtMs: Math.max(nowMs, joinAtMs - timing.leadMs - earlierByMs) };
}
