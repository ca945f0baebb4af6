/**
 * Takes the messages off a queue one by one and hands each to `forward`; a message
 * is deleted only after `forward` succeeded, so a crash or a refusal leaves it in
 * the queue (a crash between forwarding and deleting forwards it twice on the next
 * run: every destination here dedups).
 */
import { DeleteMessageCommand, type Message, ReceiveMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';

export interface DrainReport {
  forwarded: string[];
  /** Left in the queue, with the reason. */
  failed: Array<{ messageId: string; reason: string }>;
}

/** Long enough to forward a batch; a message that failed stays hidden this long, so one run never loops on it. */
const VISIBILITY_TIMEOUT_SECONDS = 60;

export async function drainQueue(
  sqs: SQSClient,
  queueUrl: string,
  forward: (message: Message) => Promise<void>,
  options: { max?: number } = {},
): Promise<DrainReport> {
  const report: DrainReport = { forwarded: [], failed: [] };
  const max = options.max ?? Number.POSITIVE_INFINITY;
  while (report.forwarded.length + report.failed.length < max) {
    const { Messages = [] } = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: queueUrl,
        MaxNumberOfMessages: Math.min(10, max - report.forwarded.length - report.failed.length),
        WaitTimeSeconds: 1,
        VisibilityTimeout: VISIBILITY_TIMEOUT_SECONDS,
        MessageAttributeNames: ['All'],
        MessageSystemAttributeNames: ['MessageGroupId', 'MessageDeduplicationId'],
      }),
    );
    if (Messages.length === 0) break;
    for (const message of Messages) {
      const messageId = message.MessageId ?? '?';
      try {
        await forward(message);
      } catch (error) {
        report.failed.push({ messageId, reason: (error as Error).message });
        continue;
      }
      report.forwarded.push(messageId);
      try {
        await sqs.send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: message.ReceiptHandle }));
      } catch (error) {
        // Forwarded but not deleted: it comes back and is forwarded again next time, which the destination dedups.
        report.failed.push({ messageId, reason: `forwarded, but not deleted: ${(error as Error).message}` });
      }
    }
  }
  return report;
}
