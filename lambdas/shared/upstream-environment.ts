import * as z from 'zod/mini';

/** How long a function keeps a secret's value before reading it again (a rotation reaches it within this). */
export const secretCacheSeconds = z.coerce.number().check(z.int(), z.nonnegative());

/** The environment every function that calls the service's REST API is deployed with (lib/upstream-settings.ts). */
export const upstreamEnvironmentShape = {
  UPSTREAM_BASE_URL: z.url(),
  API_KEY_SECRET_ID: z.string().check(z.minLength(1)),
  SECRET_CACHE_SECONDS: secretCacheSeconds,
};
export const upstreamEnvironmentSchema = z.object(upstreamEnvironmentShape);
export type UpstreamEnvironment = z.infer<typeof upstreamEnvironmentSchema>;
