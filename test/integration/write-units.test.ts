/**
 * What one event of each trigger costs in DynamoDB write units, index copies
 * included, counted from the sizes of the items the real code writes
 * (test/fixtures/write-units.ts). A hot-path change that adds a write, grows an
 * item past 1 KB or puts it back into an index copy fails here.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ProcessDependencies, processQueuedEvent } from '../../lambdas/core/events/process-event';
import { GSI } from '../../lambdas/core/store/table-layout';
import { documentClient } from '../../lambdas/shared/dynamo-client';
import type { LocalResources } from '../../local/resources';
import { participantJoinLeave, stateChange, summaryUpdate, transcriptUpdate } from '../../local/simulator/payloads';
import { dumps, type PyValue, WIRE } from '../../local/simulator/python-json';
import {
  createResources,
  type LocalPipeline,
  processDependencies,
  queuedMessage,
  startLocalPipeline,
} from '../fixtures/local-pipeline';
import { type CountedWrite, type CountingClient, countingClient } from '../fixtures/write-units';

let pipeline: LocalPipeline;
let resources: LocalResources;
let counting: CountingClient;
let deps: ProcessDependencies;

beforeAll(async () => {
  pipeline = await startLocalPipeline();
  resources = await createResources();
  counting = countingClient(
    documentClient(),
    Object.values(GSI).map((index) => index.partitionKey),
  );
  deps = processDependencies(resources, undefined, { db: counting.client });
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

async function cost(payload: { [key: string]: PyValue }): Promise<{ writes: CountedWrite[]; body: number }> {
  counting.reset();
  clock += 1000;
  const message = queuedMessage(payload, new Date(clock));
  await processQueuedEvent(message, deps);
  return { writes: [...counting.writes], body: Buffer.byteLength(message.body) };
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

    // The hot path: the ledger record and the utterance, 1 KB each at most, no index copy.
    expect(transcript.writes.map((w) => [w.table, w.index])).toEqual([
      [1, 0],
      [1, 0],
    ]);
    expect(total(participant.writes)).toBeLessThanOrEqual(4);
    // Ledger claim and completion, history, state and last event time, each meeting write with its index copy.
    expect(total(state.writes)).toBeLessThanOrEqual(8);
    // The meeting item stays small while it is in the state index; the summary does not ride on it.
    for (const { writes } of [state, afterSummary]) {
      for (const w of writes.filter((w) => w.sk === 'MEETING')) expect(w.after).toBeLessThan(1024);
    }
    expect(summary.writes.filter((w) => w.index > 0)).toEqual([]);
  });
});
