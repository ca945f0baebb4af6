/**
 * Runs an SQS-triggered handler the way Lambda's event source mapping does:
 * receive a batch, invoke, delete the records that succeeded. Failed records (or
 * the whole batch, if the handler throws) stay on the queue, come back after the
 * visibility timeout and move to the DLQ after maxReceiveCount receives.
 *
 * Like Lambda's pollers it long-polls: a receive waits up to 20 s on an empty queue and answers as soon as a
 * message arrives, so an idle stack makes one request per queue every 20 s, not several a second.
 */
import { DeleteMessageBatchCommand, type Message, ReceiveMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { required } from '../lambdas/core/required';

/** The longest wait SQS allows a receive, and what Lambda's pollers use. */
export const LONG_POLL_SECONDS = 20;

export type SqsHandler = (event: SQSEvent) => Promise<SQSBatchResponse | undefined>;

export interface QueuePollerOptions {
  sqs: SQSClient;
  queueUrl: string;
  handler: SqsHandler;
  batchSize?: number;
  /** How long a receive in the running loop waits on an empty queue (default LONG_POLL_SECONDS). */
  waitTimeSeconds?: number;
  /** Batches handled at once, each by its own receive loop: the event source's maximum concurrency. Default 1. */
  concurrency?: number;
}

export class QueuePoller {
  private running = false;
  private loops: Array<Promise<void>> = [];
  /** Ends the receive in flight when the poller stops, rather than waiting out its long poll. */
  private abort = new AbortController();

  constructor(private readonly options: QueuePollerOptions) {
    const concurrency = options.concurrency ?? 1;
    if (!Number.isInteger(concurrency) || concurrency < 1)
      throw new RangeError(`concurrency must be a whole number of at least 1, not ${concurrency}`);
  }

  /** Receives one batch and hands it to the handler; returns how many messages came. */
  async pollOnce(waitTimeSeconds = this.options.waitTimeSeconds ?? 0): Promise<number> {
    const { sqs, queueUrl } = this.options;
    const { Messages = [] } = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: queueUrl,
        MaxNumberOfMessages: this.options.batchSize ?? 10,
        WaitTimeSeconds: waitTimeSeconds,
        MessageAttributeNames: ['All'],
        MessageSystemAttributeNames: ['All'],
      }),
      { abortSignal: this.abort.signal },
    );
    if (Messages.length === 0) return 0;
    let failed: Set<string>;
    try {
      const response = await this.options.handler({ Records: Messages.map((m) => toRecord(m, queueUrl)) });
      failed = new Set((response?.batchItemFailures ?? []).map((f) => f.itemIdentifier));
    } catch {
      failed = new Set(Messages.map((m) => messageId(m)));
    }
    const done = Messages.filter((m) => !failed.has(messageId(m)));
    if (done.length > 0) {
      await sqs.send(
        new DeleteMessageBatchCommand({
          QueueUrl: queueUrl,
          Entries: done.map((m, i) => ({ Id: String(i), ReceiptHandle: receiptHandle(m) })),
        }),
      );
    }
    return Messages.length;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.abort = new AbortController();
    const loop = async () => {
      while (this.running) {
        try {
          await this.pollOnce(this.options.waitTimeSeconds ?? LONG_POLL_SECONDS);
        } catch {
          if (this.running) await new Promise((resolve) => setTimeout(resolve, 200));
        }
      }
    };
    this.loops = Array.from({ length: this.options.concurrency ?? 1 }, loop);
  }

  /** Ends the receives waiting; batches being handled finish first (their messages deleted as usual). */
  async stop(): Promise<void> {
    this.running = false;
    this.abort.abort();
    await Promise.all(this.loops);
    this.loops = [];
    this.abort = new AbortController();
  }
}

function toRecord(message: Message, queueUrl: string): SQSRecord {
  const attributes = message.Attributes ?? {};
  const messageAttributes: SQSRecord['messageAttributes'] = {};
  for (const [name, value] of Object.entries(message.MessageAttributes ?? {})) {
    messageAttributes[name] = {
      dataType: value.DataType ?? 'String',
      stringValue: value.StringValue,
      stringListValues: [],
      binaryListValues: [],
    };
  }
  return {
    messageId: messageId(message),
    receiptHandle: receiptHandle(message),
    body: message.Body ?? '',
    attributes: {
      // Every system attribute the receive returned: a FIFO queue's MessageGroupId, SequenceNumber… as Lambda passes them.
      ...attributes,
      ApproximateReceiveCount: attributes.ApproximateReceiveCount ?? '1',
      SentTimestamp: attributes.SentTimestamp ?? String(Date.now()),
      SenderId: attributes.SenderId ?? 'local',
      ApproximateFirstReceiveTimestamp: attributes.ApproximateFirstReceiveTimestamp ?? String(Date.now()),
    },
    messageAttributes,
    md5OfBody: message.MD5OfBody ?? '',
    eventSource: 'aws:sqs',
    eventSourceARN: `arn:aws:sqs:local:000000000000:${queueUrl.split('/').pop()}`,
    awsRegion: 'local',
  };
}

const messageId = (message: Message): string => required(message.MessageId, 'ReceiveMessage MessageId');
const receiptHandle = (message: Message): string => required(message.ReceiptHandle, 'ReceiveMessage ReceiptHandle');
