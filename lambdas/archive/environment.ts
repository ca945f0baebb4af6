import * as z from 'zod/mini';

/** Environment the archive function is deployed with (set by lib/recording-archive.ts). */
export const archiveEnvironmentSchema = z.object({
  TABLE_NAME: z.string().check(z.minLength(1)),
  RECORDINGS_BUCKET: z.string().check(z.minLength(1)),
  UPSTREAM_BASE_URL: z.url(),
  API_KEY_SECRET_ID: z.string().check(z.minLength(1)),
  SECRET_CACHE_SECONDS: z.coerce.number().check(z.int(), z.nonnegative()),
  MAX_RECORDING_BYTES: z.coerce.number().check(z.int(), z.positive()),
  /** Local mode only: plain http downloads from loopback (the simulated service). */
  ALLOW_LOOPBACK_DOWNLOADS: z._default(z.enum(['true', 'false']), 'false'),
});
export type ArchiveEnvironment = z.infer<typeof archiveEnvironmentSchema>;
