/** Calendar events on EventBridge: the other way in for integrations (documented in the README). */
import * as z from 'zod/mini';

export const CALENDAR_EVENT_SOURCE = 'meeting-pipeline.calendar';
export const CALENDAR_DETAIL_TYPES = {
  upserted: 'Calendar Event Upserted',
  cancelled: 'Calendar Event Cancelled',
} as const;

export const calendarEventDetailSchema = z.looseObject({ schedule_id: z.string().check(z.minLength(1)) });
