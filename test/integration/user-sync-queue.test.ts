/** The user-sync fan-out queue through the real SDK client and the SQS emulator: tens, refused entries sent again. */
import { CreateQueueCommand, ReceiveMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UserSyncRequest } from '../../lambdas/core/calendar/company/provider-contract';
import { sqsClient } from '../../lambdas/shared/aws-clients';
import { sqsUserSyncQueue, UserSyncsNotQueuedError } from '../../lambdas/shared/sqs-user-sync-queue';
import { type LocalPipeline, startLocalPipeline } from '../fixtures/local-pipeline';

let pipeline: LocalPipeline;
beforeAll(async () => {
  pipeline = await startLocalPipeline();
});
afterAll(async () => pipeline?.stop());

let queues = 0;
async function newQueue(): Promise<string> {
  const { QueueUrl } = await sqsClient().send(
    new CreateQueueCommand({ QueueName: `user-sync-${process.pid}-${queues++}` }),
  );
  return QueueUrl ?? '';
}

async function drain(queueUrl: string): Promise<UserSyncRequest[]> {
  const found: UserSyncRequest[] = [];
  for (;;) {
    const { Messages = [] } = await sqsClient().send(
      new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, VisibilityTimeout: 300 }),
    );
    if (Messages.length === 0) return found;
    for (const message of Messages) found.push(JSON.parse(message.Body ?? '{}') as UserSyncRequest);
  }
}

const requests = (n: number): UserSyncRequest[] =>
  Array.from({ length: n }, (_, i) => ({ calendar_id: 'acme', user: `user${i}@acme.example`, reason: 'schedule' }));

type Batch = { Entries: Array<{ Id: string }> };
type Answer = {
  Successful?: Array<{ Id: string }>;
  Failed?: Array<{ Id: string; Code: string; SenderFault: boolean }>;
};

/**
 * The real client, whose answers to SendMessageBatch have `refuse(call, entries)` of them marked failed
 * (and not sent): what SQS does when it throttles part of a batch.
 */
function refusingClient(
  refuse: (call: number, entries: Array<{ Id: string }>) => Array<{ Id: string; Code: string; SenderFault: boolean }>,
) {
  const real = sqsClient();
  const batches: number[] = [];
  const client = Object.create(real) as SQSClient;
  client.send = (async (command: { input: Batch }) => {
    const refused = refuse(batches.length + 1, command.input.Entries);
    batches.push(command.input.Entries.length);
    const ids = new Set(refused.map((r) => r.Id));
    const rest = command.input.Entries.filter((e) => !ids.has(e.Id));
    const answer = (
      rest.length === 0
        ? { Successful: [] }
        : await real.send(
            Object.assign(Object.create(Object.getPrototypeOf(command)), command, {
              input: { ...command.input, Entries: rest },
            }),
          )
    ) as Answer;
    return { ...answer, Failed: [...(answer.Failed ?? []), ...refused] };
  }) as SQSClient['send'];
  return { client, batches };
}

describe('user-sync queue', () => {
  it('sends every request once, ten to a call', async () => {
    const queueUrl = await newQueue();
    const { client, batches } = refusingClient(() => []);
    await sqsUserSyncQueue(client, queueUrl).send(requests(23));
    expect(batches).toEqual([10, 10, 3]);
    const received = await drain(queueUrl);
    expect(received.map((r) => r.user).sort()).toEqual(
      requests(23)
        .map((r) => r.user)
        .sort(),
    );
    expect(received[0]).toEqual({ calendar_id: 'acme', user: expect.any(String), reason: 'schedule' });
  });

  it('sends entries SQS refused again, and only those', async () => {
    const queueUrl = await newQueue();
    const { client, batches } = refusingClient((call, entries) =>
      call === 1 ? entries.slice(0, 3).map((e) => ({ Id: e.Id, Code: 'ThrottlingException', SenderFault: false })) : [],
    );
    await sqsUserSyncQueue(client, queueUrl, { attempts: 3, backoffMs: 1 }).send(requests(10));
    expect(batches).toEqual([10, 3]);
    const received = (await drain(queueUrl)).map((r) => r.user);
    expect(received.sort()).toEqual(
      requests(10)
        .map((r) => r.user)
        .sort(),
    );
  });

  it('fails naming the cause when SQS still refuses after every attempt, or at once for a sender fault', async () => {
    const queueUrl = await newQueue();
    const always = refusingClient((_, entries) =>
      entries.slice(0, 1).map((e) => ({ Id: e.Id, Code: 'InternalError', SenderFault: false })),
    );
    const failure = sqsUserSyncQueue(always.client, queueUrl, { attempts: 3, backoffMs: 1 }).send(requests(2));
    await expect(failure).rejects.toThrow(UserSyncsNotQueuedError);
    await expect(failure).rejects.toThrow(/refused 1 user sync request\(s\) after 3 attempt\(s\): InternalError/);
    expect(always.batches).toEqual([2, 1, 1]);

    const sender = refusingClient((_, entries) =>
      entries.slice(0, 1).map((e) => ({ Id: e.Id, Code: 'InvalidMessageContents', SenderFault: true })),
    );
    await expect(
      sqsUserSyncQueue(sender.client, queueUrl, { attempts: 3, backoffMs: 1 }).send(requests(2)),
    ).rejects.toThrow(/InvalidMessageContents/);
    expect(sender.batches).toEqual([2]);
  });
});
