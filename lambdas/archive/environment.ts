import * as z from 'zod/mini';
import { upstreamEnvironmentShape } from '../shared/upstream-environment';

/** Environment the archive function is deployed with (set by lib/recording-archive.ts). */
export const archiveEnvironmentSchema = z.object({
  TABLE_NAME: z.string().check(z.minLength(1)),
  RECORDINGS_BUCKET: z.string().check(z.minLength(1)),
  ...upstreamEnvironmentShape,
  MAX_RECORDING_BYTES: z.coerce.number().check(z.int(), z.positive()),
  /** Local mode only: plain http downloads from loopback (the simulated service). */
  ALLOW_LOOPBACK_DOWNLOADS: z._default(z.enum(['true', 'false']), 'false'),
});
export type ArchiveEnvironment = z.infer<typeof archiveEnvironmentSchema>;
