/**
 * A failure at any single call of one event's processing — before the call or
 * after it took effect — followed by redelivery leaves exactly the store a clean
 * run leaves: nothing lost, nothing applied twice, one archive job. Each event
 * is run both ways the consumer sees it: recorded in the ledger by the ingress
 * (as in AWS), and not (the ingress could not reach the table: the consumer records it).
 */

import { createHash } from 'node:crypto';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  EventBusyError,
  type ProcessDependencies,
  processQueuedEvent,
  type QueuedMessage,
} from '../../lambdas/core/events/process-event';
import { tableAcceptanceLog } from '../../lambdas/core/ingress/first-acceptance';
import { type ClaimCheckPointer, claimCheckKey, LEDGER_RECORDED } from '../../lambdas/core/queue/queued-event';
import { silentTelemetry } from '../../lambdas/core/telemetry';
import { sqsClient } from '../../lambdas/shared/aws-clients';
import { documentClient } from '../../lambdas/shared/dynamo-client';
import { dynamoClient } from '../../lambdas/shared/dynamo-plain-client';
import { s3Client } from '../../lambdas/shared/s3-client';
import type { LocalResources } from '../../local/resources';
import {
  participantJoinLeave,
  stateChange,
  summaryUpdate,
  transcriptUpdate,
  webhook,
} from '../../local/simulator/payloads';
import type { PyValue } from '../../local/simulator/python-json';
import { type FaultMode, type FaultyClient, faultyClient } from '../fixtures/faulty-client';
import {
  createResources,
  type LocalPipeline,
  processDependencies,
  queuedMessage,
  startLocalPipeline,
} from '../fixtures/local-pipeline';
import { archiveJobsByBot } from '../fixtures/queues';
import { botItems, dayListed } from '../fixtures/store-reader';

type Payload = { [key: string]: PyValue };
const T0 = Date.parse('2026-11-20T10:00:00Z');
const LEASE_MS = 60_000;

let pipeline: LocalPipeline;
let clean: { resources: LocalResources; deps: ProcessDependencies };
let faulty: { resources: LocalResources; deps: ProcessDependencies };
let clockOffset = 0;
let db: FaultyClient<ReturnType<typeof documentClient>>;
let sqs: FaultyClient<ReturnType<typeof sqsClient>>;
let s3: FaultyClient<ReturnType<typeof s3Client>>;

beforeAll(async () => {
  pipeline = await startLocalPipeline();
  const [a, b] = await Promise.all([createResources(), createResources()]);
  clean = { resources: a, deps: processDependencies(a) };
  db = faultyClient(documentClient());
  sqs = faultyClient(sqsClient());
  s3 = faultyClient(s3Client());
  faulty = {
    resources: b,
    deps: processDependencies(
      b,
      silentTelemetry,
      { db: db.client, sqs: sqs.client, s3: s3.client },
      () => Date.now() + clockOffset,
    ),
  };
});
afterAll(async () => pipeline?.stop());

interface Scenario {
  name: string;
  /** Events applied cleanly first. */
  setup: (bot: string) => Payload[];
  /** The event whose processing is broken. */
  target: (bot: string) => Payload;
  /** Turns the target into the message the queue holds (default: inline). */
  message?: (payload: Payload, resources: LocalResources) => Promise<QueuedMessage>;
  archiveJob: boolean;
}

const change = (bot: string, from: string, to: string, second: number) =>
  stateChange(
    bot,
    { oldState: from, newState: to, eventType: to, createdAtMicros: (T0 + second * 1000) * 1000 },
    { idempotencyKey: `${bot}-${to}` },
  );
const utterance = (bot: string, text: string, key: string) =>
  transcriptUpdate(
    bot,
    { speakerName: 'Ada', speakerUuid: 's1', isHost: true, timestampMs: 5_000, durationMs: 900, text },
    { idempotencyKey: key },
  );

/** Stores the body in the payload bucket and queues a pointer, as the ingress does for a large body. */
async function claimChecked(payload: Payload, resources: LocalResources): Promise<QueuedMessage> {
  const message = queuedMessage(payload, new Date(T0 + 50_000));
  const bytes = Buffer.from(message.body);
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  const key = claimCheckKey(new Date(T0), sha256);
  await s3Client().send(new PutObjectCommand({ Bucket: resources.payloadBucket, Key: key, Body: bytes }));
  return {
    ...message,
    body: JSON.stringify({ claimCheck: { bucket: resources.payloadBucket, key, bytes: bytes.length, sha256 } }),
    attributes: { ...message.attributes, body_location: 's3' },
  };
}

const SCENARIOS: Scenario[] = [
  {
    // Creates the meeting item, so it also lists the meeting by day.
    name: 'first state change',
    setup: () => [],
    target: (bot) => change(bot, 'ready', 'joining', 1),
    archiveJob: false,
  },
  {
    name: 'state change to ended',
    setup: (bot) => [change(bot, 'ready', 'joining', 1), change(bot, 'joining', 'joined_recording', 2)],
    target: (bot) => change(bot, 'post_processing', 'ended', 30),
    archiveJob: true,
  },
  {
    name: 'corrected utterance',
    setup: (bot) => [utterance(bot, 'draft', `${bot}-u1`)],
    target: (bot) => utterance(bot, 'corrected', `${bot}-u2`),
    archiveJob: false,
  },
  {
    name: 'participant join',
    setup: (bot) => [
      participantJoinLeave(
        bot,
        { id: 'pe1', name: 'Grace', uuid: 'p1', isHost: false, eventType: 'leave', timestampMs: 90_000 },
        { idempotencyKey: `${bot}-pe1` },
      ),
    ],
    target: (bot) =>
      participantJoinLeave(
        bot,
        { id: 'pe0', name: 'Grace', uuid: 'p1', isHost: false, eventType: 'join', timestampMs: 10_000 },
        { idempotencyKey: `${bot}-pe0` },
      ),
    archiveJob: false,
  },
  {
    name: 'summary',
    setup: () => [],
    target: (bot) => summaryUpdate(bot, 'Done.', { idempotencyKey: `${bot}-sum` }),
    archiveJob: false,
  },
  {
    name: 'unknown trigger',
    setup: () => [],
    target: (bot) => webhook(bot, 'bot.new_kind', { x: 1 }, { idempotencyKey: `${bot}-raw` }),
    archiveJob: false,
  },
  {
    name: 'claim-checked summary',
    setup: () => [],
    target: (bot) => summaryUpdate(bot, 'Large.', { idempotencyKey: `${bot}-big` }),
    message: claimChecked,
    archiveJob: false,
  },
];

const receivedAt = (index: number) => new Date(T0 + 40_000 + index * 1000);

/** What the ingress does before queueing: it records the event in the ledger (the real code), and says so. */
async function recordedByIngress(message: QueuedMessage, resources: LocalResources): Promise<QueuedMessage> {
  const { attributes } = message;
  const first = await tableAcceptanceLog(dynamoClient(), resources.tableName, {
    retentionSeconds: 86_400,
    now: Date.now,
  }).firstAcceptance({
    idempotencyKey: String(attributes.idempotency_key),
    owner: String(attributes.bot_id),
    trigger: String(attributes.trigger),
    acceptedAt: String(attributes.received_at),
    body:
      attributes.body_location === 's3'
        ? { stored: JSON.parse(message.body) as ClaimCheckPointer }
        : { inline: message.body },
  });
  return { ...message, attributes: { ...attributes, received_at: first.receivedAt, ledger: LEDGER_RECORDED } };
}

/** The queued message of an event, recorded by the ingress or not. */
async function queued(message: QueuedMessage, resources: LocalResources, viaIngress: boolean): Promise<QueuedMessage> {
  return viaIngress ? recordedByIngress(message, resources) : message;
}

async function run(
  scenario: Scenario,
  viaIngress: boolean,
  bot: string,
  deps: ProcessDependencies,
  resources: LocalResources,
  fault?: () => void,
): Promise<void> {
  for (const [i, payload] of scenario.setup(bot).entries())
    await processQueuedEvent(await queued(queuedMessage(payload, receivedAt(i)), resources, viaIngress), deps);
  const payload = scenario.target(bot);
  const message = await queued(
    scenario.message ? await scenario.message(payload, resources) : queuedMessage(payload, receivedAt(9)),
    resources,
    viaIngress,
  );
  if (fault === undefined) {
    await processQueuedEvent(message, deps);
    return;
  }
  fault();
  await expect(processQueuedEvent(message, deps)).rejects.toThrow(/injected fault/);
  for (const client of [db, sqs, s3]) client.reset();
  // Redelivery, as SQS would after the visibility timeout (by then a crashed delivery's lease has lapsed).
  for (let attempt = 0; ; attempt++) {
    try {
      await processQueuedEvent(message, deps);
      return;
    } catch (error) {
      if (!(error instanceof EventBusyError) || attempt > 0) throw error;
      clockOffset += LEASE_MS + 1_000;
    }
  }
}

describe('a fault at any call of one event, then redelivery', () => {
  const runs: Array<{ bot: string; archiveJob: boolean }> = [];

  for (const [scenario, viaIngress] of SCENARIOS.flatMap((s) => [true, false].map((v) => [s, v] as const))) {
    const name = `${scenario.name}${viaIngress ? '' : ' (not recorded by the ingress)'}`;
    it(`${name}: the store ends exactly as after a clean run`, async () => {
      const slug = `${scenario.name.replaceAll(' ', '_')}${viaIngress ? '' : '_unrecorded'}`;
      // Count the calls a clean run of the target makes, per client.
      const probe = `bot_probe_${slug}`;
      for (const [i, payload] of scenario.setup(probe).entries())
        await processQueuedEvent(
          await queued(queuedMessage(payload, receivedAt(i)), faulty.resources, viaIngress),
          faulty.deps,
        );
      for (const client of [db, sqs, s3]) client.reset();
      const payload = scenario.target(probe);
      await processQueuedEvent(
        await queued(
          scenario.message ? await scenario.message(payload, faulty.resources) : queuedMessage(payload, receivedAt(9)),
          faulty.resources,
          viaIngress,
        ),
        faulty.deps,
      );
      const plans = [
        ...Array.from({ length: db.calls() }, (_, i) => ({ client: db, failAt: i + 1 })),
        ...Array.from({ length: sqs.calls() }, (_, i) => ({ client: sqs, failAt: i + 1 })),
        ...Array.from({ length: s3.calls() }, (_, i) => ({ client: s3, failAt: i + 1 })),
      ];
      // Recorded by the ingress, an utterance, a summary or an unknown trigger is one write.
      expect(plans.length).toBeGreaterThanOrEqual(viaIngress ? 1 : 2);

      for (const { client, failAt } of plans) {
        for (const mode of ['before', 'after'] as FaultMode[]) {
          const bot = `bot_${slug}_${plans.indexOf(plans.find((p) => p.client === client && p.failAt === failAt)!)}_${mode}`;
          await run(scenario, viaIngress, bot, clean.deps, clean.resources);
          await run(scenario, viaIngress, bot, faulty.deps, faulty.resources, () => client.reset({ failAt, mode }));
          const withoutBookkeeping = (items: Array<Record<string, unknown>>) =>
            items.map(({ version: _v, summaryVersion: _s, appliedKeys: _a, summaryKeys: _k, ...rest }) => rest);
          expect(withoutBookkeeping(await botItems(faulty.resources.tableName, bot, '')), `${bot}`).toEqual(
            withoutBookkeeping(await botItems(clean.resources.tableName, bot, '')),
          );
          expect(await dayListed(faulty.resources.tableName, bot), `${bot} listed by day`).toBe(true);
          runs.push({ bot, archiveJob: scenario.archiveJob });
        }
      }
    });
  }

  it('queued exactly one archive job for every meeting that ended', async () => {
    const jobs = await archiveJobsByBot(faulty.resources.archiveQueueUrl);
    const expected = runs.filter((r) => r.archiveJob).map((r) => r.bot);
    expect(expected.length).toBeGreaterThan(10);
    for (const bot of expected) expect(jobs.get(bot), bot).toBe(1);
    expect([...jobs.keys()].filter((bot) => !bot.startsWith('bot_probe')).sort()).toEqual([...expected].sort());
  });
});
