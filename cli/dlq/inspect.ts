/** How full a dead-letter queue is, and one message to show what it holds. */
import {
  ChangeMessageVisibilityCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';

export interface QueueDepth {
  /** Waiting (approximate, as SQS counts). */
  messages: number;
  /** Received by someone and not yet deleted or returned. */
  inFlight: number;
  sample: { messageId: string; body: string } | null;
}

export async function inspectQueue(sqs: SQSClient, queueUrl: string): Promise<QueueDepth> {
  const { Attributes = {} } = await sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: queueUrl,
      AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
    }),
  );
  const messages = Number(Attributes.ApproximateNumberOfMessages ?? 0);
  let sample: QueueDepth['sample'] = null;
  if (messages > 0) {
    // A peek: hidden for a moment, then handed back at once. It counts as a receive, which a DLQ
    // (no redrive policy of its own) ignores.
    const { Messages = [] } = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: queueUrl,
        MaxNumberOfMessages: 1,
        VisibilityTimeout: 5,
        WaitTimeSeconds: 0,
      }),
    );
    const first = Messages[0];
    if (first !== undefined) {
      sample = { messageId: first.MessageId ?? '?', body: first.Body ?? '' };
      await sqs.send(
        new ChangeMessageVisibilityCommand({
          QueueUrl: queueUrl,
          ReceiptHandle: first.ReceiptHandle,
          VisibilityTimeout: 0,
        }),
      );
    }
  }
  return { messages, inFlight: Number(Attributes.ApproximateNumberOfMessagesNotVisible ?? 0), sample };
}
