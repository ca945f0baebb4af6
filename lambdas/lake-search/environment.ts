import * as z from 'zod/mini';

/** Environment the lake search function is deployed with (set by lib/meetings-lake.ts). */
export const lakeSearchEnvironmentSchema = z.object({
  /** The Athena workgroup that enforces the result location and the bytes-scanned cutoff. */
  LAKE_WORKGROUP: z.string().check(z.minLength(1)),
  /** The Glue database of the lake's tables and views. */
  LAKE_DATABASE: z.string().check(z.minLength(1)),
  /** How long a route waits for Athena before answering 202 (under the HTTP API's 30 s). */
  QUERY_WAIT_MS: z.coerce.number().check(z.int(), z.positive(), z.lte(28_000)),
});
export type LakeSearchEnvironment = z.infer<typeof lakeSearchEnvironmentSchema>;
