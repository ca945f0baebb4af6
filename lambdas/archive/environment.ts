import * as z from 'zod/mini';
import { domainEventsEnvironmentShape } from '../shared/domain-events-environment';
import { upstreamEnvironmentShape } from '../shared/upstream-environment';

/** Environment the archive function is deployed with (set by lib/recording-archive.ts). */
export const archiveEnvironmentSchema = z.object({
  TABLE_NAME: z.string().check(z.minLength(1)),
  RECORDINGS_BUCKET: z.string().check(z.minLength(1)),
  ...upstreamEnvironmentShape,
  ...domainEventsEnvironmentShape,
  MAX_RECORDING_BYTES: z.coerce.number().check(z.int(), z.positive()),
  /** The archive queue itself: a job to try again later is made visible again sooner. */
  ARCHIVE_QUEUE_URL: z.url(),
  /** After `fatal_error`, how long a recording the service has not uploaded yet is waited for. */
  RECORDING_WAIT_MINUTES: z.coerce.number().check(z.int(), z.nonnegative()),
  /** The recording download's deadline, connect to last byte (recordingDownloadMinutes). */
  RECORDING_DOWNLOAD_MINUTES: z.coerce.number().check(z.positive()),
  /** The recording download's minimum rate over each window, in KiB/s (recordingDownloadMinKiBPerSecond). */
  RECORDING_DOWNLOAD_MIN_KIB_PER_SECOND: z.coerce.number().check(z.positive()),
  /** `false` as deployed; local mode replaces it for plain http downloads from loopback (the simulated service). */
  ALLOW_LOOPBACK_DOWNLOADS: z.enum(['true', 'false']),
  /** Upload part size in MiB (recordingUploadPartMiB). */
  RECORDING_UPLOAD_PART_MIB: z.coerce.number().check(z.int(), z.gte(5)),
});
export type ArchiveEnvironment = z.infer<typeof archiveEnvironmentSchema>;
