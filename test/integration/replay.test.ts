import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ProcessDependencies, processQueuedEvent } from '../../lambdas/core/events/process-event';
import { replayBotEvents } from '../../lambdas/core/events/replay';
import { SK_PREFIX } from '../../lambdas/core/store/table-layout';
import { documentClient } from '../../lambdas/shared/dynamo-client';
import type { LocalResources } from '../../local/resources';
import {
  createResources,
  type LocalPipeline,
  processDependencies,
  queuedMessage,
  startLocalPipeline,
} from '../fixtures/local-pipeline';
import { randomMeeting } from '../fixtures/random-meeting';
import { botItems } from '../fixtures/store-reader';

let pipeline: LocalPipeline;
let resources: LocalResources;
let deps: ProcessDependencies;

beforeAll(async () => {
  pipeline = await startLocalPipeline();
  resources = await createResources();
  deps = processDependencies(resources);
});
afterAll(async () => pipeline?.stop());

const BOOKKEEPING = ['version', 'summaryVersion', 'appliedKeys', 'summaryKeys'];
const meetingData = async (botId: string) =>
  (await botItems(resources.tableName, botId, '')).map((item) =>
    Object.fromEntries(Object.entries(item).filter(([k]) => !BOOKKEEPING.includes(k))),
  );

describe('replaying a bot from the ledger', () => {
  it('rebuilds a meeting exactly from its stored events', async () => {
    const botId = 'bot_replay';
    const { sends } = randomMeeting(botId, 42);
    for (const { payload, sentAtMs } of sends)
      await processQueuedEvent(queuedMessage(payload, new Date(sentAtMs)), deps);
    const before = await meetingData(botId);
    expect(before.length).toBeGreaterThan(10);

    const report = await replayBotEvents(botId, deps, { rebuild: true });
    expect(report).toMatchObject({
      events: sends.length,
      replayed: sends.length,
      deletedItems: before.length,
      failures: [],
    });
    expect(await meetingData(botId)).toEqual(before);
  });

  it('restores missing items without touching the rest', async () => {
    const botId = 'bot_replay_partial';
    const { sends } = randomMeeting(botId, 7);
    for (const { payload, sentAtMs } of sends)
      await processQueuedEvent(queuedMessage(payload, new Date(sentAtMs)), deps);
    const before = await meetingData(botId);
    const lost = [
      ...(await botItems(resources.tableName, botId, SK_PREFIX.utterance)),
      ...(await botItems(resources.tableName, botId, 'PART#')),
    ];
    expect(lost.length).toBeGreaterThan(2);
    for (const item of lost)
      await documentClient().send(
        new DeleteCommand({ TableName: resources.tableName, Key: { pk: item.pk, sk: item.sk } }),
      );
    expect((await meetingData(botId)).length).toBe(before.length - lost.length);

    const report = await replayBotEvents(botId, deps, { rebuild: false });
    expect(report.failures).toEqual([]);
    expect(await meetingData(botId)).toEqual(before);
  });
});
