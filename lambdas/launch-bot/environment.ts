import * as z from 'zod/mini';

/** Environment the launch-bot task function is deployed with (set by lib/bot-scheduler.ts). */
export const launchBotEnvironmentSchema = z.object({
  TABLE_NAME: z.string().check(z.minLength(1)),
  UPSTREAM_BASE_URL: z.url(),
  API_KEY_SECRET_ID: z.string().check(z.minLength(1)),
  SECRET_CACHE_SECONDS: z.coerce.number().check(z.int(), z.nonnegative()),
});
