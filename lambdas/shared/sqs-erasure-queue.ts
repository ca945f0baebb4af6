import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { ErasureQueue } from '../core/erase/erasure-job';

/** The erasure queue (standard: every job is idempotent, so a duplicate does no harm). */
export function sqsErasureQueue(sqs: SQSClient, queueUrl: string): ErasureQueue {
  return {
    async send(job, delaySeconds) {
      await sqs.send(
        new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify(job), DelaySeconds: delaySeconds }),
      );
    },
  };
}
