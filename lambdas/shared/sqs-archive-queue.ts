import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { ArchiveJob, ArchiveQueue } from '../core/archive/archive-job';

/** The archive FIFO queue: one message group and one dedup id per bot, so a repeat within 5 minutes is dropped. */
export function sqsArchiveQueue(sqs: SQSClient, queueUrl: string): ArchiveQueue {
  return {
    async send(job: ArchiveJob) {
      await sqs.send(
        new SendMessageCommand({
          QueueUrl: queueUrl,
          MessageBody: JSON.stringify(job),
          MessageGroupId: job.bot_id,
          MessageDeduplicationId: job.bot_id,
        }),
      );
    },
  };
}
