import { GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';

/** True once a queue holds no message: none visible, none being handled (in flight) and none delayed. */
export async function queueEmpty(sqs: SQSClient, queueUrl: string): Promise<boolean> {
  const { Attributes = {} } = await sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: queueUrl,
      AttributeNames: [
        'ApproximateNumberOfMessages',
        'ApproximateNumberOfMessagesNotVisible',
        'ApproximateNumberOfMessagesDelayed',
      ],
    }),
  );
  return Object.values(Attributes).every((count) => count === '0');
}
