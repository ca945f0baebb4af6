/** The pipeline's dead-letter queues, and where a re-drive sends their messages. */
import { QUEUE_SETTINGS } from '../../lambdas/core/queue/queue-settings';
import { DEAD_LETTER_QUEUE_OUTPUTS } from '../../lambdas/core/stack-outputs';

export const DEAD_LETTER_QUEUES = {
  events: {
    outputName: DEAD_LETTER_QUEUE_OUTPUTS.events,
    holds: `webhooks that failed processing ${QUEUE_SETTINGS.maxReceiveCount} times`,
    redrive: 'events queue',
  },
  archive: {
    outputName: DEAD_LETTER_QUEUE_OUTPUTS.archive,
    holds: `archive jobs that failed ${QUEUE_SETTINGS.archiveMaxReceiveCount} times`,
    redrive: 'archive queue',
  },
  calendar: {
    outputName: DEAD_LETTER_QUEUE_OUTPUTS.calendar,
    holds: 'calendar events not delivered or not applied',
    redrive: 'EventBridge (the original calendar event, put again)',
  },
  erasure: {
    outputName: DEAD_LETTER_QUEUE_OUTPUTS.erasure,
    holds: `erasure jobs (upstream data_deleted, retention, second sweeps) that failed ${QUEUE_SETTINGS.maxReceiveCount} times`,
    redrive: 'erasure queue',
  },
} as const;
export type DeadLetterQueueName = keyof typeof DEAD_LETTER_QUEUES;
export const DEAD_LETTER_QUEUE_NAMES = Object.keys(DEAD_LETTER_QUEUES) as DeadLetterQueueName[];

/** One DLQ as found in a target: SQS-sourced ones go back to their queue, the calendar one to EventBridge. */
export interface DeadLetterQueue {
  name: DeadLetterQueueName;
  url: string;
  /** For StartMessageMoveTask; absent in local mode (the emulator has no move tasks). */
  arn?: string;
  /** The queue it was fed from (SQS-sourced DLQs); absent for the calendar DLQ. */
  sourceQueueUrl?: string;
  /** The calendar DLQ: the bus its events go back to (absent: a stack from before the calendar bus, whose rule is on the default bus). */
  eventBusName?: string;
}
