import * as z from 'zod/mini';
import { upstreamEnvironmentShape } from '../shared/upstream-environment';

/** Environment of the calendar functions (set by lib/calendar-sync.ts). */
export const calendarsEnvironmentSchema = z.object({
  TABLE_NAME: z.string().check(z.minLength(1)),
  STATE_MACHINE_ARN: z.string().check(z.minLength(1)),
  LAUNCH_LEAD_SECONDS: z.coerce.number().check(z.int(), z.nonnegative()),
  /** The KMS key that seals feed addresses. */
  CALENDAR_KEY_ARN: z.string().check(z.minLength(1)),
  /** New schedules per sync and per calendar per UTC day (calendarMaxNewSchedulesPerSync / PerDay). */
  MAX_NEW_SCHEDULES_PER_SYNC: z.coerce.number().check(z.int(), z.positive()),
  MAX_NEW_SCHEDULES_PER_DAY: z.coerce.number().check(z.int(), z.positive()),
  // Schedules it moves or cancels may have launched bots, which live at the service.
  ...upstreamEnvironmentShape,
});
export type CalendarsEnvironment = z.infer<typeof calendarsEnvironmentSchema>;
