/** Queue settings shared by the stack and local mode. */
export const QUEUE_SETTINGS = {
  /** Receives before a message moves to its dead-letter queue. */
  maxReceiveCount: 5,
  /** The archive queue is FIFO so a repeated job for one bot is dropped by SQS's dedup window. */
  archiveQueueFifo: true,
} as const;
