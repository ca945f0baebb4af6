#!/usr/bin/env node
/**
 * `npm run load`: 5,000 distinct webhooks (and 500 repeats of them) through the
 * local ingress and consumer. Prints ingress latency percentiles and exits 0 only
 * if every event is stored exactly once: 0 lost, 0 doubled.
 */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '../lambdas/core/store/table-layout';
import { documentClient } from '../lambdas/shared/dynamo-client';
import { newSigningSecret, startLocalStack } from '../local/local-stack';
import { transcriptUpdate } from '../local/simulator/payloads';
import { NO_CHAOS } from '../local/simulator/webhook-sender';
import { signWebhook } from '../local/simulator/webhook-signer';

const EVENTS = Number(process.env.LOAD_EVENTS ?? 5_000);
const REPEATS = Math.floor(EVENTS / 10);
const BOTS = 50;
const CONCURRENCY = 32;

const secret = newSigningSecret();
const stack = await startLocalStack({
  signingSecret: secret,
  chaos: NO_CHAOS,
  stepMs: 1_000,
  recordingBytes: 1024,
  reconcileEveryMs: 60_000,
  staleAfterMs: 3_600_000,
  seed: 1,
  print: () => undefined,
});
const bot = (i: number) => `bot_load${i % BOTS}`;
const payloads = Array.from({ length: EVENTS }, (_, i) =>
  transcriptUpdate(
    bot(i),
    {
      speakerName: 'Load',
      speakerUuid: `s${i % 7}`,
      isHost: false,
      timestampMs: i * 10,
      durationMs: 5,
      text: `utterance ${i}`,
    },
    { idempotencyKey: `load-${i}` },
  ),
);
const deliveries = [...payloads, ...payloads.slice(0, REPEATS)].map((payload) => signWebhook(payload, secret));

const latencies: number[] = [];
let rejected = 0;
let next = 0;
const started = process.hrtime.bigint();
await Promise.all(
  Array.from({ length: CONCURRENCY }, async () => {
    while (next < deliveries.length) {
      const delivery = deliveries[next++];
      if (delivery === undefined) break;
      const { body, signature } = delivery;
      const t = process.hrtime.bigint();
      const response = await fetch(stack.webhookUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-webhook-signature': signature },
        body,
      });
      await response.arrayBuffer();
      latencies.push(Number(process.hrtime.bigint() - t) / 1e6);
      if (response.status !== 202) rejected++;
    }
  }),
);
const sendSeconds = Number(process.hrtime.bigint() - started) / 1e9;

// Wait for the consumer to take every accepted message.
const processed = () => (stack.counts.get('EventApplied') ?? 0) + (stack.counts.get('EventDuplicate') ?? 0);
const deadline = Date.now() + 300_000;
while (processed() < deliveries.length - rejected && Date.now() < deadline)
  await new Promise((resolve) => setTimeout(resolve, 250));
const totalSeconds = Number(process.hrtime.bigint() - started) / 1e9;

const db = documentClient();
let stored = 0;
const seen = new Set<string>();
let doubled = 0;
for (let b = 0; b < BOTS; b++) {
  let cursor: Record<string, unknown> | undefined;
  do {
    const page = await db.send(
      new QueryCommand({
        TableName: stack.resources.tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :u)',
        ExpressionAttributeValues: { ':pk': keys.bot(`bot_load${b}`), ':u': 'UTT#' },
        ExclusiveStartKey: cursor,
      }),
    );
    for (const item of page.Items ?? []) {
      stored++;
      const text = String(item.text);
      if (seen.has(text)) doubled++;
      seen.add(text);
      if ((item.appliedKeys as Set<string>).size !== 1) doubled++;
    }
    cursor = page.LastEvaluatedKey;
  } while (cursor !== undefined);
}
const lost = EVENTS - seen.size;
await stack.stop();

latencies.sort((a, b) => a - b);
const pct = (p: number) =>
  (latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? Number.NaN).toFixed(1);
console.log(
  `load: ${EVENTS} distinct webhooks + ${REPEATS} repeats, ${CONCURRENCY} at a time, through the local ingress and consumer`,
);
console.log(
  `  ingress latency p50 ${pct(50)} ms, p99 ${pct(99)} ms, max ${(latencies.at(-1) ?? Number.NaN).toFixed(1)} ms; ${(deliveries.length / sendSeconds).toFixed(0)} requests/s; ${rejected} rejected`,
);
console.log(
  `  all processed after ${totalSeconds.toFixed(1)} s; stored ${stored} utterances: ${lost} lost, ${doubled} doubled`,
);
process.exit(lost === 0 && doubled === 0 && rejected === 0 ? 0 : 1);
