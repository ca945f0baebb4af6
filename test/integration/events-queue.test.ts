/**
 * The queue path with the real handlers: the ingress queues signed webhooks, the
 * process-events handler consumes them in batches with partial failures, and a
 * message that can never be applied ends in the DLQ after maxReceiveCount receives.
 */

import { ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QUEUE_SETTINGS } from '../../lambdas/core/queue/queue-settings';
import { SK_PREFIX } from '../../lambdas/core/store/table-layout';
import { createIngressHandler } from '../../lambdas/ingress/adapter';
import { createProcessEventsHandler } from '../../lambdas/process-events/adapter';
import { sqsClient } from '../../lambdas/shared/aws-clients';
import { QueuePoller } from '../../local/queue-poller';
import type { LocalResources } from '../../local/resources';
import { stateChange, transcriptUpdate, webhook } from '../../local/simulator/payloads';
import type { PyValue } from '../../local/simulator/python-json';
import { localIngress } from '../fixtures/local-ingress';
import {
  createResources,
  type LocalPipeline,
  processDependencies,
  recordingTelemetry,
  startLocalPipeline,
} from '../fixtures/local-pipeline';
import { pollUntilEmpty, queueDepth } from '../fixtures/queues';
import { botItems, meetingItem } from '../fixtures/store-reader';
import { newSigningSecret, signedEvent } from '../fixtures/webhooks';

/** Adds per-word timings, as a richer transcription provider might send. */
function withWordTimings(payload: ReturnType<typeof transcriptUpdate>, words: number) {
  const data = payload.data as { [key: string]: PyValue };
  data.words = Array.from({ length: words }, (_, i) => ({ word: `word${i}`, start_ms: i * 100, end_ms: i * 100 + 90 }));
  return payload;
}

let pipeline: LocalPipeline;
let resources: LocalResources;
const secret = newSigningSecret();

beforeAll(async () => {
  pipeline = await startLocalPipeline();
  resources = await createResources({ visibilityTimeoutSeconds: 1 });
});
afterAll(async () => pipeline?.stop());

describe('events queue with the real handlers', () => {
  it('carries signed webhooks from the ingress into the store', async () => {
    const ingress = createIngressHandler(
      // A limit above the SQS message size, so the claim-checked path is taken (the default is 1 MiB).
      localIngress(resources, { signingSecret: secret, overrides: { MAX_BODY_BYTES: String(3 * 1024 * 1024) } }),
    );
    const bot = 'bot_queue_path';
    const t = Date.parse('2026-11-20T12:00:00Z') * 1000;
    const payloads = [
      stateChange(bot, {
        oldState: 'joining',
        newState: 'joined_recording',
        eventType: 'bot_joined',
        createdAtMicros: t,
      }),
      transcriptUpdate(bot, {
        speakerName: 'Ada',
        speakerUuid: 's1',
        isHost: true,
        timestampMs: 1000,
        durationMs: 800,
        text: 'Hello',
      }),
      // Over the SQS limit (claim-checked), with the bulk in a field the utterance item does not keep.
      withWordTimings(
        transcriptUpdate(bot, {
          speakerName: 'Lin',
          speakerUuid: 's2',
          isHost: false,
          timestampMs: 2000,
          durationMs: 900,
          text: 'Long answer',
        }),
        40_000,
      ),
      stateChange(bot, {
        oldState: 'post_processing',
        newState: 'ended',
        eventType: 'done',
        createdAtMicros: t + 60_000_000,
      }),
    ];
    for (const payload of payloads) {
      // Every webhook twice, as a service retry would deliver it.
      for (let i = 0; i < 2; i++) expect((await ingress(signedEvent(payload, secret))).statusCode).toBe(202);
    }
    const poller = new QueuePoller({
      sqs: sqsClient(),
      queueUrl: resources.eventsQueueUrl,
      handler: createProcessEventsHandler(processDependencies(resources)),
    });
    await pollUntilEmpty(poller, resources.eventsQueueUrl);

    expect(await meetingItem(resources.tableName, bot)).toMatchObject({ state: 'ended', archiveRequested: true });
    const utterances = await botItems(resources.tableName, bot, SK_PREFIX.utterance);
    expect(utterances.map((u) => [u.speakerName, u.text])).toEqual([
      ['Ada', 'Hello'],
      ['Lin', 'Long answer'],
    ]);
    const ledger = await processDependencies(resources).ledger.eventsOfBot(bot);
    expect(ledger).toHaveLength(4);
    expect(ledger.filter((e) => 'stored' in e.body)).toHaveLength(1); // the large body is kept by reference
    expect(await queueDepth(resources.eventsDeadLetterQueueUrl)).toBe(0);
  });

  it(`moves a message that can never be applied to the DLQ after ${QUEUE_SETTINGS.maxReceiveCount} receives`, async () => {
    const { telemetry, metrics } = recordingTelemetry();
    const poison = webhook('bot_poison', 'bot.state_change', { new_state: 'ended' }); // no created_at, no old_state
    const { dumps, WIRE } = await import('../../local/simulator/python-json');
    await sqsClient().send(
      new SendMessageCommand({
        QueueUrl: resources.eventsQueueUrl,
        MessageBody: dumps(poison, WIRE),
        MessageAttributes: { body_location: { DataType: 'String', StringValue: 'inline' } },
      }),
    );
    const poller = new QueuePoller({
      sqs: sqsClient(),
      queueUrl: resources.eventsQueueUrl,
      handler: createProcessEventsHandler(processDependencies(resources, telemetry)),
    });
    await pollUntilEmpty(poller, resources.eventsQueueUrl);

    const failures = metrics.filter((m) => m.name === 'EventFailed');
    expect(failures).toHaveLength(QUEUE_SETTINGS.maxReceiveCount);
    expect(failures[0]?.dimensions).toEqual({ reason: 'PoisonEventError' });
    const { Messages = [] } = await sqsClient().send(
      new ReceiveMessageCommand({ QueueUrl: resources.eventsDeadLetterQueueUrl, MaxNumberOfMessages: 10 }),
    );
    expect(Messages.map((m) => JSON.parse(m.Body ?? '{}').bot_id)).toEqual(['bot_poison']);
    expect(await meetingItem(resources.tableName, 'bot_poison')).toBeUndefined();
  });
});
