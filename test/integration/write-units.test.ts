/**
 * What one event of each trigger costs in DynamoDB write units, index copies
 * included, counted from the sizes of the items the real code writes
 * (test/fixtures/write-units.ts): the ingress's (it records the event in the
 * ledger) and the consumer's. A hot-path change that adds a write, grows an item
 * past 1 KB or puts it back into an index copy fails here.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ProcessDependencies,
  processQueuedEvent,
  type QueuedMessage,
} from '../../lambdas/core/events/process-event';
import { acceptWebhook, type IngressDependencies } from '../../lambdas/core/ingress/accept-webhook';
import { acceptanceClock, tableAcceptanceLog } from '../../lambdas/core/ingress/first-acceptance';
import { EVENT_ATTRIBUTES, LEDGER_RECORDED } from '../../lambdas/core/queue/queued-event';
import { parseSigningSecrets } from '../../lambdas/core/signature/verify';
import { silentTelemetry } from '../../lambdas/core/telemetry';
import { documentClient } from '../../lambdas/shared/dynamo-client';
import { dynamoClient } from '../../lambdas/shared/dynamo-plain-client';
import type { LocalResources } from '../../local/resources';
import { participantJoinLeave, stateChange, summaryUpdate, transcriptUpdate } from '../../local/simulator/payloads';
import { dumps, type PyValue, WIRE } from '../../local/simulator/python-json';
import { signWebhook } from '../../local/simulator/webhook-signer';
import {
  createResources,
  type LocalPipeline,
  processDependencies,
  startLocalPipeline,
} from '../fixtures/local-pipeline';
import { newSigningSecret } from '../fixtures/webhooks';
import { type CountedWrite, type CountingClient, countingClient, countingPlainClient } from '../fixtures/write-units';

let pipeline: LocalPipeline;
let resources: LocalResources;
let counting: CountingClient;
let deps: ProcessDependencies;
let ingress: IngressDependencies;
/** What the ingress queued, as the consumer receives it. */
const queued: QueuedMessage[] = [];
const secret = newSigningSecret();

beforeAll(async () => {
  pipeline = await startLocalPipeline();
  resources = await createResources();
  counting = countingClient(documentClient());
  deps = processDependencies(resources, undefined, { db: counting.client });
  const now = () => new Date(clock);
  ingress = {
    signingKeys: async () => parseSigningSecrets(secret),
    queue: {
      enqueue: async (body, meta) => {
        const message: QueuedMessage = {
          messageId: randomUUID(),
          body,
          attributes: {
            [EVENT_ATTRIBUTES.trigger]: meta.trigger,
            [EVENT_ATTRIBUTES.botId]: meta.botId,
            [EVENT_ATTRIBUTES.idempotencyKey]: meta.idempotencyKey,
            [EVENT_ATTRIBUTES.receivedAt]: meta.receivedAt,
            [EVENT_ATTRIBUTES.bodyLocation]: 'inline',
            ...(meta.recorded === true && { [EVENT_ATTRIBUTES.ledger]: LEDGER_RECORDED }),
          },
        };
        queued.push(message);
        return { messageId: message.messageId, bodyLocation: 'inline' };
      },
    },
    maxBodyBytes: 1 << 20,
    telemetry: silentTelemetry,
    now,
    acceptedAt: acceptanceClock(now),
    acceptance: tableAcceptanceLog(countingPlainClient(dynamoClient(), counting.writes), resources.tableName, {
      retentionSeconds: 7 * 86_400,
      now: Date.now,
    }),
  };
});
afterAll(async () => pipeline?.stop());

/** Bot ids and keys as long as the service's. */
const BOT = 'bot_3hfP0PXEsNinIZmh';
let clock = Date.parse('2026-11-20T10:00:00Z');

/** Natural speech, so the body compresses as a real one does (not a repeated word). */
const SPEECH =
  'Okay, so I think the main thing we need to decide today is whether we ship the new onboarding flow before ' +
  'the holidays or wait until January. Priya, you mentioned last week that the support team saw a spike in ' +
  'tickets about password resets, and honestly I would rather fix that first, because every confused customer ' +
  'costs us twice: once in support time and once in trust. Marcus thinks the flow is ready, and the numbers from ' +
  'the beta group look good, twelve percent better completion, but that was only four hundred accounts. Could we ' +
  'run it for another two weeks with a larger group, say five thousand, and decide on the fifteenth? If legal ' +
  'signs off on the new consent screen by Friday, that gives design enough time to adjust the copy. Also, ' +
  "let's not forget the mobile team, they are still waiting on the API changes we promised them in October, " +
  'and I do not want them blocked again.';

function transcriptOfBytes(bytes: number) {
  const line = (text: string) =>
    transcriptUpdate(BOT, {
      speakerName: 'Ada Lovelace',
      speakerUuid: 'f3c1a2e4-8b7d-4c6e-9a1f-2d3b4c5e6f70',
      isHost: true,
      timestampMs: 1_234_567,
      durationMs: 4_321,
      text,
    });
  const overhead = dumps(line(''), WIRE).length;
  const payload = line(SPEECH.slice(0, bytes - overhead));
  expect(dumps(payload, WIRE).length).toBe(bytes);
  return payload;
}

const LINES = [
  'We agreed to extend the beta to five thousand accounts and decide on the fifteenth.',
  'Legal reviews the consent screen by Friday; design adjusts the copy afterwards.',
  'The mobile team gets the API changes promised in October before anything else ships.',
  'Support keeps tracking password-reset tickets and reports weekly.',
];
const summaryText = (bytes: number) => {
  let text = '';
  for (let i = 0; text.length < bytes; i++) text += `${LINES[i % LINES.length]} (${i}) `;
  return text.slice(0, bytes);
};

/** The ingress accepts the webhook, the consumer applies what it queued: the writes of both. */
async function cost(payload: { [key: string]: PyValue }): Promise<{ writes: CountedWrite[]; body: number }> {
  counting.reset();
  clock += 1000;
  const { body, signature } = signWebhook(payload, secret);
  expect((await acceptWebhook({ body, signature }, ingress)).status).toBe(202);
  const message = queued.splice(0).at(-1);
  expect(message?.attributes[EVENT_ATTRIBUTES.ledger]).toBe(LEDGER_RECORDED);
  await processQueuedEvent(message!, deps);
  return { writes: [...counting.writes], body: body.length };
}

const total = (writes: CountedWrite[]) => writes.reduce((sum, w) => sum + w.table + w.index, 0);
const change = (from: string, to: string) =>
  stateChange(BOT, { oldState: from, newState: to, eventType: 'x', createdAtMicros: (clock + 1000) * 1000 });

describe('write units per event', () => {
  it('costs what the capacity model says, index copies included', async () => {
    const rows: Array<{ trigger: string; body: number; writes: CountedWrite[] }> = [];
    const measure = async (trigger: string, payload: { [key: string]: PyValue }) => {
      const measured = await cost(payload);
      rows.push({ trigger, ...measured });
      return measured;
    };
    await measure('bot.state_change (first)', change('joining', 'joined_recording'));
    const transcript = await measure('transcript.update (1 KB)', transcriptOfBytes(1024));
    const participant = await measure(
      'participant_events.join_leave',
      participantJoinLeave(BOT, {
        id: 'a8b2c4d6-e8f0-4a1b-8c3d-5e7f9a1b3c5d',
        name: 'Grace Hopper',
        uuid: '0b1c2d3e-4f50-4617-8293-a4b5c6d7e8f9',
        isHost: false,
        eventType: 'join',
        timestampMs: 1_300_000,
      }),
    );
    const state = await measure('bot.state_change', change('joined_recording', 'leaving'));
    const summary = await measure('summary.update (4 KB)', summaryUpdate(BOT, summaryText(4096)));
    const afterSummary = await measure('bot.state_change (after summary)', change('leaving', 'post_processing'));
    await measure('bot.state_change (ended)', change('post_processing', 'ended'));

    for (const { trigger, body, writes } of rows) {
      const detail = writes.map((w) => `${w.sk.split('#')[0]} ${w.after || w.before} B: ${w.table}+${w.index}`);
      console.log(
        `${trigger.padEnd(34)} body ${String(body).padStart(5)} B  ${total(writes)} WRU  (${detail.join(', ')})`,
      );
    }

    // The hot path: the ledger record (the ingress's; the consumer writes none) and the utterance,
    // 1 KB each at most, no index copy.
    expect(transcript.writes.map((w) => [w.kind, w.sk.split('#')[0], w.table, w.index])).toEqual([
      ['put', 'EVENT', 1, 0],
      ['update', 'UTT', 1, 0],
    ]);
    expect(total(transcript.writes)).toBe(2);
    expect(total(participant.writes)).toBeLessThanOrEqual(4);
    // Ledger record (ingress), claim and completion, history, state and last event time, each meeting
    // write with its index copy.
    expect(total(state.writes)).toBeLessThanOrEqual(9);
    expect(state.writes.filter((w) => w.sk.startsWith('EVENT#')).map((w) => w.kind)).toEqual([
      'put',
      'update',
      'update',
    ]);
    // The meeting item stays small while it is in the state index; the summary does not ride on it.
    for (const { writes } of [state, afterSummary]) {
      for (const w of writes.filter((w) => w.sk === 'MEETING')) expect(w.after).toBeLessThan(1024);
    }
    expect(summary.writes.filter((w) => w.index > 0)).toEqual([]);
  });
});
