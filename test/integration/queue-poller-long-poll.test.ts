/**
 * Local mode's queue pollers long-poll as Lambda's do: an idle queue costs one receive per 20 s, a message sent
 * while a receive waits is handed over by that same receive, and stopping ends the wait at once.
 */
import { ReceiveMessageCommand, SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { SQSEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_CLIENT_TIMEOUTS, sqsClient } from '../../lambdas/shared/aws-clients';
import { LONG_POLL_SECONDS, QueuePoller } from '../../local/queue-poller';
import type { LocalResources } from '../../local/resources';
import { createResources, type LocalPipeline, startLocalPipeline } from '../fixtures/local-pipeline';

let pipeline: LocalPipeline;
let resources: LocalResources;
beforeAll(async () => {
  pipeline = await startLocalPipeline();
  resources = await createResources();
});
afterAll(async () => pipeline?.stop());

/** An SQS client that tells of each ReceiveMessage it sends. */
function watchedClient(onReceive: (waitTimeSeconds: number | undefined) => void): SQSClient {
  const client = sqsClient({ ...DEFAULT_CLIENT_TIMEOUTS, requestTimeoutMs: (LONG_POLL_SECONDS + 5) * 1000 });
  const send = client.send.bind(client) as (command: unknown, options?: unknown) => Promise<unknown>;
  Object.assign(client, {
    send: (command: unknown, options?: unknown) => {
      if (command instanceof ReceiveMessageCommand) onReceive(command.input.WaitTimeSeconds);
      return send(command, options);
    },
  });
  return client;
}

describe('queue poller', () => {
  it('long-polls: the waiting receive hands over a message sent during it, and stop ends the wait', {
    timeout: 10_000,
  }, async () => {
    const waits: Array<number | undefined> = [];
    let receiving: () => void = () => {};
    let handle: (event: { event: SQSEvent; receives: number }) => void = () => {};
    const handled = new Promise<{ event: SQSEvent; receives: number }>((resolve) => (handle = resolve));
    const poller = new QueuePoller({
      sqs: watchedClient((wait) => {
        waits.push(wait);
        receiving();
      }),
      queueUrl: resources.eventsQueueUrl,
      handler: async (event) => {
        handle({ event, receives: waits.length });
        return undefined;
      },
    });
    const firstReceive = new Promise<void>((resolve) => (receiving = resolve));
    poller.start();
    await firstReceive;
    await sqsClient().send(new SendMessageCommand({ QueueUrl: resources.eventsQueueUrl, MessageBody: 'after idle' }));

    const { event, receives } = await handled;
    expect(event.Records.map((record) => record.body)).toEqual(['after idle']);
    // The receive that was waiting when the message came is the one that delivered it.
    expect(receives).toBe(1);
    expect(waits[0]).toBe(LONG_POLL_SECONDS);

    // The next receive waits up to 20 s on the now empty queue: stop must not wait it out (the test's limit is 10 s).
    await poller.stop();
    expect(waits.every((wait) => wait === LONG_POLL_SECONDS)).toBe(true);
  });
});
