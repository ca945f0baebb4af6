/**
 * Lambda entry point for the scheduled sync: every ICS calendar, every company calendar's
 * users enqueued, and the push channels opened and renewed: this
 * function and the user-sync consumer are the only ones that read company credentials.
 */

import { pushRenewalDependencies } from '../calendar-push/dependencies';
import { pushRenewalEnvironmentSchema } from '../calendar-push/environment';
import { planCompanySyncs } from '../core/calendar/company/company-run';
import { reconcileSubscriptions } from '../core/calendar/company/push/reconcile-subscriptions';
import { telemetry, withPowertools } from '../shared/powertools';
import { secretsManagerSource } from '../shared/secrets-manager';
import { createCalendarSyncRun } from './adapter';
import { companySyncDependencies } from './dependencies';
import { companySyncEnvironmentSchema, providerEndpointsOf } from './environment';

/** Stops starting calendars this long before the function's timeout (lib/calendar-sync.ts). */
export const SYNC_RUN_BUDGET_MS = 3 * 60_000;

const env = companySyncEnvironmentSchema.parse(process.env);
// The stack always wires push (lib/calendar-push.ts grants the renewal): its settings are required.
const push = pushRenewalEnvironmentSchema.parse(process.env);
const deps = companySyncDependencies(env);
const renewal = pushRenewalDependencies(
  push,
  {
    ...deps.schedules.table,
    pushKey: secretsManagerSource(push.PUSH_KEY_SECRET_ID, env.SECRET_CACHE_SECONDS),
    endpoints: providerEndpointsOf(env),
    providerFor: deps.providerFor,
  },
  telemetry,
);
const run = createCalendarSyncRun(deps, {
  budgetMs: SYNC_RUN_BUDGET_MS,
  planCompany: () => planCompanySyncs(deps),
  // Every run: only channels inside the renew margin (or missing, or marked due by a lifecycle notification) cost calls.
  renewPush: () => reconcileSubscriptions(renewal),
});
export const handler = withPowertools(async () => run());
