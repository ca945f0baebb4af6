/** Lambda entry point for the scheduled sync of every calendar. */
import { withPowertools } from '../shared/powertools';
import { createCalendarSyncRun } from './adapter';
import { calendarDependencies } from './dependencies';

/** Stops starting calendars this long before the function's timeout (lib/calendar-sync.ts). */
export const SYNC_RUN_BUDGET_MS = 3 * 60_000;

const run = createCalendarSyncRun(calendarDependencies(), { budgetMs: SYNC_RUN_BUDGET_MS });
export const handler = withPowertools(async () => run());
