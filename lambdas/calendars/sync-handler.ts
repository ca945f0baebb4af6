/** Lambda entry point for the scheduled sync: every ICS calendar, and every company calendar's users enqueued. */

import { planCompanySyncs } from '../core/calendar/company/company-run';
import { withPowertools } from '../shared/powertools';
import { createCalendarSyncRun } from './adapter';
import { companySyncDependencies } from './dependencies';

/** Stops starting calendars this long before the function's timeout (lib/calendar-sync.ts). */
export const SYNC_RUN_BUDGET_MS = 3 * 60_000;

const deps = companySyncDependencies();
const run = createCalendarSyncRun(deps, { budgetMs: SYNC_RUN_BUDGET_MS, planCompany: () => planCompanySyncs(deps) });
export const handler = withPowertools(async () => run());
