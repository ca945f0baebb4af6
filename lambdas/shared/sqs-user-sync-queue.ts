import { SendMessageBatchCommand, type SendMessageBatchRequestEntry, type SQSClient } from '@aws-sdk/client-sqs';
import type { UserSyncQueue, UserSyncRequest, UserSyncSendOptions } from '../core/calendar/company/provider-contract';

/** SendMessageBatch takes at most ten entries. */
export const SQS_BATCH_ENTRIES = 10;

export interface UserSyncQueueRetry {
  /** SendMessageBatch calls per ten, the first included, while SQS refuses some of its entries. */
  attempts: number;
  /** Wait before the second call; doubles after each. */
  backoffMs: number;
}

const DEFAULT_RETRY: UserSyncQueueRetry = { attempts: 3, backoffMs: 100 };

/** Entries SQS still refused after every attempt: the caller's run fails, and the next run asks again. */
export class UserSyncsNotQueuedError extends Error {
  override name = 'UserSyncsNotQueuedError';
}

/**
 * The user-sync fan-out queue (standard: a user's sync takes the user's lease, so a
 * duplicate message costs one listing and changes nothing). Sent in tens; SQS answers
 * 200 with some entries refused (throttled, internal), and only those are sent again.
 */
export function sqsUserSyncQueue(
  sqs: SQSClient,
  queueUrl: string,
  retry: UserSyncQueueRetry = DEFAULT_RETRY,
): UserSyncQueue {
  return {
    async send(requests: readonly UserSyncRequest[], options: UserSyncSendOptions = {}) {
      for (let start = 0; start < requests.length; start += SQS_BATCH_ENTRIES) {
        const entries = requests.slice(start, start + SQS_BATCH_ENTRIES).map(
          (request, i): SendMessageBatchRequestEntry => ({
            Id: String(i),
            MessageBody: JSON.stringify(request),
            ...(options.delaySeconds !== undefined && { DelaySeconds: options.delaySeconds }),
          }),
        );
        await sendBatch(sqs, queueUrl, entries, retry);
      }
    },
  };
}

async function sendBatch(
  sqs: SQSClient,
  queueUrl: string,
  entries: SendMessageBatchRequestEntry[],
  retry: UserSyncQueueRetry,
): Promise<void> {
  let pending = entries;
  let reasons: string[] = [];
  for (let attempt = 1; attempt <= retry.attempts; attempt++) {
    if (attempt > 1) await new Promise((resolve) => setTimeout(resolve, retry.backoffMs * 2 ** (attempt - 2)));
    const answer = await sqs.send(new SendMessageBatchCommand({ QueueUrl: queueUrl, Entries: pending }));
    const failed = answer.Failed ?? [];
    if (failed.length === 0) return;
    // A sender's fault (a malformed entry) will not pass on a second try either.
    const senderFault = failed.find((entry) => entry.SenderFault === true);
    reasons = failed.map((entry) => `${entry.Code ?? 'unknown'}${entry.Message ? `: ${entry.Message}` : ''}`);
    if (senderFault !== undefined) break;
    const refused = new Set(failed.map((entry) => entry.Id));
    pending = pending.filter((entry) => refused.has(entry.Id));
  }
  throw new UserSyncsNotQueuedError(
    `SQS refused ${reasons.length} user sync request(s) after ${retry.attempts} attempt(s): ${[...new Set(reasons)].join('; ')}`,
  );
}
