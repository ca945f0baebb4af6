/**
 * Erasing a meeting (lambdas/core/erase): everything of a meeting seeded through the real write
 * paths is gone afterwards, every table item and every object version searched; a second call
 * returns the same receipt; a fault before or after any call (DynamoDB, S3, SQS), then a retry,
 * leaves nothing behind and gives one receipt; and what comes after the erasure (a late webhook,
 * a re-drive, a writer that read the meeting just before it) resurrects nothing.
 */
import { GetCommand, type GetCommandInput } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { eraseMeeting, resweepErasedMeeting } from '../../lambdas/core/erase/erase-meeting';
import type { ErasureReceipt } from '../../lambdas/core/erase/receipt';
import { processQueuedEvent } from '../../lambdas/core/events/process-event';
import { getMeeting } from '../../lambdas/core/read/get-meeting';
import { ReadApiError } from '../../lambdas/core/read/read-errors';
import { keys } from '../../lambdas/core/store/table-layout';
import { sqsClient } from '../../lambdas/shared/aws-clients';
import { documentClient } from '../../lambdas/shared/dynamo-client';
import { s3Client } from '../../lambdas/shared/s3-client';
import { s3ReadObjects } from '../../lambdas/shared/s3-read-objects';
import { transcriptUpdate } from '../../local/simulator/payloads';
import { eraseDeps, eraseWorldOfFile, seedMeeting, tombstoneOnly, tracesOf } from '../fixtures/erase-harness';
import { faultyClient } from '../fixtures/faulty-client';
import { processDependencies, queuedMessage, recordingTelemetry } from '../fixtures/local-pipeline';

const world = eraseWorldOfFile();

function harness() {
  const db = faultyClient(documentClient());
  const s3 = faultyClient(s3Client());
  const sqs = faultyClient(sqsClient());
  return { db, s3, sqs, deps: eraseDeps(world, { db: db.client, s3: s3.client, sqs: sqs.client }) };
}

let clean: { receipt: ErasureReceipt; calls: { db: number; s3: number; sqs: number } };

describe('erasing a meeting', () => {
  beforeAll(async () => {
    const { botId } = await seedMeeting(world);
    expect((await tracesOf(world, botId)).length).toBeGreaterThan(10);
    const h = harness();
    const receipt = await eraseMeeting(botId, 'request', h.deps);
    clean = { receipt, calls: { db: h.db.calls(), s3: h.s3.calls(), sqs: h.sqs.calls() } };
    expect(await tracesOf(world, botId)).toEqual(tombstoneOnly(botId));
  }, 60_000);

  it('removes every store of it and says so in the receipt', () => {
    console.log('erasure receipt', JSON.stringify(clean.receipt, null, 2), 'calls', clean.calls);
    expect(clean.receipt.counts).toEqual({
      // meeting item aside: 2 state changes, 4 utterances, participant, participant event, summary
      meeting_items: 9,
      // 8 webhooks (2 state changes, participant, summary, 4 lines): recorded by the consumer (no ingress here)
      ledger_records: 8,
      // claim-checked body, long summary, quarantine entry
      payload_objects: 3,
      // recording, two transcript versions, participants and its delete marker
      recording_objects: 5,
      day_listings: 1,
      schedule_links: 1,
      // launched by a schedule of the API, not a calendar's
      calendar_feeds: 0,
      // no lake rows written here (test/integration/lake-erasure.test.ts)
      lake_rows: 0,
      lake_objects: 0,
      query_results: 0,
    });
    expect(clean.receipt.retained.map((copy) => [copy.store, copy.until])).toEqual([
      ['dead-letter-queues', '2026-12-07T12:00:00.000Z'],
      ['point-in-time-backups', '2026-12-28T12:00:00.000Z'],
      ['domain-event-archive', '2026-12-23T12:00:00.000Z'],
      ['function-logs', '2026-12-23T12:00:00.000Z'],
      ['launcher-execution-history', '2027-02-21T12:00:00.000Z'],
      ['schedule', null],
    ]);
    const erased = world.events.events().filter((event) => event.detailType === 'meeting.erased');
    expect(erased.at(-1)?.detail).toMatchObject({ bot_id: clean.receipt.bot_id, receipt_id: clean.receipt.receipt_id });
  });

  it('returns the same receipt when asked again', async () => {
    expect(await eraseMeeting(clean.receipt.bot_id, 'request', eraseDeps(world))).toEqual(clean.receipt);
  });

  it('answers 404 "erased" on the read API', async () => {
    const read = getMeeting(clean.receipt.bot_id, {
      table: { db: documentClient(), tableName: world.resources.tableName },
      objects: s3ReadObjects(s3Client()),
    });
    await expect(read).rejects.toThrow(ReadApiError);
    await expect(read).rejects.toThrow(new RegExp(`erased.*${clean.receipt.receipt_id}`));
  });

  it('a fault before or after any call (DynamoDB, S3, SQS), then a retry: nothing left, one receipt', async () => {
    const tried: string[] = [];
    for (const client of ['db', 's3', 'sqs'] as const) {
      for (const mode of ['before', 'after'] as const) {
        for (let failAt = 1; failAt <= clean.calls[client]; failAt++) {
          const { botId } = await seedMeeting(world);
          const h = harness();
          h[client].reset({ failAt, mode });
          await expect(eraseMeeting(botId, 'request', h.deps), `${client} ${failAt} ${mode}`).rejects.toThrow(
            /injected fault/,
          );
          h[client].reset();
          const receipt = await eraseMeeting(botId, 'request', h.deps);
          expect(receipt.counts, `${client} ${failAt} ${mode}`).toEqual(clean.receipt.counts);
          expect(await eraseMeeting(botId, 'request', eraseDeps(world))).toEqual(receipt);
          expect(await tracesOf(world, botId), `${client} ${failAt} ${mode}`).toEqual(tombstoneOnly(botId));
          tried.push(`${client}${failAt}${mode}`);
        }
      }
    }
    expect(tried).toHaveLength(2 * (clean.calls.db + clean.calls.s3 + clean.calls.sqs));
  }, 600_000);
});

describe('a long meeting', () => {
  it('erases 2,000 utterances (and their 2,000 ledger records) in one call', async () => {
    const { botId } = await seedMeeting(world, { utterances: 2000 });
    const started = performance.now();
    const receipt = await eraseMeeting(botId, 'request', eraseDeps(world));
    const ms = performance.now() - started;
    console.log(`erased a meeting with 2,000 utterances in ${Math.round(ms)} ms`, receipt.counts);
    expect(receipt.counts).toMatchObject({ meeting_items: 2006, ledger_records: 2005 });
    expect(await tracesOf(world, botId)).toEqual(tombstoneOnly(botId));
  }, 300_000);
});

describe('after an erasure', () => {
  it('a late webhook and a re-drive of every earlier one are acknowledged, dropped and counted', async () => {
    const { botId, messages } = await seedMeeting(world);
    await eraseMeeting(botId, 'request', eraseDeps(world));
    const { telemetry, metrics } = recordingTelemetry();
    const deps = processDependencies(world.resources, telemetry, { events: world.events.publisher });
    const late = queuedMessage(
      transcriptUpdate(botId, {
        speakerName: 'Ada',
        speakerUuid: 's9',
        isHost: false,
        timestampMs: 1,
        durationMs: 1,
        text: 'late line',
      }),
      new Date(),
    );
    for (const message of [late, ...messages]) {
      expect(await processQueuedEvent(message, deps)).toMatchObject({ status: 'dropped' });
    }
    expect(metrics.filter((metric) => metric.name === 'EventDroppedErased')).toHaveLength(messages.length + 1);
    expect(await tracesOf(world, botId)).toEqual(tombstoneOnly(botId));
  }, 60_000);

  it('a transcript line that read the meeting just before the erasure is removed by the second sweep', async () => {
    const { botId } = await seedMeeting(world);
    // The consumer's client holds its meeting read's answer until the erasure has run.
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let reached: () => void = () => {};
    const readDone = new Promise<void>((resolve) => {
      reached = resolve;
    });
    const real = documentClient();
    const paused = Object.create(real) as typeof real;
    paused.send = (async (command: { input: GetCommandInput }) => {
      const answer = await real.send(command as never);
      if (command instanceof GetCommand && command.input.Key?.sk === 'MEETING') {
        reached();
        await held;
      }
      return answer;
    }) as typeof real.send;
    const consumer = processDependencies(world.resources, undefined, { db: paused, events: world.events.publisher });
    const line = queuedMessage(
      transcriptUpdate(botId, {
        speakerName: 'Ada',
        speakerUuid: 's7',
        isHost: false,
        timestampMs: 7,
        durationMs: 1,
        text: `raced line of ${botId}`,
      }),
      new Date(),
      { recorded: true },
    );
    const applying = processQueuedEvent(line, consumer);
    await readDone;
    const { telemetry, metrics } = recordingTelemetry();
    const deps = { ...eraseDeps(world), telemetry };
    await eraseMeeting(botId, 'request', deps);
    release();
    expect(await applying).toMatchObject({ status: 'applied' });
    // The race happened: the line was written after the sweep.
    expect(await tracesOf(world, botId)).toContain(`table ${keys.bot(botId)} ${keys.utterance(botId, 7, 's7').sk}`);

    expect(await resweepErasedMeeting(botId, deps)).toBe(1);
    expect(metrics.map((metric) => metric.name)).toContain('ErasedLateWritesRemoved');
    expect(await tracesOf(world, botId)).toEqual(tombstoneOnly(botId));
  }, 60_000);
});
