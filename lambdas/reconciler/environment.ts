import * as z from 'zod/mini';
import { processEventsEnvironmentSchema } from '../process-events/environment';
import { upstreamEnvironmentShape } from '../shared/upstream-environment';

/** Environment the reconciler is deployed with (set by lib/reconciler.ts). */
export const reconcilerEnvironmentSchema = z.extend(processEventsEnvironmentSchema, {
  ...upstreamEnvironmentShape,
  STALE_AFTER_MINUTES: z.coerce.number().check(z.int(), z.positive()),
  MAX_MEETINGS_PER_RUN: z.coerce.number().check(z.int(), z.positive()),
});
export type ReconcilerEnvironment = z.infer<typeof reconcilerEnvironmentSchema>;
