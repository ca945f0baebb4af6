/**
 * `replay --rebuild --apply` against the webhooks that keep arriving while it runs, over random
 * interleavings at every DynamoDB call (fixtures/scheduled-clients.ts), with a fault injected at a
 * random call of the replay. Invariant after each run: once the operator has run a failed replay
 * again (as docs/operating.md says to), the meeting holds exactly what applying every webhook in
 * order gives — nothing the concurrent deliveries applied is lost, nothing is doubled.
 * `SOAK_RUNS=<n>` runs it longer (npm run soak).
 */
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ProcessDependencies, processQueuedEvent } from '../../lambdas/core/events/process-event';
import { type ReplayReport, replayBotEvents } from '../../lambdas/core/events/replay';
import { documentClient } from '../../lambdas/shared/dynamo-client';
import type { LocalResources } from '../../local/resources';
import {
  createResources,
  type LocalPipeline,
  processDependencies,
  queuedMessage,
  startLocalPipeline,
} from '../fixtures/local-pipeline';
import { randomMeeting, type Send } from '../fixtures/random-meeting';
import { clientFault, propertyParameters, reportExplored, scheduledClient } from '../fixtures/scheduled-clients';
import { botItems } from '../fixtures/store-reader';

let pipeline: LocalPipeline;
let resources: LocalResources;

beforeAll(async () => {
  pipeline = await startLocalPipeline();
  resources = await createResources();
});
afterAll(async () => pipeline?.stop());

/**
 * Left out of the comparison: the dedup bookkeeping, and `listedAt`, which is the first state change
 * *applied* (so the meeting never moves between listing days): with concurrent deliveries that need
 * not be the earliest one, whether or not a replay runs; and `outcomeBasis` (how many state changes were stored when the outcome last changed: its write guard;
 * the outcome itself is compared).
 */
const NOT_COMPARED = new Set(['version', 'summaryVersion', 'appliedKeys', 'summaryKeys', 'listedAt', 'outcomeBasis']);
/** The meeting's items as the read API sees them, with the bot's id written as `<bot>`. */
async function meetingData(botId: string): Promise<string> {
  const items = (await botItems(resources.tableName, botId, '')).map((item) =>
    Object.fromEntries(
      Object.entries(item)
        .filter(([name]) => !NOT_COMPARED.has(name))
        .sort(([a], [b]) => a.localeCompare(b)),
    ),
  );
  return JSON.stringify(items)
    .replaceAll(botId, '<bot>')
    .replace(/"(STATE#[^"#]+)#\d+"/g, '"$1#<shard of the bot>"');
}

const depsWith = (db = documentClient()): ProcessDependencies => processDependencies(resources, undefined, { db });

/**
 * A delivery the consumer fails is delivered again by SQS once its visibility timeout passes: here
 * after a short wait (another delivery of the same event may hold its lease), until it is applied.
 */
async function deliver(send: Send, deps: ProcessDependencies): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await processQueuedEvent(queuedMessage(send.payload, new Date(send.sentAtMs)), attempt === 1 ? deps : depsWith());
      return;
    } catch (error) {
      if (attempt === 20) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

/** What applying every webhook of the meeting in order leaves, computed once per seed. */
const expected = new Map<number, Promise<string>>();
function inOrder(seed: number): Promise<string> {
  let result = expected.get(seed);
  if (result === undefined) {
    const botId = `bot_ref_${seed}_${randomUUID().slice(0, 8)}`;
    result = (async () => {
      for (const send of randomMeeting(botId, seed).sends) await deliver(send, depsWith());
      return meetingData(botId);
    })();
    expected.set(seed, result);
  }
  return result;
}

describe('replay --rebuild --apply under random interleavings', () => {
  it('loses and doubles nothing the webhooks arriving meanwhile apply', async () => {
    const parameters = propertyParameters(4);
    await fc.assert(
      fc.asyncProperty(
        fc.scheduler(),
        fc.constantFrom(3, 7, 42),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.array(fc.nat(), { maxLength: 3 }),
        clientFault(120),
        async (scheduler, seed, splitAt, resent, fault) => {
          const botId = `bot_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
          const { sends } = randomMeeting(botId, seed);
          const split = Math.floor(splitAt * sends.length);
          for (const send of sends.slice(0, split)) await deliver(send, depsWith());
          // The rest arrive while the replay runs, a few of them twice (the service retries).
          const late = sends.slice(split);
          const arriving = [...late, ...resent.flatMap((i) => (late.length === 0 ? [] : [late[i % late.length]!]))];

          const replayClient = scheduledClient(documentClient(), scheduler, 'replay', fault);
          const replay = replayBotEvents(botId, depsWith(replayClient.client), { rebuild: true, apply: true }).then(
            (report): ReplayReport | Error => report,
            (error: unknown) => (error instanceof Error ? error : new Error(String(error))),
          );
          const deliveries = arriving.map((send, i) =>
            deliver(send, depsWith(scheduledClient(documentClient(), scheduler, `webhook ${i}`).client)),
          );
          const [outcome] = await scheduler.waitFor(Promise.all([replay, ...deliveries]));

          const failed = outcome instanceof Error || outcome.failures.length > 0 || outcome.refused !== undefined;
          expect(failed && !replayClient.faulted()).toBe(false);
          if (failed) await replayBotEvents(botId, depsWith(), { rebuild: true, apply: true });
          expect(await meetingData(botId)).toBe(await inOrder(seed));
        },
      ),
      parameters,
    );
    reportExplored('replay --rebuild', parameters.numRuns ?? 0);
  }, 600_000);
});
