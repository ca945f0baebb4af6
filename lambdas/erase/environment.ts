import * as z from 'zod/mini';
import { upstreamEnvironmentShape } from '../shared/upstream-environment';

const days = z.coerce.number().check(z.int(), z.positive());

/**
 * What the construct that grants the lake's erasure sets on the erase function with the grant
 * (MeetingsLake.grantLakeErasure): the stack always deploys the lake, so it is never optional.
 */
export const lakeErasureEnvironmentShape = {
  /** The bucket whose `lake/` holds the meetings lake and `lake-results/` its query results. */
  LAKE_BUCKET: z.string().check(z.minLength(1)),
};
export type LakeErasureEnvironment = { [K in keyof typeof lakeErasureEnvironmentShape]: string };

/** Environment the erase function is deployed with (set by lib/erasure.ts, the lake's by lib/meetings-lake.ts). */
export const eraseEnvironmentSchema = z.object({
  ...upstreamEnvironmentShape,
  TABLE_NAME: z.string().check(z.minLength(1)),
  PAYLOAD_BUCKET: z.string().check(z.minLength(1)),
  RECORDINGS_BUCKET: z.string().check(z.minLength(1)),
  EVENT_BUS_NAME: z.string().check(z.minLength(1)),
  ERASURE_QUEUE_URL: z.string().check(z.minLength(1)),
  /** `eraseUpstream`: ask the service to delete its copy too. */
  ERASE_UPSTREAM: z.stringbool(),
  RESWEEP_DELAY_SECONDS: z.coerce.number().check(z.int(), z.nonnegative(), z.lte(900)),
  LOG_RETENTION_DAYS: days,
  EVENT_ARCHIVE_RETENTION_DAYS: days,
  /** `meetingRetentionDays`; absent: meetings are kept until erased by request. */
  MEETING_RETENTION_DAYS: z.optional(days),
  /** Erasures a retention run queues at most (RETENTION_MAX_MEETINGS_PER_RUN). */
  RETENTION_MAX_MEETINGS: z.coerce.number().check(z.int(), z.positive()),
  ...lakeErasureEnvironmentShape,
});
export type EraseEnvironment = z.infer<typeof eraseEnvironmentSchema>;
