/** Re-driving a dead-letter queue: for `dlq redrive` and the console. */
import type { sqsClient } from '../../lambdas/shared/aws-clients';
import { redriveCalendarEvents } from './calendar-redrive';
import type { DeadLetterQueue, DeadLetterQueueName } from './dead-letter-queues';
import type { DrainReport } from './drain';
import { moveByHand, moveWithTask } from './sqs-redrive';

export interface RedriveOutcome {
  name: DeadLetterQueueName;
  via: 'move-task' | 'receive-send-delete' | 'put-events';
  moved: number;
  failed: DrainReport['failed'];
}

/** Sends a dead-letter queue's messages back where they came from; `progress` hears the move task's steps. */
export async function redriveDeadLetters(
  queue: DeadLetterQueue,
  sqs: ReturnType<typeof sqsClient>,
  options: { max?: number },
  progress: (line: string) => void = () => {},
): Promise<RedriveOutcome> {
  const outcome = (via: RedriveOutcome['via'], report: DrainReport): RedriveOutcome => ({
    name: queue.name,
    via,
    moved: report.forwarded.length,
    failed: report.failed,
  });
  if (queue.sourceQueueUrl === undefined)
    return outcome(
      'put-events',
      await redriveCalendarEvents(sqs, queue.url, {
        ...options,
        ...(queue.eventBusName !== undefined && { eventBusName: queue.eventBusName }),
      }),
    );
  if (queue.arn !== undefined && options.max === undefined) {
    const task = await moveWithTask(sqs, queue.arn, (moved, toMove) => {
      progress(`  moving: ${moved}${toMove === undefined ? '' : ` of ${toMove}`}`);
    });
    if (task.kind === 'finished') {
      const failed =
        task.status === 'COMPLETED'
          ? []
          : [{ messageId: '-', reason: `move task ${task.status}: ${task.failureReason ?? ''}` }];
      return { name: queue.name, via: 'move-task', moved: task.moved, failed };
    }
    progress(`SQS move tasks unavailable here (${task.reason}); moving message by message`);
  }
  return outcome('receive-send-delete', await moveByHand(sqs, queue.url, queue.sourceQueueUrl, options));
}
