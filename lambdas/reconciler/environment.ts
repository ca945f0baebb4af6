import * as z from 'zod/mini';
import { processEventsEnvironmentSchema } from '../process-events/environment';

/** Environment the reconciler is deployed with (set by lib/reconciler.ts). */
export const reconcilerEnvironmentSchema = z.extend(processEventsEnvironmentSchema, {
  UPSTREAM_BASE_URL: z.url(),
  API_KEY_SECRET_ID: z.string().check(z.minLength(1)),
  SECRET_CACHE_SECONDS: z.coerce.number().check(z.int(), z.nonnegative()),
  STALE_AFTER_MINUTES: z.coerce.number().check(z.int(), z.positive()),
  MAX_MEETINGS_PER_RUN: z.coerce.number().check(z.int(), z.positive()),
});
export type ReconcilerEnvironment = z.infer<typeof reconcilerEnvironmentSchema>;
