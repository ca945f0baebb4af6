/**
 * Property: a meeting's webhooks, each delivered 1–3 times and processed in random
 * order (ten at a time, as a Lambda batch), leave exactly the store that a single
 * in-order delivery leaves. Deliveries pass the ingress's real first-acceptance
 * record (the ledger record, which the consumer then does not write), as in AWS;
 * the reference run's consumer records each event itself. Beyond plain retries: a draft is delivered again after its
 * correction (a slow answer made the service retry), some corrections are
 * accepted in the same millisecond as their draft, and drafts come back after the
 * dedup records expired (a DLQ re-drive of the original message, and a manual
 * resend accepted anew).
 */
import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  EventBusyError,
  type ProcessDependencies,
  processQueuedEvent,
  type QueuedMessage,
} from '../../lambdas/core/events/process-event';
import { type AcceptanceLog, acceptanceClock, tableAcceptanceLog } from '../../lambdas/core/ingress/first-acceptance';
import { keys } from '../../lambdas/core/store/table-layout';
import { documentClient } from '../../lambdas/shared/dynamo-client';
import { dynamoClient } from '../../lambdas/shared/dynamo-plain-client';
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
import { randomMeeting, type Send } from '../fixtures/random-meeting';
import { botItems, dayListed } from '../fixtures/store-reader';

const SEEDS = 100;
/**
 * Which delivery of a newest-wins value was written, and which keys touched it, is bookkeeping, not meeting data;
 * so is `listedAt`, the time of the first state change applied (its day listing), which arrival order decides,
 * and `outcomeBasis`, how many state changes were stored when the outcome last changed (its write guard): the
 * outcome itself is compared.
 */
const BOOKKEEPING = new Set(['version', 'summaryVersion', 'appliedKeys', 'summaryKeys', 'listedAt', 'outcomeBasis']);

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

let acceptances: AcceptanceLog;
beforeAll(() => {
  acceptances = tableAcceptanceLog(dynamoClient(), shuffled.resources.tableName, {
    retentionSeconds: 7 * 86_400,
    now: Date.now,
  });
});

/** An ingress's acceptance clock, driven by the arrival times the test chooses. */
function acceptanceClockAt(): (atMs: number) => string {
  let now = 0;
  const clock = acceptanceClock(() => new Date(now));
  return (atMs) => {
    now = atMs;
    return clock();
  };
}

/** What the table's TTL does after the retention period: the ledger record of a key goes. */
async function expireDedupRecords(tableName: string, botId: string, idempotencyKey: string): Promise<void> {
  await documentClient().send(new DeleteCommand({ TableName: tableName, Key: keys.event(botId, idempotencyKey) }));
}

/** What the ingress does on a delivery: record the event unless an earlier delivery did, then queue it. */
async function accept(send: Send, acceptedAt: string): Promise<QueuedMessage> {
  const { payload } = send;
  const body = queuedMessage(payload, acceptedAt).body;
  const first = await acceptances.firstAcceptance({
    idempotencyKey: String(payload.idempotency_key),
    owner: String(payload.bot_id),
    trigger: String(payload.trigger),
    acceptedAt,
    body: { inline: body },
  });
  expect(first.recorded).toBe(true);
  return queuedMessage(payload, first.receivedAt, { recorded: first.recorded });
}

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

/** The utterance a transcript.update is about, or undefined for other triggers. */
function utteranceOf(send: Send): string | undefined {
  if (send.payload.trigger !== 'transcript.update') return undefined;
  const data = send.payload.data as { timestamp_ms: number; speaker_uuid: string };
  return `${data.timestamp_ms}/${data.speaker_uuid}`;
}

/** Drafts and the corrections sent after them, by position in `sends`. */
function corrections(sends: Send[]): Array<{ draft: number; correction: number }> {
  const firstSend = new Map<string, number>();
  const pairs: Array<{ draft: number; correction: number }> = [];
  sends.forEach((send, index) => {
    const utterance = utteranceOf(send);
    if (utterance === undefined) return;
    const draft = firstSend.get(utterance);
    if (draft === undefined) firstSend.set(utterance, index);
    else pairs.push({ draft, correction: index });
  });
  return pairs;
}

async function runSeed(seed: number) {
  const botId = `bot_seed${seed}`;
  const meeting = randomMeeting(botId, seed);
  const random = seededRandom(seed * 7919 + 1);
  const { finalState } = meeting;
  // Some corrections are accepted in the same millisecond as their draft, just after it.
  let sends = meeting.sends;
  for (const { draft, correction } of corrections(sends)) {
    if (random() < 0.3) sends[correction] = { ...sends[correction]!, sentAtMs: sends[draft]!.sentAtMs };
  }
  sends = [...sends].sort((a, b) => a.sentAtMs - b.sentAtMs);

  const referenceClock = acceptanceClockAt();
  for (const { payload, sentAtMs } of sends)
    await processQueuedEvent(queuedMessage(payload, referenceClock(sentAtMs)), inOrder.deps);

  // Arrivals at the ingress: the first at once, retries within 3 s, and a draft again after its correction.
  const arrivals: Array<{ send: Send; atMs: number }> = sends.flatMap((send) => [
    { send, atMs: send.sentAtMs },
    ...Array.from({ length: Math.floor(random() * 3) }, () => ({
      send,
      atMs: send.sentAtMs + 1 + Math.floor(random() * 3_000),
    })),
  ]);
  const pairs = corrections(sends);
  for (const { draft, correction } of pairs) {
    arrivals.push({ send: sends[draft]!, atMs: sends[correction]!.sentAtMs + 20_000 });
  }
  arrivals.sort((a, b) => a.atMs - b.atMs); // stable: same-millisecond arrivals keep their order
  const ingressClock = acceptanceClockAt();
  const deliveries: QueuedMessage[] = [];
  for (const { send, atMs } of arrivals) deliveries.push(await accept(send, ingressClock(atMs)));
  for (let i = deliveries.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [deliveries[i], deliveries[j]] = [deliveries[j]!, deliveries[i]!];
  }
  await processInBatches(deliveries, shuffled.deps);

  // After the dedup records expire: the draft's original message re-driven from the DLQ, and a manual resend.
  for (const { draft } of pairs) {
    const key = String(sends[draft]!.payload.idempotency_key);
    const original = deliveries.find((message) => message.attributes.idempotency_key === key)!;
    await expireDedupRecords(shuffled.resources.tableName, botId, key);
    await processQueuedEvent(original, shuffled.deps);
    await processQueuedEvent(
      await accept(sends[draft]!, ingressClock(sends.at(-1)!.sentAtMs + 8 * 86_400_000)),
      shuffled.deps,
    );
  }

  return {
    seed,
    botId,
    sends: sends.length,
    deliveries: deliveries.length,
    redelivered: pairs.length,
    expected: await meetingStore(inOrder.resources.tableName, botId),
    actual: await meetingStore(shuffled.resources.tableName, botId),
    listed: await Promise.all([inOrder, shuffled].map(({ resources }) => dayListed(resources.tableName, botId))),
    archivable: ['ended', 'fatal_error', 'data_deleted'].includes(finalState),
  };
}

describe('exactly once in effect, in any order', () => {
  it(`holds for ${SEEDS} random meetings`, { timeout: 300_000 }, async () => {
    const archivable: string[] = [];
    let deliveries = 0;
    let redelivered = 0;
    for (let seed = 1; seed <= SEEDS; seed += 4) {
      const results = await Promise.all([seed, seed + 1, seed + 2, seed + 3].filter((s) => s <= SEEDS).map(runSeed));
      for (const result of results) {
        deliveries += result.deliveries;
        redelivered += result.redelivered;
        expect(result.actual, `seed ${result.seed}`).toEqual(result.expected);
        expect(result.listed, `seed ${result.seed}`).toEqual([true, true]);
        expect(result.actual.length, `seed ${result.seed}`).toBeGreaterThan(result.sends / 2);
        if (result.archivable) archivable.push(result.botId);
      }
    }
    expect(deliveries).toBeGreaterThan(SEEDS * 20);
    expect(redelivered).toBeGreaterThan(SEEDS / 2); // drafts delivered again after their corrections
    // One archive job per meeting that reached a final state, however often its final events came.
    const expectedJobs = new Map(archivable.map((botId) => [botId, 1]));
    expect(await archiveJobsByBot(shuffled.resources.archiveQueueUrl)).toEqual(expectedJobs);
    expect(await archiveJobsByBot(inOrder.resources.archiveQueueUrl)).toEqual(expectedJobs);
  });
});
