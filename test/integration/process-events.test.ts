import { createHash } from 'node:crypto';
import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  PoisonEventError,
  type ProcessDependencies,
  processQueuedEvent,
} from '../../lambdas/core/events/process-event';
import { tableAcceptanceLog } from '../../lambdas/core/ingress/first-acceptance';
import { claimCheckKey } from '../../lambdas/core/queue/queued-event';
import { keys, SK_PREFIX } from '../../lambdas/core/store/table-layout';
import { sqsClient } from '../../lambdas/shared/aws-clients';
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
import {
  createResources,
  type LocalPipeline,
  processDependencies,
  queuedMessage,
  type RecordedMetric,
  recordingTelemetry,
  startLocalPipeline,
} from '../fixtures/local-pipeline';
import { botItems, meetingItem, summaryItem } from '../fixtures/store-reader';

let pipeline: LocalPipeline;
let resources: LocalResources;
let deps: ProcessDependencies;
let metrics: RecordedMetric[];
let botSeq = 0;
let bot: string;

const T0 = Date.parse('2026-11-20T10:00:00Z');
const at = (seconds: number) => new Date(T0 + seconds * 1000);
const micros = (seconds: number) => (T0 + seconds * 1000) * 1000;
const processOne = (payload: Parameters<typeof queuedMessage>[0], receivedAtSeconds = 0) =>
  processQueuedEvent(queuedMessage(payload, at(receivedAtSeconds)), deps);

beforeAll(async () => {
  pipeline = await startLocalPipeline();
  resources = await createResources();
});
afterAll(async () => pipeline?.stop());
beforeEach(() => {
  bot = `bot_trigger${++botSeq}`;
  const recording = recordingTelemetry();
  metrics = recording.metrics;
  deps = processDependencies(resources, recording.telemetry);
});

const change = (oldState: string, newState: string, seconds: number, eventType = 'state_change') =>
  stateChange(bot, { oldState, newState, eventType, createdAtMicros: micros(seconds) });

async function archiveMessages(): Promise<string[]> {
  const bodies: string[] = [];
  for (;;) {
    const { Messages = [] } = await sqsClient().send(
      new ReceiveMessageCommand({
        QueueUrl: resources.archiveQueueUrl,
        MaxNumberOfMessages: 10,
        VisibilityTimeout: 60,
      }),
    );
    if (Messages.length === 0) return bodies;
    bodies.push(...Messages.map((m) => m.Body ?? ''));
  }
}

describe('bot.state_change', () => {
  it('moves the meeting through its states and keeps the history', async () => {
    await processOne(change('ready', 'joining', 1, 'join_requested'));
    await processOne(change('joining', 'joined_recording', 2, 'bot_joined_meeting'));
    const meeting = await meetingItem(resources.tableName, bot);
    expect(meeting).toMatchObject({
      state: 'joined_recording',
      stateAt: '2026-11-20T10:00:02+00:00',
      lastEventAt: '2026-11-20T10:00:02+00:00',
    });
    // In the state index under its bot's shard, and in no index by day.
    expect(meeting?.gsi2pk).toBe(keys.meetingsInState('joined_recording', bot));
    expect(meeting?.gsi2pk).toMatch(/^STATE#joined_recording#\d+$/);
    expect(meeting?.gsi1pk).toBeUndefined();
    const history = await botItems(resources.tableName, bot, 'STATE#');
    expect(history.map((h) => h.newState)).toEqual(['joining', 'joined_recording']);
  });

  it('keeps who removed the bot (remover_*, a Teams removal) in the history, value for value', async () => {
    const remover = {
      remover_name: 'Ada Lovelace',
      remover_uuid: 'p-ada',
      remover_user_uuid: null,
      remover_is_host: true,
    };
    await processOne(
      stateChange(bot, {
        oldState: 'joined_recording',
        newState: 'post_processing',
        eventType: 'meeting_ended',
        createdAtMicros: micros(3),
        metadata: remover,
      }),
    );
    const [removal] = await botItems(resources.tableName, bot, 'STATE#');
    expect(removal).toMatchObject({ eventType: 'meeting_ended', newState: 'post_processing' });
    expect(JSON.parse(String(removal?.eventMetadata))).toEqual(remover);
  });

  it('never lets a late event move the state backwards', async () => {
    await processOne(change('joining', 'joined_recording', 2));
    await processOne(change('joined_recording', 'leaving', 5));
    await processOne(change('joining', 'joined_recording', 2)); // the same moment, re-sent later
    await processOne(change('waiting_room', 'joining', 1)); // an older event arriving last
    expect(await meetingItem(resources.tableName, bot)).toMatchObject({
      state: 'leaving',
      lastEventAt: '2026-11-20T10:00:05+00:00',
    });
  });

  it('keeps a final state against later non-final events, and the earliest final state against later ones', async () => {
    await processOne(change('post_processing', 'ended', 10, 'post_processing_completed'));
    await processOne(change('joined_recording', 'joined_recording_paused', 12)); // after the end: ignored for state
    await processOne(change('ended', 'fatal_error', 13));
    const meeting = await meetingItem(resources.tableName, bot);
    expect(meeting).toMatchObject({ state: 'ended', lastEventAt: '2026-11-20T10:00:13+00:00' });
    expect(await botItems(resources.tableName, bot, 'STATE#')).toHaveLength(3);
  });

  it('lets data_deleted follow ended', async () => {
    await processOne(change('post_processing', 'ended', 10));
    await processOne(change('ended', 'data_deleted', 20, 'data_deletion'));
    await processOne(change('joining', 'joined_recording', 30));
    expect(await meetingItem(resources.tableName, bot)).toMatchObject({ state: 'data_deleted' });
  });

  it('orders events with equal created_at by lifecycle rank', async () => {
    await processOne(change('joined_recording', 'leaving', 7));
    await processOne(change('joining', 'joined_recording', 7));
    expect(await meetingItem(resources.tableName, bot)).toMatchObject({ state: 'leaving' });
  });

  it('keeps an unknown state, ranked below known ones at the same time', async () => {
    await processOne(change('joined_recording', 'joined_in_space', 3));
    expect(await meetingItem(resources.tableName, bot)).toMatchObject({ state: 'joined_in_space' });
    await processOne(change('joined_recording', 'joined_recording', 3));
    expect(await meetingItem(resources.tableName, bot)).toMatchObject({ state: 'joined_recording' });
  });

  it('queues exactly one archive job per meeting, whatever final events and duplicates arrive', async () => {
    const ended = change('post_processing', 'ended', 10, 'post_processing_completed');
    const fatal = change('joined_recording', 'fatal_error', 11);
    await processOne(ended);
    await processOne(ended, 1);
    await processOne(fatal);
    await processOne(ended, 2);
    // Other tests' meetings ended too; look at this one's jobs.
    const jobs = (await archiveMessages()).map((body) => JSON.parse(body)).filter((job) => job.bot_id === bot);
    expect(jobs).toEqual([{ bot_id: bot, reason: 'ended' }]);
    expect(await meetingItem(resources.tableName, bot)).toMatchObject({ archiveRequested: true });
    expect(metrics.filter((m) => m.name === 'ArchiveRequested')).toHaveLength(1);
  });
});

describe('transcript.update', () => {
  const utterance = (text: string | null, key?: string) =>
    transcriptUpdate(
      bot,
      { speakerName: 'Ada', speakerUuid: 'spk-1', isHost: true, timestampMs: 61_000, durationMs: 1500, text },
      key ? { idempotencyKey: key } : undefined,
    );

  it('stores one utterance per (timestamp, speaker) and lets the newest text win', async () => {
    await processOne(utterance('We ship on Thursdy'), 1);
    await processOne(utterance('We ship on Thursday.'), 9);
    await processOne(utterance('We ship on Thursdy'), 1); // the first send again, under a new key: older, ignored
    const [item, ...rest] = await botItems(resources.tableName, bot, SK_PREFIX.utterance);
    expect(rest).toHaveLength(0);
    expect(item).toMatchObject({
      text: 'We ship on Thursday.',
      speakerName: 'Ada',
      speakerIsHost: true,
      durationMs: 1500,
      timestampMs: 61_000,
      transcribed: true,
    });
  });

  it('stores an utterance without transcription as empty', async () => {
    await processOne(utterance(null));
    expect(await botItems(resources.tableName, bot, SK_PREFIX.utterance)).toEqual([
      expect.objectContaining({ text: '', transcribed: false }),
    ]);
  });

  it('keeps utterances in time order for reading the transcript', async () => {
    for (const [ms, speaker] of [
      [90_000, 'b'],
      [5_000, 'a'],
      [600_000, 'a'],
      [5_000, 'b'],
    ] as const) {
      await processOne(
        transcriptUpdate(bot, {
          speakerName: speaker,
          speakerUuid: speaker,
          isHost: false,
          timestampMs: ms,
          durationMs: 10,
          text: `${ms}`,
        }),
      );
    }
    const items = await botItems(resources.tableName, bot, SK_PREFIX.utterance);
    expect(items.map((i) => [i.timestampMs, i.speakerUuid])).toEqual([
      [5_000, 'a'],
      [5_000, 'b'],
      [90_000, 'b'],
      [600_000, 'a'],
    ]);
  });

  it('changes nothing on a duplicate delivery', async () => {
    const payload = utterance('Once.');
    expect((await processOne(payload)).status).toBe('applied');
    expect((await processOne(payload, 3)).status).toBe('duplicate');
    expect(metrics.map((m) => m.name)).toEqual(['EventApplied', 'EventDuplicate']);
  });

  it('never lets a late resend of an applied utterance overwrite its correction', async () => {
    const original = utterance('Thursdy', `${bot}-orig`);
    await processOne(original, 1);
    await processOne(utterance('Thursday', `${bot}-fix`), 9);
    // The service's manual resend reuses the key; it arrives last, so it looks newest.
    expect((await processOne(original, 60)).status).toBe('duplicate');
    expect(await botItems(resources.tableName, bot, SK_PREFIX.utterance)).toEqual([
      expect.objectContaining({ text: 'Thursday' }),
    ]);
  });
});

describe('participant_events.join_leave', () => {
  const event = (id: string, eventType: string, seconds: number, name = 'Grace') =>
    participantJoinLeave(bot, { id, name, uuid: 'p-1', isHost: false, eventType, timestampMs: seconds * 1000 });

  it('keeps every event and a participant record with first join and last leave', async () => {
    await processOne(event('pe_2', 'leave', 50));
    await processOne(event('pe_3', 'join', 60, 'Grace H.'));
    await processOne(event('pe_1', 'join', 10));
    await processOne(event('pe_4', 'leave', 95, 'Grace H.'));
    await processOne(event('pe_5', 'speech_start', 70, 'Grace H.'));
    expect(await botItems(resources.tableName, bot, 'PEV#')).toHaveLength(5);
    expect(await botItems(resources.tableName, bot, 'PART#')).toEqual([
      expect.objectContaining({
        participantUuid: 'p-1',
        name: 'Grace H.',
        isHost: false,
        firstJoinMs: 10_000,
        lastLeaveMs: 95_000,
      }),
    ]);
  });
});

describe('summary.update', () => {
  it('keeps the newest summary text once, and the rest of the data beside it', async () => {
    await processOne(summaryUpdate(bot, 'Second draft.'), 20);
    await processOne(summaryUpdate(bot, 'First draft.'), 10);
    const summary = await summaryItem(resources.tableName, bot);
    expect(summary).toMatchObject({ summary: 'Second draft.' });
    expect(JSON.parse(String(summary?.summaryData))).toEqual({ model: 'simulated' });
    // Its own item: the meeting item, copied into the state index, does not carry it.
    expect(await meetingItem(resources.tableName, bot)).toBeUndefined();
  });

  it('keeps a summary too large for the item in S3 with a pointer, never in the DLQ', async () => {
    const text = `${'A long meeting, summarised at length. '.repeat(5_600)}End.`; // 210 KB
    const payload = summaryUpdate(bot, text);
    expect((await processOne(payload, 30)).status).toBe('applied');
    const summary = await summaryItem(resources.tableName, bot);
    expect(summary?.summary).toBeUndefined();
    const stored = summary?.summaryStored as { bucket: string; key: string; bytes: number; sha256: string };
    expect(stored).toMatchObject({ bucket: resources.payloadBucket, bytes: Buffer.byteLength(text) });
    const object = await s3Client().send(new GetObjectCommand({ Bucket: stored.bucket, Key: stored.key }));
    const bytes = Buffer.from(await object.Body!.transformToByteArray());
    expect(bytes.toString('utf8')).toBe(text);
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(stored.sha256);
    expect(JSON.stringify(summary).length).toBeLessThan(10_000); // the text is not on the item twice, nor once
    // A redelivery changes nothing; a newer short summary replaces the pointer.
    expect((await processOne(payload, 31)).status).toBe('duplicate');
    await processOne(summaryUpdate(bot, 'Short again.'), 40);
    expect(await summaryItem(resources.tableName, bot)).toMatchObject({ summary: 'Short again.' });
    expect((await summaryItem(resources.tableName, bot))?.summaryStored).toBeUndefined();
  });
});

describe('unknown triggers and bad messages', () => {
  it('keeps an unknown trigger with its raw data, counts it and acknowledges it', async () => {
    const outcome = await processOne(webhook(bot, 'calendar.synced', { calendar: { id: 'c1' }, count: 3 }));
    expect(outcome.status).toBe('applied');
    expect(await botItems(resources.tableName, bot, 'RAW#')).toEqual([
      expect.objectContaining({ trigger: 'calendar.synced', data: '{"calendar":{"id":"c1"},"count":3}' }),
    ]);
    expect(metrics.map((m) => m.name)).toContain('UnknownTrigger');
  });

  it('refuses known-trigger data that breaks the contract as poison, naming the field', async () => {
    const broken = webhook(bot, 'transcript.update', { speaker_uuid: 'x', timestamp_ms: 'soon', transcription: null });
    await expect(processOne(broken)).rejects.toThrow(PoisonEventError);
    await expect(processOne(broken)).rejects.toThrow(/data\.timestamp_ms/);
  });

  it('reads a claim-checked body back from S3 and checks its digest', async () => {
    const payload = summaryUpdate(bot, 'From S3.');
    const message = queuedMessage(payload, at(0));
    const bytes = Buffer.from(message.body);
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    const key = claimCheckKey(at(0), sha256);
    await s3Client().send(new PutObjectCommand({ Bucket: resources.payloadBucket, Key: key, Body: bytes }));
    const pointer = { claimCheck: { bucket: resources.payloadBucket, key, bytes: bytes.length, sha256 } };
    await processQueuedEvent(
      { ...message, body: JSON.stringify(pointer), attributes: { ...message.attributes, body_location: 's3' } },
      deps,
    );
    expect(await summaryItem(resources.tableName, bot)).toMatchObject({ summary: 'From S3.' });

    const wrongDigest = { claimCheck: { ...pointer.claimCheck, sha256: '0'.repeat(64) } };
    await expect(
      processQueuedEvent(
        { ...message, body: JSON.stringify(wrongDigest), attributes: { ...message.attributes, body_location: 's3' } },
        deps,
      ),
    ).rejects.toThrow(/does not match its SHA-256/);
  });
});

describe('events too large for the table', () => {
  it('are poison with a reason that says so', async () => {
    const huge = transcriptUpdate(bot, {
      speakerName: 'A',
      speakerUuid: 's',
      isHost: false,
      timestampMs: 1,
      durationMs: 1,
      text: 'x'.repeat(500_000),
    });
    await expect(processOne(huge)).rejects.toThrow(/more than fits in one DynamoDB item/);
  });
});

describe('events the ingress recorded in the ledger', () => {
  /** As the ingress queues it: the ledger record written (by the real code), and the message saying so. */
  async function accepted(payload: Parameters<typeof queuedMessage>[0], seconds: number) {
    const message = queuedMessage(payload, at(seconds), { recorded: true });
    await tableAcceptanceLog(dynamoClient(), resources.tableName, {
      retentionSeconds: 86_400,
      now: Date.now,
    }).firstAcceptance({
      idempotencyKey: String(payload.idempotency_key),
      owner: String(payload.bot_id),
      trigger: String(payload.trigger),
      acceptedAt: at(seconds).toISOString(),
      body: { inline: message.body },
    });
    return message;
  }
  const deliver = async (message: Awaited<ReturnType<typeof accepted>>) =>
    (await processQueuedEvent(message, deps)).status;
  const ledgerStatus = async (key: unknown) =>
    (await deps.ledger.eventsOfBot(bot)).find((e) => e.idempotencyKey === key)?.status;

  it('applies each once and tells a redelivery from the items alone, the ledger untouched', async () => {
    const line = (text: string, key: string) =>
      transcriptUpdate(
        bot,
        { speakerName: 'Ada', speakerUuid: 'a', isHost: true, timestampMs: 5_000, durationMs: 900, text },
        { idempotencyKey: `${bot}-${key}` },
      );
    const events = [
      await accepted(line('draft', 'u1'), 1),
      await accepted(line('corrected', 'u2'), 2),
      await accepted(
        participantJoinLeave(bot, {
          id: 'pe',
          name: 'Grace',
          uuid: 'p',
          isHost: false,
          eventType: 'join',
          timestampMs: 1,
        }),
        3,
      ),
      await accepted(summaryUpdate(bot, 'Done.'), 4),
      await accepted(webhook(bot, 'calendar.synced', { x: 1 }), 5),
    ];
    const [draft, correction, ...others] = events;
    expect(await deliver(correction!)).toBe('applied');
    // The draft, first accepted before its correction, arrives after it: refused as older, yet applied once.
    expect(await deliver(draft!)).toBe('applied');
    for (const message of others) expect(await deliver(message)).toBe('applied');
    for (const message of events) expect(await deliver(message)).toBe('duplicate');
    expect(await botItems(resources.tableName, bot, SK_PREFIX.utterance)).toEqual([
      expect.objectContaining({ text: 'corrected' }),
    ]);
    for (const message of events) expect(await ledgerStatus(message.attributes.idempotency_key)).toBe('recorded');
  });

  it('claims, applies and completes a state change on the record the ingress wrote', async () => {
    const message = await accepted(change('ready', 'joining', 1), 1);
    expect(await ledgerStatus(message.attributes.idempotency_key)).toBe('recorded');
    expect(await deliver(message)).toBe('applied');
    expect(await ledgerStatus(message.attributes.idempotency_key)).toBe('completed');
    expect(await deliver(message)).toBe('duplicate');
    expect(await meetingItem(resources.tableName, bot)).toMatchObject({ state: 'joining' });
  });
});
