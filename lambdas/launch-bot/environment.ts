import * as z from 'zod/mini';
import { domainEventsEnvironmentShape } from '../shared/domain-events-environment';
import { upstreamEnvironmentShape } from '../shared/upstream-environment';

/** Environment the launch-bot task function is deployed with (set by lib/bot-scheduler.ts). */
export const launchBotEnvironmentSchema = z.object({
  TABLE_NAME: z.string().check(z.minLength(1)),
  ...upstreamEnvironmentShape,
  ...domainEventsEnvironmentShape,
});
