import * as z from 'zod/mini';
import { upstreamEnvironmentShape } from '../shared/upstream-environment';

/** Environment the schedules function is deployed with (set by lib/bot-scheduler.ts). */
export const schedulesEnvironmentSchema = z.object({
  TABLE_NAME: z.string().check(z.minLength(1)),
  STATE_MACHINE_ARN: z.string().check(z.minLength(1)),
  LAUNCH_LEAD_SECONDS: z.coerce.number().check(z.int(), z.nonnegative()),
  // Moving or cancelling a launched bot calls the service.
  ...upstreamEnvironmentShape,
});
export type SchedulesEnvironment = z.infer<typeof schedulesEnvironmentSchema>;
