/** The calendar functions' wiring in AWS: one place, for the API and the scheduled sync. */

import type { CalendarApiDependencies } from '../core/calendar/calendar-api';
import { calendarStore } from '../core/calendar/calendar-store';
import { guardedFeedFetcher } from '../core/calendar/feed-fetch';
import { DEFAULT_TIMING } from '../core/schedule/schedule-request';
import { documentClient } from '../shared/dynamo-client';
import { kmsClient, kmsUrlSealer } from '../shared/kms-url-sealer';
import { telemetry } from '../shared/powertools';
import { sfnClient, stepFunctionsExecutions } from '../shared/sfn-executions';
import { upstreamClient } from '../shared/upstream';
import { calendarsEnvironmentSchema } from './environment';

export function calendarDependencies(): CalendarApiDependencies {
  const env = calendarsEnvironmentSchema.parse(process.env);
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
