/**
 * A poller runs as many handler invocations at once as its event source's maximum concurrency
 * (local mode's user-sync consumer), and a queue counts as empty only with nothing visible, in
 * flight or delayed (a request sent back with DelaySeconds is still to come).
 */
import { CreateQueueCommand, SendMessageBatchCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_CLIENT_TIMEOUTS, sqsClient } from '../../lambdas/shared/aws-clients';
import { queueEmpty } from '../../local/queue-empty';
import { LONG_POLL_SECONDS, QueuePoller } from '../../local/queue-poller';
import { type LocalPipeline, startLocalPipeline } from '../fixtures/local-pipeline';

let pipeline: LocalPipeline;
beforeAll(async () => {
  pipeline = await startLocalPipeline();
});
afterAll(async () => pipeline?.stop());

let queues = 0;
async function newQueue(): Promise<string> {
  const { QueueUrl } = await sqsClient().send(
    new CreateQueueCommand({ QueueName: `poller-concurrency-${process.pid}-${queues++}` }),
  );
  return QueueUrl ?? '';
}

const longPolling = () => sqsClient({ ...DEFAULT_CLIENT_TIMEOUTS, requestTimeoutMs: (LONG_POLL_SECONDS + 5) * 1000 });

describe('queue poller concurrency', () => {
  it('with concurrency 3, three one-message batches are handled at the same time', async () => {
    const queueUrl = await newQueue();
    let inFlight = 0;
    let most = 0;
    let releaseAll = () => {};
    const allIn = new Promise<void>((resolve) => {
      releaseAll = resolve;
    });
    const poller = new QueuePoller({
      sqs: longPolling(),
      queueUrl,
      batchSize: 1,
      concurrency: 3,
      waitTimeSeconds: 1,
      handler: async () => {
        inFlight += 1;
        most = Math.max(most, inFlight);
        // Each invocation waits for the third: one loop alone would never get there.
        if (inFlight === 3) releaseAll();
        await Promise.race([allIn, new Promise((resolve) => setTimeout(resolve, 5_000))]);
        inFlight -= 1;
        return { batchItemFailures: [] };
      },
    });
    await sqsClient().send(
      new SendMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: [0, 1, 2].map((i) => ({ Id: String(i), MessageBody: `m${i}` })),
      }),
    );
    poller.start();
    try {
      while (!(await queueEmpty(sqsClient(), queueUrl))) await new Promise((resolve) => setTimeout(resolve, 25));
    } finally {
      await poller.stop();
    }
    expect(most).toBe(3);
  });

  it('refuses a concurrency that is not a whole number of at least 1', () => {
    expect(
      () =>
        new QueuePoller({
          sqs: sqsClient(),
          queueUrl: 'http://127.0.0.1/q',
          handler: async () => undefined,
          concurrency: 0,
        }),
    ).toThrow(/concurrency must be a whole number of at least 1, not 0/);
  });

  it('a delayed message keeps the queue from counting as empty, and is not received before its delay', async () => {
    const queueUrl = await newQueue();
    await sqsClient().send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: 'later', DelaySeconds: 2 }));
    expect(await queueEmpty(sqsClient(), queueUrl)).toBe(false);
    const received: string[] = [];
    const poller = new QueuePoller({
      sqs: longPolling(),
      queueUrl,
      handler: async (event) => {
        for (const record of event.Records) received.push(record.body);
        return undefined;
      },
    });
    expect(await poller.pollOnce(0)).toBe(0);
    while (!(await queueEmpty(sqsClient(), queueUrl))) await poller.pollOnce(1);
    expect(received).toEqual(['later']);
  });
});
