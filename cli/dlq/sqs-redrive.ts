/**
 * Moves a dead-letter queue's messages back to the queue they came from: with SQS's
 * own move task where SQS offers it (AWS), else by receive → send → delete (the
 * local emulator has no move tasks).
 */
import { createHash } from 'node:crypto';
import {
  ListMessageMoveTasksCommand,
  type Message,
  type MessageAttributeValue,
  SendMessageCommand,
  type SQSClient,
  StartMessageMoveTaskCommand,
} from '@aws-sdk/client-sqs';
import { type DrainReport, drainQueue } from './drain';

/** The message as it was sent: body, attributes and, for FIFO, its group. */
export function resendOf(message: Message, destinationUrl: string) {
  const attributes: Record<string, MessageAttributeValue> = {};
  for (const [name, value] of Object.entries(message.MessageAttributes ?? {})) {
    attributes[name] = {
      DataType: value.DataType,
      ...(value.StringValue !== undefined && { StringValue: value.StringValue }),
      ...(value.BinaryValue !== undefined && { BinaryValue: value.BinaryValue }),
    };
  }
  const fifo = destinationUrl.endsWith('.fifo');
  return {
    QueueUrl: destinationUrl,
    MessageBody: message.Body ?? '',
    ...(Object.keys(attributes).length > 0 && { MessageAttributes: attributes }),
    ...(fifo && {
      MessageGroupId: message.Attributes?.MessageGroupId ?? 'redrive',
      // Not the original's: that one may still be inside SQS's 5-minute window and the copy silently dropped.
      // From the DLQ message's id, so a repeat of this redrive is dropped instead.
      MessageDeduplicationId: createHash('sha256')
        .update(`redrive:${message.MessageId ?? ''}`)
        .digest('hex'),
    }),
  };
}

export async function moveByHand(
  sqs: SQSClient,
  dlqUrl: string,
  destinationUrl: string,
  options: { max?: number } = {},
): Promise<DrainReport> {
  return drainQueue(
    sqs,
    dlqUrl,
    async (message) => void (await sqs.send(new SendMessageCommand(resendOf(message, destinationUrl)))),
    options,
  );
}

export type MoveTaskOutcome =
  | { kind: 'finished'; status: string; moved: number; failureReason?: string }
  | { kind: 'unsupported'; reason: string };

/** Errors that mean "no move tasks here" rather than "this move failed". */
const UNSUPPORTED = /Unsupported|InvalidAction|UnknownOperation|NotImplemented|not (?:supported|implemented)/i;

/** Starts SQS's move task back to the DLQ's source queue(s) and waits until it ends. */
export async function moveWithTask(
  sqs: SQSClient,
  dlqArn: string,
  onProgress: (moved: number, toMove: number | undefined) => void,
  pollMs = 2_000,
): Promise<MoveTaskOutcome> {
  let handle: string | undefined;
  try {
    ({ TaskHandle: handle } = await sqs.send(new StartMessageMoveTaskCommand({ SourceArn: dlqArn })));
  } catch (error) {
    const { name, message } = error as Error;
    if (UNSUPPORTED.test(name) || UNSUPPORTED.test(message)) return { kind: 'unsupported', reason: message };
    throw error;
  }
  for (;;) {
    const { Results = [] } = await sqs.send(new ListMessageMoveTasksCommand({ SourceArn: dlqArn, MaxResults: 1 }));
    const task = Results[0];
    const moved = task?.ApproximateNumberOfMessagesMoved ?? 0;
    if (
      task !== undefined &&
      task.Status !== 'RUNNING' &&
      (task.TaskHandle === undefined || task.TaskHandle === handle)
    )
      return {
        kind: 'finished',
        status: task.Status ?? 'UNKNOWN',
        moved,
        ...(task.FailureReason !== undefined && { failureReason: task.FailureReason }),
      };
    onProgress(moved, task?.ApproximateNumberOfMessagesToMove);
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}
