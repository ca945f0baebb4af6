#!/usr/bin/env node
/**
 * `npm run load -- [--meetings N] [--aligned] [--utterances U]`: a meeting-shaped
 * workload (capacity/workload.ts), compressed in time, through the local ingress
 * and consumer over HTTP, with a share of webhooks delivered again after their
 * meeting moved on. Prints throughput, ingress p50/p99 and end-to-end p99
 * (accepted → applied), and exits 0 only if every event is stored exactly once:
 * 0 lost, 0 doubled, 0 refused.
 */
import { parseArgs } from 'node:util';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { isRedeliveredInLoad, LOAD_DEFAULTS, meetingWebhookPayloads } from '../capacity/workload';
import { keys, MEETING_SK, SK_PREFIX } from '../lambdas/core/store/table-layout';
import { documentClient } from '../lambdas/shared/dynamo-client';
import { DEFAULT_EVENTS_FILE } from '../local/event-log-publisher';
import { newSigningSecret, startLocalStack } from '../local/local-stack';
import { NO_CHAOS } from '../local/simulator/webhook-sender';
import { signWebhook } from '../local/simulator/webhook-signer';

const HELP = `usage: npm run load -- [--meetings N] [--aligned] [--utterances U] [--concurrency C]
  --meetings N      meetings, each sending U utterances, 20 join/leave events, 10 state changes and a summary (default ${LOAD_DEFAULTS.meetings})
  --aligned         every meeting starts and ends together (the on-the-hour peak; default: staggered)
  --utterances U    transcript webhooks per meeting (default ${LOAD_DEFAULTS.utterances})
  --concurrency C   webhooks in flight at once (default ${LOAD_DEFAULTS.concurrency})
A tenth of the webhooks are delivered a second time, after the rest.`;

let values: { meetings?: string; aligned?: boolean; utterances?: string; concurrency?: string; help?: boolean };
try {
  ({ values } = parseArgs({
    options: {
      meetings: { type: 'string' },
      aligned: { type: 'boolean' },
      utterances: { type: 'string' },
      concurrency: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  }));
} catch (error) {
  process.stderr.write(`load: ${(error as Error).message}\n${HELP}\n`);
  process.exit(2);
}
if (values.help) {
  process.stdout.write(`${HELP}\n`);
  process.exit(0);
}
const whole = (name: string, text: string | undefined, fallback: number) => {
  const value = text === undefined ? fallback : Number(text);
  if (!Number.isInteger(value) || value <= 0) {
    process.stderr.write(`load: --${name} takes a positive whole number, not ${JSON.stringify(text)}\n${HELP}\n`);
    process.exit(2);
  }
  return value;
};
const MEETINGS = whole('meetings', values.meetings, LOAD_DEFAULTS.meetings);
const UTTERANCES = whole('utterances', values.utterances, LOAD_DEFAULTS.utterances);
const CONCURRENCY = whole('concurrency', values.concurrency, LOAD_DEFAULTS.concurrency);
const ALIGNED = values.aligned === true;

const secret = newSigningSecret();
const accepted = new Map<string, number>();
const endToEnd: number[] = [];
const stack = await startLocalStack({
  eventsFile: DEFAULT_EVENTS_FILE,
  signingSecret: secret,
  chaos: NO_CHAOS,
  stepMs: 1_000,
  recordingBytes: 1024,
  reconcileEveryMs: 3_600_000,
  staleAfterMs: 3_600_000,
  seed: 1,
  print: () => undefined,
  onLog: (_level, message, attributes) => {
    if (message !== 'event applied') return;
    const at = accepted.get(String(attributes.idempotency_key));
    if (at !== undefined) endToEnd.push(performance.now() - at);
  },
});

// The workload, in the order a fleet of meetings sends it.
const botIds = Array.from({ length: MEETINGS }, (_, i) => `bot_load${i}`);
const meetings = botIds.map((bot, i) =>
  meetingWebhookPayloads(bot, UTTERANCES, Date.parse('2026-11-20T10:00:00Z') * 1000 + i),
);
const roundRobin = <T>(lists: T[][]): T[] => {
  const out: T[] = [];
  for (let i = 0; out.length < lists.reduce((n, l) => n + l.length, 0); i++)
    for (const list of lists) if (i < list.length) out.push(list[i] as T);
  return out;
};
const ordered = ALIGNED
  ? [
      ...roundRobin(meetings.map((m) => m.start)),
      ...roundRobin(meetings.map((m) => m.transcript)),
      ...roundRobin(meetings.map((m) => m.end)),
    ]
  : // Staggered: each meeting starts a little after the one before, so starts and ends are spread out.
    roundRobin(
      meetings.map((m, i) => [...Array(i * 20).fill(undefined), ...m.start, ...m.transcript, ...m.end]),
    ).filter((payload) => payload !== undefined);
const distinct = ordered.length;
const repeats = ordered.filter((_, i) => isRedeliveredInLoad(i));
const deliveries = [...ordered, ...repeats].map((payload) => ({
  key: String(payload.idempotency_key),
  ...signWebhook(payload, secret),
}));

const latencies: number[] = [];
let refused = 0;
let next = 0;
const started = performance.now();
await Promise.all(
  Array.from({ length: CONCURRENCY }, async () => {
    while (next < deliveries.length) {
      const delivery = deliveries[next++];
      if (delivery === undefined) break;
      const t = performance.now();
      const response = await fetch(stack.webhookUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-webhook-signature': delivery.signature },
        body: delivery.body,
      });
      await response.arrayBuffer();
      const done = performance.now();
      latencies.push(done - t);
      if (response.status !== 202) refused++;
      else if (!accepted.has(delivery.key)) accepted.set(delivery.key, done);
    }
  }),
);
const sendSeconds = (performance.now() - started) / 1000;

// Wait for the consumer to take every accepted message.
const processed = () => (stack.counts.get('EventApplied') ?? 0) + (stack.counts.get('EventDuplicate') ?? 0);
const deadline = Date.now() + 600_000;
while (processed() < deliveries.length - refused && Date.now() < deadline)
  await new Promise((resolve) => setTimeout(resolve, 250));
const totalSeconds = (performance.now() - started) / 1000;

// What the store holds, meeting by meeting, against what each meeting sent.
const db = documentClient();
let lost = 0;
let doubled = 0;
for (const bot of botIds) {
  const items: Array<Record<string, unknown>> = [];
  let cursor: Record<string, unknown> | undefined;
  do {
    const page = await db.send(
      new QueryCommand({
        TableName: stack.resources.tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': keys.bot(bot) },
        ConsistentRead: true,
        ExclusiveStartKey: cursor,
      }),
    );
    items.push(...(page.Items ?? []));
    cursor = page.LastEvaluatedKey;
  } while (cursor !== undefined);
  const of = (prefix: string) => items.filter((item) => String(item.sk).startsWith(prefix));
  const utterances = of(SK_PREFIX.utterance);
  const texts = new Set(utterances.map((u) => String(u.text)));
  lost += UTTERANCES - texts.size;
  doubled += utterances.length - texts.size;
  doubled += utterances.filter((u) => u.appliedKeys instanceof Set && u.appliedKeys.size !== 1).length;
  const participantEvents = of(SK_PREFIX.participantEvent).length;
  lost += Math.max(0, 20 - participantEvents);
  doubled += Math.max(0, participantEvents - 20);
  const stateChanges = of(SK_PREFIX.stateChange).length;
  lost += Math.max(0, 10 - stateChanges);
  doubled += Math.max(0, stateChanges - 10);
  const meeting = items.find((item) => item.sk === MEETING_SK);
  if (meeting?.state !== 'ended') lost++;
  // The summary: on its own item or, in older layouts, on the meeting.
  if (!items.some((item) => item.sk === 'SUMMARY' || (item.sk === MEETING_SK && item.summary !== undefined))) lost++;
}
await stack.stop();

const pct = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return (sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN).toFixed(1);
};
console.log(
  `load: ${MEETINGS} meetings${ALIGNED ? ' aligned' : ' staggered'}, ${distinct} distinct webhooks + ${repeats.length} delivered again, ${CONCURRENCY} at a time, through the local ingress and consumer`,
);
console.log(
  `  ingress latency p50 ${pct(latencies, 50)} ms, p99 ${pct(latencies, 99)} ms; ${(deliveries.length / sendSeconds).toFixed(0)} requests/s; ${refused} refused`,
);
console.log(
  `  end to end (accepted → applied) p50 ${pct(endToEnd, 50)} ms, p99 ${pct(endToEnd, 99)} ms over ${endToEnd.length} events; all processed after ${totalSeconds.toFixed(1)} s (${(distinct / totalSeconds).toFixed(0)} events/s)`,
);
console.log(`  stored: ${lost} lost, ${doubled} doubled`);
process.exit(lost === 0 && doubled === 0 && refused === 0 ? 0 : 1);
