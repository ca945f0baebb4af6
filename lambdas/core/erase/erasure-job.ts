/**
 * A message on the erasure queue, consumed by the erase function: an erasure to run
 * (the service said `data_deleted`, or the retention run found the meeting too old), or
 * the delayed second sweep of one that ran.
 */
import * as z from 'zod/mini';
import { ERASURE_REASONS } from './receipt';

export const erasureJobSchema = z.union([
  z.object({ kind: z.literal('erase'), bot_id: z.string().check(z.minLength(1)), reason: z.enum(ERASURE_REASONS) }),
  z.object({ kind: z.literal('resweep'), bot_id: z.string().check(z.minLength(1)) }),
]);
export type ErasureJob = z.infer<typeof erasureJobSchema>;

/** Where erasure jobs go: SQS in AWS and local mode. */
export interface ErasureQueue {
  /** `delaySeconds`: at most 900 (SQS's limit). */
  send(job: ErasureJob, delaySeconds?: number): Promise<void>;
}

/**
 * How long after an erasure the second sweep runs: past the longest any writer that
 * read "no tombstone" can still be writing (the consumer's and the archive's timeouts),
 * within SQS's 15-minute delay limit.
 */
export const RESWEEP_DELAY_SECONDS = 900;

/** The input the daily retention rule invokes the erase function with (lib/erasure.ts). */
export const RETENTION_RUN_EVENT = { kind: 'retention-run' } as const;
