/** The calendar functions' wiring in AWS: one place, for the API, the scheduled sync and the user-sync consumer. */

import type { CalendarApiDependencies } from '../core/calendar/calendar-api';
import { calendarStore } from '../core/calendar/calendar-store';
import { companyStore } from '../core/calendar/company/company-store';
import type { CompanySyncDependencies } from '../core/calendar/company/company-sync';
import { createGoogleProvider } from '../core/calendar/company/google/google-provider';
import { createMicrosoftProvider } from '../core/calendar/company/microsoft/microsoft-provider';
import type { UserSyncQueue } from '../core/calendar/company/provider-contract';
import { providerSource } from '../core/calendar/company/providers';
import { companyCalendarApi } from '../core/calendar/company-calendar-api';
import { guardedFeedFetcher } from '../core/calendar/feed-fetch';
import { DEFAULT_TIMING } from '../core/schedule/schedule-request';
import { sqsClient } from '../shared/aws-clients';
import { documentClient } from '../shared/dynamo-client';
import { eventBridgeClient, eventBridgePublisher } from '../shared/eventbridge-publisher';
import { kmsClient, kmsUrlSealer } from '../shared/kms-url-sealer';
import { telemetry } from '../shared/powertools';
import { secretsManagerReader } from '../shared/secrets-manager';
import { sfnClient, stepFunctionsExecutions } from '../shared/sfn-executions';
import { sqsUserSyncQueue } from '../shared/sqs-user-sync-queue';
import { upstreamClient } from '../shared/upstream';
import { type CalendarsEnvironment, type CompanySyncEnvironment, providerEndpointsOf } from './environment';

// Each handler parses its own environment (the registry in local/template/function-environments.ts reads it there).
export function calendarDependencies(env: CalendarsEnvironment): CalendarApiDependencies {
  const table = { db: documentClient(), tableName: env.TABLE_NAME };
  return {
    store: calendarStore(table),
    sealer: kmsUrlSealer(kmsClient(), env.CALENDAR_KEY_ARN),
    // Production guard: https only, public addresses only.
    fetchFeed: guardedFeedFetcher({ allowLoopback: false }),
    schedules: {
      table,
      executions: stepFunctionsExecutions(sfnClient(), env.STATE_MACHINE_ARN),
      upstream: upstreamClient(env, telemetry),
      timing: { ...DEFAULT_TIMING, leadMs: env.LAUNCH_LEAD_SECONDS * 1000 },
      telemetry,
      now: Date.now,
    },
    scheduleLimits: { perSync: env.MAX_NEW_SCHEDULES_PER_SYNC, perDay: env.MAX_NEW_SCHEDULES_PER_DAY },
    telemetry,
    allowLoopback: false,
    now: Date.now,
  };
}

/** The calendar routes' dependencies: the calendar core's, the company users' store and the fan-out queue. */
export function calendarApiDependencies(env: CalendarsEnvironment): CalendarApiDependencies {
  const base = calendarDependencies(env);
  return {
    ...base,
    companyCalendars: companyCalendarApi({ ...base, company: companyStore(base.schedules.table) }),
    userSyncQueue: sqsUserSyncQueue(sqsClient(), env.USER_SYNC_QUEUE_URL),
    credentialsSecretPrefix: env.CALENDAR_CREDENTIALS_SECRET_PREFIX,
  };
}

/**
 * The two sync functions besides: the company users' store, each source's provider
 * (credentials read from Secrets Manager by the name the source gives, cached for
 * `secretCacheSeconds` like the API key), the domain events bus and the fan-out queue.
 */
export function companySyncDependencies(
  env: CompanySyncEnvironment,
): CalendarApiDependencies & CompanySyncDependencies & { queue: UserSyncQueue } {
  const base = calendarDependencies(env);
  return {
    ...base,
    company: companyStore(base.schedules.table),
    providerFor: providerSource({
      credentials: secretsManagerReader(env.SECRET_CACHE_SECONDS),
      factories: { google: createGoogleProvider, microsoft: createMicrosoftProvider },
      options: { endpoints: providerEndpointsOf(env), now: Date.now },
    }),
    publisher: eventBridgePublisher(eventBridgeClient(), env.EVENT_BUS_NAME),
    queue: sqsUserSyncQueue(sqsClient(), env.USER_SYNC_QUEUE_URL),
  };
}
