/**
 * Property: a meeting's webhooks, each delivered 1–3 times and processed in random
 * order (ten at a time, as a Lambda batch), leave exactly the store that a single
 * in-order delivery leaves. Retries reach the ingress within seconds of the send;
 * a corrected utterance is sent later than that, so arrival time orders it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  EventBusyError,
  type ProcessDependencies,
  processQueuedEvent,
  type QueuedMessage,
} from '../../lambdas/core/events/process-event';
import type { LocalResources } from '../../local/resources';
import { seededRandom } from '../../local/seeded-random';
import {
  createResources,
  type LocalPipeline,
  processDependencies,
  queuedMessage,
  startLocalPipeline,
} from '../fixtures/local-pipeline';
import { archiveJobsByBot } from '../fixtures/queues';
import { randomMeeting } from '../fixtures/random-meeting';
import { botItems } from '../fixtures/store-reader';

const SEEDS = 100;
/** Which delivery of a newest-wins value was written, and which keys touched it, is bookkeeping, not meeting data. */
const BOOKKEEPING = new Set(['version', 'summaryVersion', 'appliedKeys', 'summaryKeys']);

let pipeline: LocalPipeline;
let inOrder: { resources: LocalResources; deps: ProcessDependencies };
let shuffled: { resources: LocalResources; deps: ProcessDependencies };

beforeAll(async () => {
  pipeline = await startLocalPipeline();
  const [a, b] = await Promise.all([createResources(), createResources()]);
  inOrder = { resources: a, deps: processDependencies(a) };
  shuffled = { resources: b, deps: processDependencies(b) };
});
afterAll(async () => pipeline?.stop());

async function meetingStore(tableName: string, botId: string) {
  const items = await botItems(tableName, botId, '');
  return items.map((item) => Object.fromEntries(Object.entries(item).filter(([name]) => !BOOKKEEPING.has(name))));
}

/** Processes deliveries ten at a time; a delivery that fails (busy lease) goes back to the end, as SQS would redeliver it. */
async function processInBatches(deliveries: QueuedMessage[], deps: ProcessDependencies): Promise<void> {
  const queue = [...deliveries];
  while (queue.length > 0) {
    const batch = queue.splice(0, 10);
    const results = await Promise.allSettled(batch.map((message) => processQueuedEvent(message, deps)));
    results.forEach((result, i) => {
      if (result.status === 'rejected') {
        if (!(result.reason instanceof EventBusyError)) throw result.reason;
        queue.push(batch[i]!);
      }
    });
  }
}

async function runSeed(seed: number) {
  const botId = `bot_seed${seed}`;
  const { sends, finalState } = randomMeeting(botId, seed);
  for (const { payload, sentAtMs } of sends)
    await processQueuedEvent(queuedMessage(payload, new Date(sentAtMs)), inOrder.deps);

  const random = seededRandom(seed * 7919 + 1);
  const deliveries = sends.flatMap(({ payload, sentAtMs }) =>
    Array.from({ length: 1 + Math.floor(random() * 3) }, () =>
      queuedMessage(payload, new Date(sentAtMs + Math.floor(random() * 3_000))),
    ),
  );
  for (let i = deliveries.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [deliveries[i], deliveries[j]] = [deliveries[j]!, deliveries[i]!];
  }
  await processInBatches(deliveries, shuffled.deps);

  return {
    seed,
    botId,
    sends: sends.length,
    deliveries: deliveries.length,
    expected: await meetingStore(inOrder.resources.tableName, botId),
    actual: await meetingStore(shuffled.resources.tableName, botId),
    archivable: ['ended', 'fatal_error', 'data_deleted'].includes(finalState),
  };
}

describe('exactly once in effect, in any order', () => {
  it(`holds for ${SEEDS} random meetings`, { timeout: 300_000 }, async () => {
    const archivable: string[] = [];
    let deliveries = 0;
    for (let seed = 1; seed <= SEEDS; seed += 4) {
      const results = await Promise.all([seed, seed + 1, seed + 2, seed + 3].filter((s) => s <= SEEDS).map(runSeed));
      for (const result of results) {
        deliveries += result.deliveries;
        expect(result.actual, `seed ${result.seed}`).toEqual(result.expected);
        expect(result.actual.length, `seed ${result.seed}`).toBeGreaterThan(result.sends / 2);
        if (result.archivable) archivable.push(result.botId);
      }
    }
    expect(deliveries).toBeGreaterThan(SEEDS * 20);
    // One archive job per meeting that reached a final state, however often its final events came.
    const expectedJobs = new Map(archivable.map((botId) => [botId, 1]));
    expect(await archiveJobsByBot(shuffled.resources.archiveQueueUrl)).toEqual(expectedJobs);
    expect(await archiveJobsByBot(inOrder.resources.archiveQueueUrl)).toEqual(expectedJobs);
  });
});
