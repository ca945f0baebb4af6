/**
 * Events per second through the consumer core against dynalite, beside dynalite's
 * own conditional-put rate measured in the same run at the same concurrency, and
 * the DynamoDB writes each trigger costs.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { localTableShape } from '../capacity/measure';
import { meteredDynamo, newMeter } from '../capacity/metered-clients';
import { processQueuedEvent, type QueuedMessage } from '../lambdas/core/events/process-event';
import { EVENT_ATTRIBUTES, LEDGER_RECORDED } from '../lambdas/core/queue/queued-event';
import { silentTelemetry } from '../lambdas/core/telemetry';
import { processEventsDependencies } from '../lambdas/process-events/adapter';
import { sqsClient } from '../lambdas/shared/aws-clients';
import { documentClient } from '../lambdas/shared/dynamo-client';
import { s3Client } from '../lambdas/shared/s3-client';
import { startDynamoEmulatorProcess } from '../local/emulators/dynalite';
import { startSqsS3Emulator } from '../local/emulators/fauxqs';
import { eventLogPublisher, scratchEventsFile } from '../local/event-log-publisher';
import { createLocalResources, type LocalResources, localProcessEventsEnvironment } from '../local/resources';
import { participantJoinLeave, stateChange, summaryUpdate, transcriptUpdate } from '../local/simulator/payloads';
import { dumps, type PyValue, WIRE } from '../local/simulator/python-json';
import { GOALS } from './goals';
import { fmt, median, verdict } from './stats';

const CONCURRENCY = 16;
const EVENTS = 3_000;
const ROUNDS = 3;

/** A message as the ingress queues it once it has recorded the event in the ledger (its one write). */
function message(payload: { [key: string]: PyValue }, index: number): QueuedMessage {
  return {
    messageId: `m${index}`,
    body: dumps(payload, WIRE),
    attributes: {
      received_at: new Date(Date.parse('2026-11-20T10:00:00Z') + index).toISOString(),
      body_location: 'inline',
      [EVENT_ATTRIBUTES.ledger]: LEDGER_RECORDED,
    },
  };
}

async function inParallel<T>(items: T[], worker: (item: T) => Promise<unknown>): Promise<number> {
  let next = 0;
  const start = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < items.length) await worker(items[next++] as T);
    }),
  );
  return items.length / (Number(process.hrtime.bigint() - start) / 1e9);
}

function transcriptEvents(round: number): QueuedMessage[] {
  return Array.from({ length: EVENTS }, (_, i) =>
    message(
      transcriptUpdate(
        `bot_bench${round}_${i % 50}`,
        {
          speakerName: 'Ada',
          speakerUuid: `s${i % 3}`,
          isHost: false,
          timestampMs: i * 1000,
          durationMs: 900,
          text: `utterance ${i}`,
        },
        { idempotencyKey: `r${round}-e${i}` },
      ),
      i,
    ),
  );
}

export async function benchEvents(): Promise<string[]> {
  const [dynamo, sqsS3] = await Promise.all([startDynamoEmulatorProcess(), startSqsS3Emulator()]);
  Object.assign(process.env, dynamo.env, sqsS3.env);
  try {
    const resources: LocalResources = await createLocalResources(
      { dynamo: new DynamoDBClient({}), sqs: sqsClient(), s3: s3Client() },
      { prefix: 'bench', visibilityTimeoutSeconds: 30 },
    );
    const meter = newMeter();
    const metered = meteredDynamo(documentClient(), {
      raw: new DynamoDBClient({}),
      tableName: resources.tableName,
      table: localTableShape(resources.tableName),
      marshalled: false,
      meter: meter.dynamo,
    });
    const consumer = (db: typeof metered) =>
      processEventsDependencies(
        localProcessEventsEnvironment(resources),
        { db, sqs: sqsClient(), s3: s3Client(), events: eventLogPublisher({ file: scratchEventsFile() }) },
        silentTelemetry,
      );
    // The rates run on the plain client; the meter (a read before and after each write) only prices the samples.
    const deps = consumer(documentClient());
    const meteredDeps = consumer(metered);
    const raw = documentClient();
    const rawRates: number[] = [];
    const rawBodyRates: number[] = [];
    const consumerRates: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const events = transcriptEvents(round);
      const put = (key: string, item: Record<string, unknown>) =>
        raw.send(
          new PutCommand({
            TableName: resources.tableName,
            Item: { pk: key, sk: 'RAW', ...item },
            ConditionExpression: 'attribute_not_exists(pk)',
          }),
        );
      rawRates.push(await inParallel(events, (m) => put(`raw-${round}-${m.messageId}`, { n: 1 })));
      rawBodyRates.push(await inParallel(events, (m) => put(`rawbody-${round}-${m.messageId}`, { body: m.body })));
      consumerRates.push(await inParallel(events, (m) => processQueuedEvent(m, deps)));
    }

    // Writes per event, by trigger, on fresh events.
    const bot = 'bot_writes';
    const t = Date.parse('2026-11-20T10:00:00Z') * 1000;
    const samples: Array<[string, { [key: string]: PyValue }]> = [
      [
        'transcript.update',
        transcriptUpdate(bot, {
          speakerName: 'A',
          speakerUuid: 's',
          isHost: false,
          timestampMs: 1,
          durationMs: 1,
          text: 'x',
        }),
      ],
      ['summary.update', summaryUpdate(bot, 'Summary.')],
      [
        'participant join',
        participantJoinLeave(bot, {
          id: 'pe1',
          name: 'G',
          uuid: 'p',
          isHost: false,
          eventType: 'join',
          timestampMs: 5,
        }),
      ],
      [
        'state change',
        stateChange(bot, {
          oldState: 'joining',
          newState: 'joined_recording',
          eventType: 'joined',
          createdAtMicros: t,
        }),
      ],
      [
        'state change to ended',
        stateChange(bot, {
          oldState: 'post_processing',
          newState: 'ended',
          eventType: 'done',
          createdAtMicros: t + 9e6,
        }),
      ],
    ];
    const writeLines: string[] = [];
    const units = () =>
      meter.dynamo.tableWriteUnits + Object.values(meter.dynamo.indexWriteUnits).reduce((a, b) => a + b, 0);
    for (const [name, payload] of samples) {
      const before = { writes: meter.dynamo.writeRequests, units: units() };
      await processQueuedEvent(message(payload, 0), meteredDeps);
      const fresh = { writes: meter.dynamo.writeRequests - before.writes, units: units() - before.units };
      const again = { writes: meter.dynamo.writeRequests, units: units() };
      await processQueuedEvent(message(payload, 1), meteredDeps);
      writeLines.push(
        `    ${name.padEnd(24)} ${fresh.writes} writes, ${fresh.units} write units (duplicate: ${meter.dynamo.writeRequests - again.writes} writes, ${units() - again.units} units)`,
      );
    }

    const ratio = median(consumerRates) / median(rawRates);
    const bodyRatio = median(consumerRates) / median(rawBodyRates);
    return [
      `events: ${fmt(EVENTS)} transcript.update events per round, ${CONCURRENCY} at a time, median of ${ROUNDS} rounds,`,
      '  dynalite in memory, in its own process (as a database would be)',
      `  consumer:                                        ${fmt(median(consumerRates))} events/s`,
      `  dynalite raw conditional put, minimal item:      ${fmt(median(rawRates))} puts/s`,
      `  dynalite raw conditional put, item with the body: ${fmt(median(rawBodyRates))} puts/s`,
      `  consumer / raw minimal put: ${fmt(ratio * 100)}% (${verdict(ratio, GOALS.consumerOverRawPut, false)}); / raw put with the body: ${fmt(bodyRatio * 100)}%`,
      '  DynamoDB writes and write units per event in the consumer, index copies included; the ingress adds its ledger record (1 unit for a ~1 KB body; goal ≤ 2 in all for transcript.update):',
      ...writeLines,
    ];
  } finally {
    await Promise.all([dynamo.stop(), sqsS3.stop()]);
  }
}
