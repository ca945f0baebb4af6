import * as z from 'zod/mini';
import type { ProviderEndpoints } from '../core/calendar/company/provider-contract';
import { domainEventsEnvironmentShape } from '../shared/domain-events-environment';
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
  /** Company sources must name their credentials secret under this prefix (calendarCredentialsSecretPrefix). */
  CALENDAR_CREDENTIALS_SECRET_PREFIX: z.string().check(z.minLength(1)),
  /** The user-sync fan-out queue: the run, push and POST /calendars/{id}/sync ask for user syncs on it. */
  USER_SYNC_QUEUE_URL: z.string().check(z.minLength(1)),
  // Schedules it moves or cancels may have launched bots, which live at the service.
  ...upstreamEnvironmentShape,
});
export type CalendarsEnvironment = z.infer<typeof calendarsEnvironmentSchema>;

const httpsUrl = z.string().check(z.url(), z.startsWith('https://'));

/**
 * What the two sync functions (the scheduled run and the user-sync consumer) have
 * besides: where the providers are and the domain events bus (`calendar.disconnected`).
 * The API function has none of it: it never calls a provider nor reads a credential.
 */
export const companySyncEnvironmentSchema = z.object({
  ...calendarsEnvironmentSchema.shape,
  GOOGLE_CALENDAR_API_URL: httpsUrl,
  GOOGLE_DIRECTORY_API_URL: httpsUrl,
  GOOGLE_TOKEN_URL: httpsUrl,
  MICROSOFT_GRAPH_URL: httpsUrl,
  MICROSOFT_LOGIN_URL: httpsUrl,
  ...domainEventsEnvironmentShape,
});
export type CompanySyncEnvironment = z.infer<typeof companySyncEnvironmentSchema>;

export const providerEndpointsOf = (env: CompanySyncEnvironment): ProviderEndpoints => ({
  googleCalendarApi: env.GOOGLE_CALENDAR_API_URL,
  googleDirectoryApi: env.GOOGLE_DIRECTORY_API_URL,
  googleTokenUrl: env.GOOGLE_TOKEN_URL,
  microsoftGraph: env.MICROSOFT_GRAPH_URL,
  microsoftLogin: env.MICROSOFT_LOGIN_URL,
});
