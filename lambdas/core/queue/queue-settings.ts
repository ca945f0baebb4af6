/** Queue settings shared by the stack and local mode. */
export const QUEUE_SETTINGS = {
  /** Receives before a message moves to its dead-letter queue. */
  maxReceiveCount: 5,
  /**
   * Receives of an archive job before its DLQ: a job waiting for a crashed meeting's
   * recording uses up to 4 (2, 4, 8, 16 minutes), leaving 4 for real failures.
   */
  archiveMaxReceiveCount: 8,
  /** The archive queue is FIFO so a repeated job for one bot is dropped by SQS's dedup window. */
  archiveQueueFifo: true,
  /**
   * How long a delivery's claim on an event keeps other deliveries of it away: it
   * outlives any one processing attempt (the consumer's timeout) and lapses before
   * SQS redelivers the message (the visibility timeout); lib/event-processing.ts checks both.
   */
  eventLeaseSeconds: 60,
} as const;
