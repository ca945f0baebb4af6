/**
 * What each deployed function's handler parses its environment with, by service name: the one
 * registry the template test (test/infra/function-environments.test.ts) checks every synthesized
 * function against, and local mode and the tests parse `environmentOf` with, so a variable the
 * template lacks fails in both before it fails in AWS.
 */
import type * as z from 'zod/mini';
import { archiveEnvironmentSchema } from '../../lambdas/archive/environment';
import { calendarPushEnvironmentSchema, pushRenewalEnvironmentSchema } from '../../lambdas/calendar-push/environment';
import { calendarsEnvironmentSchema, companySyncEnvironmentSchema } from '../../lambdas/calendars/environment';
import { SERVICES, type ServiceName } from '../../lambdas/core/telemetry';
import { eraseEnvironmentSchema } from '../../lambdas/erase/environment';
import { ingressEnvironmentSchema } from '../../lambdas/ingress/environment';
import { lakeCompactionEnvironmentSchema } from '../../lambdas/lake-compaction/environment';
import { lakeSearchEnvironmentSchema } from '../../lambdas/lake-search/environment';
import { launchBotEnvironmentSchema } from '../../lambdas/launch-bot/environment';
import { processEventsEnvironmentSchema } from '../../lambdas/process-events/environment';
import { readApiEnvironmentSchema } from '../../lambdas/read-api/environment';
import { reconcilerEnvironmentSchema } from '../../lambdas/reconciler/environment';
import { schedulesEnvironmentSchema } from '../../lambdas/schedules/environment';

/** An environment schema: an object of string variables. */
export type EnvironmentSchema = z.ZodMiniObject<Record<string, z.ZodMiniType>>;

/** Every schema a handler parses `process.env` with, in its module's order. */
export const FUNCTION_ENVIRONMENTS = {
  [SERVICES.ingress]: [ingressEnvironmentSchema],
  [SERVICES.processEvents]: [processEventsEnvironmentSchema],
  [SERVICES.archive]: [archiveEnvironmentSchema],
  [SERVICES.launchBot]: [launchBotEnvironmentSchema],
  [SERVICES.reconciler]: [reconcilerEnvironmentSchema],
  [SERVICES.schedules]: [schedulesEnvironmentSchema],
  [SERVICES.readApi]: [readApiEnvironmentSchema],
  [SERVICES.calendars]: [calendarsEnvironmentSchema],
  [SERVICES.calendarSync]: [companySyncEnvironmentSchema, pushRenewalEnvironmentSchema],
  [SERVICES.calendarUserSync]: [companySyncEnvironmentSchema],
  [SERVICES.calendarPush]: [calendarPushEnvironmentSchema],
  [SERVICES.erase]: [eraseEnvironmentSchema],
  [SERVICES.lakeSearch]: [lakeSearchEnvironmentSchema],
  [SERVICES.lakeCompaction]: [lakeCompactionEnvironmentSchema],
} as const satisfies Record<ServiceName, readonly EnvironmentSchema[]>;

type Registry = typeof FUNCTION_ENVIRONMENTS;

/** What parsing with every schema of a list gives: each one's output, together. */
type Parsed<T extends readonly EnvironmentSchema[]> = T extends readonly [
  infer First extends EnvironmentSchema,
  ...infer Rest extends readonly EnvironmentSchema[],
]
  ? z.infer<First> & Parsed<Rest>
  : unknown;

/** A service's environment as its handler sees it after parsing. */
export type FunctionEnvironment<S extends ServiceName> = Parsed<Registry[S]>;

/** A raw environment parsed as the service's handler parses it (an error names the service). */
export function parseFunctionEnvironment<S extends ServiceName>(
  service: S,
  raw: Readonly<Record<string, string | undefined>>,
): FunctionEnvironment<S> {
  const schemas: readonly EnvironmentSchema[] = FUNCTION_ENVIRONMENTS[service];
  const parsed: Record<string, unknown> = {};
  for (const schema of schemas) {
    const result = schema.safeParse(raw);
    if (!result.success) throw new Error(`${service}'s environment does not parse: ${result.error.message}`);
    Object.assign(parsed, result.data);
  }
  return parsed as FunctionEnvironment<S>;
}
