import { DeleteCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordLaunchedMeeting } from '../../lambdas/core/apply/state-change';
import { type ProcessDependencies, processQueuedEvent } from '../../lambdas/core/events/process-event';
import { replayBotEvents } from '../../lambdas/core/events/replay';
import { GSI, keys, SK_PREFIX } from '../../lambdas/core/store/table-layout';
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
import { botItems, meetingItem } from '../fixtures/store-reader';

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

    const report = await replayBotEvents(botId, deps, { rebuild: true, apply: true });
    expect(report).toMatchObject({
      applied: true,
      events: sends.length,
      replayed: sends.length,
      itemsToClear: before.length - 1, // all but the meeting item, whose webhook attributes are cleared
      missingFromLedger: [],
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

    const report = await replayBotEvents(botId, deps, { rebuild: false, apply: true });
    expect(report.failures).toEqual([]);
    expect(await meetingData(botId)).toEqual(before);
  });

  it('writes nothing unless asked to, and says what it would do', async () => {
    const botId = 'bot_replay_dry';
    const { sends } = randomMeeting(botId, 11);
    for (const { payload, sentAtMs } of sends)
      await processQueuedEvent(queuedMessage(payload, new Date(sentAtMs)), deps);
    const lost = (await botItems(resources.tableName, botId, SK_PREFIX.utterance))[0]!;
    await documentClient().send(
      new DeleteCommand({ TableName: resources.tableName, Key: { pk: lost.pk, sk: lost.sk } }),
    );
    const before = await botItems(resources.tableName, botId, '');

    for (const rebuild of [false, true]) {
      const report = await replayBotEvents(botId, deps, { rebuild, apply: false });
      expect(report).toMatchObject({ applied: false, events: sends.length, replayed: 0, missingFromLedger: [] });
      expect(report.itemsToClear).toBe(rebuild ? before.length - 1 : 0);
    }
    expect(await botItems(resources.tableName, botId, '')).toEqual(before);
  });

  it('refuses to rebuild once the ledger holds less than the meeting shows, unless forced', async () => {
    const botId = 'bot_replay_expired';
    const { sends } = randomMeeting(botId, 5);
    for (const { payload, sentAtMs } of sends)
      await processQueuedEvent(queuedMessage(payload, new Date(sentAtMs)), deps);
    // The dedup retention passed for the first three events: their ledger records expired.
    const expired = sends.slice(0, 3).map(({ payload }) => String(payload.idempotency_key));
    for (const key of expired)
      await documentClient().send(new DeleteCommand({ TableName: resources.tableName, Key: keys.event(botId, key) }));
    const before = await botItems(resources.tableName, botId, '');

    const refused = await replayBotEvents(botId, deps, { rebuild: true, apply: true });
    expect(refused.refused).toMatch(/ledger no longer holds/);
    expect(refused.applied).toBe(false);
    expect(new Set(refused.missingFromLedger)).toEqual(new Set(expired));
    expect(await botItems(resources.tableName, botId, '')).toEqual(before);

    const forced = await replayBotEvents(botId, deps, { rebuild: true, apply: true, force: true });
    expect(forced).toMatchObject({ applied: true, replayed: sends.length - 3, failures: [] });
  });

  it('keeps what the webhooks did not write: archive record, final transcript, launch fields, archive marker', async () => {
    const botId = 'bot_replay_archived';
    const { sends } = randomMeeting(botId, 3);
    for (const { payload, sentAtMs } of sends)
      await processQueuedEvent(queuedMessage(payload, new Date(sentAtMs)), deps);
    const db = documentClient();
    const kept = {
      archive: { recordingStatus: 'archived', recording: { key: `meetings/${botId}/recording.mp4` } },
      scheduleId: 'sched_1',
      scheduledJoinAt: '2026-11-20T09:00:00.000Z',
      meetingUrl: 'https://meet.google.com/abc-defg-hij',
      archiveRequested: true,
    };
    await db.send(
      new UpdateCommand({
        TableName: resources.tableName,
        Key: keys.meeting(botId),
        // As the archive leaves it: out of the state index.
        UpdateExpression:
          'SET #archive = :a, scheduleId = :s, scheduledJoinAt = :j, meetingUrl = :u, archiveRequested = :r REMOVE #statePk, #stateSk',
        ExpressionAttributeNames: {
          '#archive': 'archive',
          '#statePk': GSI.byState.partitionKey,
          '#stateSk': GSI.byState.sortKey,
        },
        ExpressionAttributeValues: {
          ':a': kept.archive,
          ':s': kept.scheduleId,
          ':j': kept.scheduledJoinAt,
          ':u': kept.meetingUrl,
          ':r': true,
        },
      }),
    );
    const finalLine = { ...keys.utterance(botId, 999_999, 'p9'), text: 'from the final transcript', finalized: true };
    await db.send(new PutCommand({ TableName: resources.tableName, Item: finalLine }));
    const before = await meetingData(botId);

    const report = await replayBotEvents(botId, deps, { rebuild: true, apply: true });
    expect(report.failures).toEqual([]);
    expect(await meetingItem(resources.tableName, botId)).toMatchObject(kept);
    // Still out of the state index, though the replayed state changes put it there.
    expect(await meetingData(botId)).toEqual(before);
  });

  // The meeting's final state change lands while the rebuild runs, forced through the table client it is given.
  const landsWhen: Record<string, (input: { KeyConditionExpression?: string; UpdateExpression?: string }) => boolean> =
    {
      'before it reads the meeting': (input) => input.KeyConditionExpression === 'pk = :pk',
      'before it clears the meeting': (input) => input.UpdateExpression?.startsWith('REMOVE ') === true,
    };
  it.each(Object.keys(landsWhen))('keeps a webhook applied while the rebuild runs, %s', async (moment) => {
    const botId = `bot_replay_concurrent_${Object.keys(landsWhen).indexOf(moment)}`;
    const { sends, finalState } = randomMeeting(botId, 42);
    const last = sends.findLast(({ payload }) => (payload.data as { new_state?: string }).new_state === finalState)!;
    for (const send of sends.filter((send) => send !== last))
      await processQueuedEvent(queuedMessage(send.payload, new Date(send.sentAtMs)), deps);
    expect(await meetingItem(resources.tableName, botId)).not.toMatchObject({ state: finalState });
    let delivered = false;
    const send = deps.table.db.send.bind(deps.table.db) as (command: unknown) => Promise<unknown>;
    const db = new Proxy(deps.table.db, {
      get(target, name, receiver) {
        if (name !== 'send') return Reflect.get(target, name, receiver);
        return async (command: { input: Parameters<(typeof landsWhen)[string]>[0] }) => {
          if (!delivered && landsWhen[moment]!(command.input)) {
            delivered = true;
            await processQueuedEvent(queuedMessage(last.payload, new Date(last.sentAtMs)), deps);
          }
          return send(command);
        };
      },
    });

    const report = await replayBotEvents(
      botId,
      { ...deps, table: { ...deps.table, db } },
      { rebuild: true, apply: true },
    );
    expect(delivered).toBe(true);
    expect(report).toMatchObject({ applied: true, missingFromLedger: [], failures: [] });
    expect(report.refused).toBeUndefined();
    expect(await meetingItem(resources.tableName, botId)).toMatchObject({ state: finalState });
  });

  it('keeps a launched meeting never heard from visible to the reconciler', async () => {
    const botId = 'bot_replay_launched';
    await recordLaunchedMeeting(deps.table, {
      botId,
      scheduleId: 'sched_silent',
      joinAt: '2026-11-20T09:00:00.000Z',
      meetingUrl: 'https://meet.google.com/abc-defg-hij',
      state: 'scheduled',
    });
    const before = await meetingItem(resources.tableName, botId);
    expect(before).toMatchObject({
      state: 'scheduled',
      [GSI.byState.partitionKey]: keys.meetingsInState('scheduled', botId),
    });

    const report = await replayBotEvents(botId, deps, { rebuild: true, apply: true });
    expect(report).toMatchObject({ applied: true, events: 0, failures: [] });
    expect(await meetingItem(resources.tableName, botId)).toEqual(before);
  });
});
