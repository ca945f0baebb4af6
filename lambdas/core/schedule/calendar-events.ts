/** Calendar events on EventBridge: the other way in for integrations (documented in docs/scheduling.md). */
import * as z from 'zod/mini';

export const CALENDAR_EVENT_SOURCE = 'meeting-pipeline.calendar';
export const CALENDAR_DETAIL_TYPES = {
  upserted: 'Calendar Event Upserted',
  cancelled: 'Calendar Event Cancelled',
} as const;
export type CalendarEventKind = keyof typeof CALENDAR_DETAIL_TYPES;

/**
 * `sequence` (like iCalendar SEQUENCE) and `updated_at` (the calendar's own last
 * change) order the events of one schedule, since EventBridge delivers them in
 * any order; both are optional, and an event with neither is applied as it comes.
 * Each event is applied once (applied-calendar-events.ts): a redelivery of it
 * changes nothing, but only an ordering keeps a late first delivery, or a new
 * event carrying old content, from undoing a newer change.
 */
export const calendarEventDetailSchema = z.looseObject({
  schedule_id: z.string().check(z.minLength(1)),
  sequence: z.optional(z.int().check(z.nonnegative())),
  updated_at: z.optional(
    z.iso
      .datetime({ offset: true, error: 'must be an ISO 8601 time with a zone' })
      .check(z.refine((time) => Date.parse(time) >= 0, 'must not be before 1970')),
  ),
});
export type CalendarEventDetail = z.infer<typeof calendarEventDetailSchema>;

// A missing part sorts before any number: '-' comes before every digit.
const MISSING = '-';

/**
 * The event's place in its calendar's order, as text that compares (as a string,
 * in a DynamoDB condition too) the way the events do: by sequence, then update
 * time, then a cancellation after an upsert of the same place (so a tie never
 * revives a cancelled meeting). Undefined when the event carries no ordering.
 */
export function calendarEventOrder(detail: CalendarEventDetail, kind: CalendarEventKind): string | undefined {
  if (detail.sequence === undefined && detail.updated_at === undefined) return undefined;
  // Safe integers have at most 16 digits; times up to the year 9999, 15 digits of milliseconds.
  const sequence = detail.sequence === undefined ? MISSING : String(detail.sequence).padStart(16, '0');
  const updated = detail.updated_at === undefined ? MISSING : String(Date.parse(detail.updated_at)).padStart(15, '0');
  return `${sequence}:${updated}:${kind === 'cancelled' ? 1 : 0}`;
}
