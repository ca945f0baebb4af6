/**
 * The most each function's bundle (index.mjs, minified as deployed) may weigh, in KiB: a few
 * percent above its size when set, so a new dependency on a function's path is a decision
 * (raise the budget in the same change, saying why), never an accident. Every cold start
 * loads the whole file. `npm run bench -- bundle` prints each size against its budget.
 */
export const BUNDLE_BUDGETS_KIB: Readonly<Record<string, number>> = {
  'lambdas/archive/handler.ts': 830,
  'lambdas/calendar-push/handler.ts': 490,
  'lambdas/calendars/handler.ts': 940,
  'lambdas/calendars/sync-handler.ts': 1000,
  'lambdas/calendars/user-sync-handler.ts': 1000,
  'lambdas/erase/handler.ts': 820,
  // The function a meeting's start bursts into cold; its ratio to an SQS-only function is a bench goal.
  'lambdas/ingress/handler.ts': 470,
  'lambdas/lake-compaction/handler.ts': 700,
  'lambdas/lake-search/handler.ts': 400,
  'lambdas/launch-bot/handler.ts': 490,
  'lambdas/process-events/handler.ts': 650,
  'lambdas/read-api/handler.ts': 600,
  'lambdas/reconciler/handler.ts': 680,
  'lambdas/schedules/handler.ts': 500,
};

/**
 * Modules no function may bundle: zod's classic API, which brings every locale with it (Lambda
 * code uses `zod/mini`, imported as `import * as z`), and zod's locales by any road.
 */
export const FORBIDDEN_IN_BUNDLES: ReadonlyArray<{ pattern: RegExp; why: string }> = [
  { pattern: /node_modules\/zod\/(index\.js|v4\/classic\/)/, why: "zod's classic API (use zod/mini)" },
  { pattern: /node_modules\/zod\/v4\/locales\//, why: "zod's locales (import zod/mini as 'import * as z')" },
];
