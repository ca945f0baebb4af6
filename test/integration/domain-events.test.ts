/**
 * Domain events of applied webhooks, at least once: PutEvents failing after the
 * change is applied fails the message, and its redelivery publishes the same
 * events (the same ids) while the table holds the change once. Also: a published
 * event whose answer was lost is published again under the same id, and a
 * summary refused as older publishes nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { domainEvents } from '../../lambdas/core/domain-events/catalogue';
import { processQueuedEvent, type QueuedMessage } from '../../lambdas/core/events/process-event';
import { outcomeSentence } from '../../lambdas/core/outcome/outcome-reasons';
import { silentTelemetry } from '../../lambdas/core/telemetry';
import type { LocalResources } from '../../local/resources';
import { stateChange, summaryUpdate } from '../../local/simulator/payloads';
import { type TestEventLog, testEventLog } from '../fixtures/event-log';
import { entryProblems } from '../fixtures/event-schemas';
import { type FaultMode, faultyMethods } from '../fixtures/faulty-client';
import {
  createResources,
  type LocalPipeline,
  processDependencies,
  queuedMessage,
  startLocalPipeline,
} from '../fixtures/local-pipeline';
import { archiveJobsByBot } from '../fixtures/queues';
import { botItems, summaryItem } from '../fixtures/store-reader';

const T0 = Date.parse('2026-11-20T10:00:00Z');

let pipeline: LocalPipeline;
let resources: LocalResources;
beforeAll(async () => {
  pipeline = await startLocalPipeline();
  resources = await createResources();
});
afterAll(async () => pipeline?.stop());

/** The processing core publishing through local mode's publisher, whose first `publish` fails as `mode` says. */
function faultyPublishing(mode: FaultMode) {
  const log = testEventLog();
  const events = faultyMethods(log.publisher, ['publish']);
  events.reset({ failAt: 1, mode });
  return { log, deps: processDependencies(resources, silentTelemetry, { events: events.client }) };
}

/** Delivers the message until it succeeds (at most three times); each failed delivery is counted. */
async function deliverUntilDone(message: QueuedMessage, deps: ReturnType<typeof faultyPublishing>['deps']) {
  const failures: unknown[] = [];
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      return { outcome: await processQueuedEvent(message, deps), failures };
    } catch (error) {
      failures.push(error);
    }
  }
  throw new Error(`still failing: ${String(failures.at(-1))}`);
}

const ids = (log: TestEventLog) => log.events().map((e) => `${e.detailType} ${String(e.detail.event_id)}`);

describe.each<FaultMode>(['before', 'after'])('PutEvents fails after the apply (%s it reached EventBridge)', (mode) => {
  it('a state change to ended: its redelivery publishes state_changed, ended and outcome, the table holds it once', async () => {
    const bot = `bot_ended_${mode}`;
    const key = `${bot}-ended`;
    const created = (T0 + 30_000) * 1000;
    const payload = stateChange(
      bot,
      {
        oldState: 'post_processing',
        newState: 'ended',
        eventType: 'post_processing_completed',
        createdAtMicros: created,
      },
      { idempotencyKey: key },
    );
    const { log, deps } = faultyPublishing(mode);
    const message = queuedMessage(payload, new Date(T0 + 31_000), { recorded: true });
    const { outcome, failures } = await deliverUntilDone(message, deps);
    expect(failures).toHaveLength(1);
    expect(outcome.status).toBe('applied');
    // A further redelivery (the ledger completed it) publishes nothing more.
    expect((await processQueuedEvent(message, deps)).status).toBe('duplicate');

    const changedAt = '2026-11-20T10:00:30+00:00';
    const expected = [
      domainEvents.stateChanged(key, {
        bot_id: bot,
        old_state: 'post_processing',
        new_state: 'ended',
        changed_at: changedAt,
        event_type: 'post_processing_completed',
        event_sub_type: null,
        observed_by: 'webhook',
      }),
      domainEvents.ended({ bot_id: bot, final_state: 'ended', ended_at: changedAt }),
      // Over, and no join was ever heard of: nothing was recorded.
      domainEvents.outcome({
        bot_id: bot,
        status: 'missed',
        reason: 'no_join_reported',
        sentence: outcomeSentence('no_join_reported'),
      }),
    ].map((e) => `${e.detailType} ${e.detail.event_id}`);
    // Lost after it reached EventBridge: published twice, under the same ids (consumers dedup by them).
    expect(ids(log)).toEqual(mode === 'before' ? expected : [...expected, ...expected]);
    for (const entry of log.entries()) expect(entryProblems(entry)).toEqual([]);

    expect(await botItems(resources.tableName, bot, 'STATE#')).toHaveLength(1);
    expect((await archiveJobsByBot(resources.archiveQueueUrl)).get(bot)).toBe(1);
  });

  it('a summary: its redelivery finds it applied ("seen before") and still publishes summary.ready', async () => {
    const bot = `bot_summary_${mode}`;
    const key = `${bot}-summary`;
    const receivedAt = new Date(T0 + 40_000).toISOString();
    const { log, deps } = faultyPublishing(mode);
    const message = queuedMessage(summaryUpdate(bot, 'Ship on Thursday.', { idempotencyKey: key }), receivedAt, {
      recorded: true,
    });
    const { outcome, failures } = await deliverUntilDone(message, deps);
    expect(failures).toHaveLength(1);
    expect(outcome.status).toBe('duplicate');

    const expected = domainEvents.summaryReady(key, { bot_id: bot, summary_bytes: 17, received_at: receivedAt });
    const id = `${expected.detailType} ${expected.detail.event_id}`;
    expect(ids(log)).toEqual(mode === 'before' ? [id] : [id, id]);
    expect(JSON.parse(log.entries()[0]!.Detail)).toEqual(expected.detail);
    expect(await summaryItem(resources.tableName, bot)).toMatchObject({
      summary: 'Ship on Thursday.',
      summaryKeys: new Set([key]),
    });
  });
});

it('a summary refused as older than the stored one publishes nothing, on any delivery', async () => {
  const bot = 'bot_summary_older';
  const log = testEventLog();
  const deps = processDependencies(resources, silentTelemetry, { events: log.publisher });
  const newer = queuedMessage(summaryUpdate(bot, 'newer', { idempotencyKey: 'k-new' }), new Date(T0 + 60_000), {
    recorded: true,
  });
  const older = queuedMessage(summaryUpdate(bot, 'older', { idempotencyKey: 'k-old' }), new Date(T0 + 50_000), {
    recorded: true,
  });
  await processQueuedEvent(newer, deps);
  await processQueuedEvent(older, deps);
  await processQueuedEvent(older, deps);
  await processQueuedEvent(newer, deps);
  expect(log.events().map((e) => e.detail.bot_id)).toEqual([bot, bot]);
  expect(new Set(ids(log)).size).toBe(1);
});
