import * as z from 'zod/mini';

/** Environment the lake compaction function is deployed with (set by the lake's construct). */
export const lakeCompactionEnvironmentSchema = z.object({
  TABLE_NAME: z.string().check(z.minLength(1)),
  /** The stack's bucket, whose `lake/` holds the lake. */
  LAKE_BUCKET: z.string().check(z.minLength(1)),
  /** `LakeSettings.compactAfterHours`: a day is compacted once it ended this long ago. */
  COMPACT_AFTER_HOURS: z.coerce.number().check(z.int(), z.nonnegative()),
});
export type LakeCompactionEnvironment = z.infer<typeof lakeCompactionEnvironmentSchema>;
