/** The message on the archive queue (FIFO, one message group and dedup id per bot). */
import * as z from 'zod/mini';

export const archiveJobSchema = z.object({
  bot_id: z.string().check(z.minLength(1)),
  /** The final state that made the meeting archivable. */
  reason: z.string(),
});
export type ArchiveJob = z.infer<typeof archiveJobSchema>;

export interface ArchiveQueue {
  /** Queues the job; SQS drops a repeat for the same bot within its 5-minute dedup window. */
  send(job: ArchiveJob): Promise<void>;
}
