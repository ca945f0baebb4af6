/**
 * What the hot path writes to CloudWatch Logs, with the real handlers and Powertools:
 * at INFO the ingress writes only its metrics document per accepted webhook, the
 * events consumer one line and one metrics document per batch of one trigger;
 * refusals and failures are always logged; DEBUG shows each event.
 */
import { randomUUID } from 'node:crypto';
import { ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import type { Context, SQSEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIngressHandler } from '../../lambdas/ingress/adapter';
import { createProcessEventsHandler } from '../../lambdas/process-events/adapter';
import { sqsClient } from '../../lambdas/shared/aws-clients';
import { createTelemetry, type PowertoolsTelemetry, withPowertools } from '../../lambdas/shared/powertools';
import type { LocalResources } from '../../local/resources';
import { transcriptUpdate } from '../../local/simulator/payloads';
import { localIngress } from '../fixtures/local-ingress';
import {
  createResources,
  type LocalPipeline,
  processDependencies,
  startLocalPipeline,
} from '../fixtures/local-pipeline';
import { newSigningSecret, signedEvent } from '../fixtures/webhooks';

const context = {
  awsRequestId: 'c0ffee00-1111-2222-3333-444455556666',
  functionName: 'pipeline-function',
  invokedFunctionArn: 'arn:aws:lambda:eu-west-1:111111111111:function:pipeline-function',
  memoryLimitInMB: '512',
  functionVersion: '$LATEST',
} as Context;

type Line = Record<string, unknown>;

/** The JSON lines written to stdout and stderr while `run` ran. */
async function linesWrittenBy(run: () => Promise<unknown>): Promise<Line[]> {
  const chunks: string[] = [];
  const streams = [process.stdout, process.stderr] as const;
  const writes = streams.map((stream) => stream.write);
  for (const stream of streams) {
    stream.write = ((chunk: string | Uint8Array) => {
      chunks.push(String(chunk));
      return true;
    }) as typeof stream.write;
  }
  try {
    await run();
  } finally {
    streams.forEach((stream, i) => {
      stream.write = writes[i] as typeof stream.write;
    });
  }
  return chunks
    .join('')
    .split('\n')
    .filter((line) => line.length > 0)
    .map((line) => JSON.parse(line) as Line);
}

const isEmf = (line: Line) => '_aws' in line;
const messages = (lines: Line[]) => lines.filter((line) => !isEmf(line)).map((line) => line.message);

let pipeline: LocalPipeline;
let resources: LocalResources;
const secret = newSigningSecret();

beforeAll(async () => {
  pipeline = await startLocalPipeline();
  resources = await createResources();
});
afterAll(async () => {
  await pipeline?.stop();
});

function ingress(tools: PowertoolsTelemetry) {
  const deps = localIngress(resources, { signingSecret: secret, telemetry: tools });
  return withPowertools(createIngressHandler(deps), tools);
}

const utterance = (botId: string, i: number) =>
  transcriptUpdate(botId, {
    speakerName: 'Ada Lovelace',
    speakerUuid: '16778240',
    isHost: true,
    timestampMs: 1_767_225_600_000 + i * 6000,
    durationMs: 4200,
    text: `Remark number ${i}.`,
  });

/** Queues `count` utterances of one bot through the ingress and receives them as one Lambda batch. */
async function queuedBatch(count: number): Promise<SQSEvent> {
  const botId = `bot_logs_${randomUUID().slice(0, 8)}`;
  const accept = ingress(createTelemetry('webhook-ingress'));
  for (let i = 0; i < count; i += 1) {
    await linesWrittenBy(() => accept(signedEvent(utterance(botId, i), secret), context));
  }
  const records: SQSEvent['Records'] = [];
  while (records.length < count) {
    const { Messages = [] } = await sqsClient().send(
      new ReceiveMessageCommand({
        QueueUrl: resources.eventsQueueUrl,
        MaxNumberOfMessages: 10,
        MessageAttributeNames: ['All'],
        WaitTimeSeconds: 1,
      }),
    );
    for (const m of Messages) {
      records.push({
        messageId: String(m.MessageId),
        receiptHandle: String(m.ReceiptHandle),
        body: String(m.Body),
        attributes: { ApproximateReceiveCount: '1' },
        messageAttributes: Object.fromEntries(
          Object.entries(m.MessageAttributes ?? {}).map(([k, v]) => [
            k,
            { stringValue: v.StringValue, dataType: 'String' },
          ]),
        ),
      } as unknown as SQSEvent['Records'][number]);
    }
  }
  return { Records: records };
}

describe('log volume on the hot path', () => {
  it('the ingress writes only one metrics document per accepted webhook, and still logs a refusal', async () => {
    const tools = createTelemetry('webhook-ingress');
    const accept = ingress(tools);
    const accepted = await linesWrittenBy(async () => {
      for (let i = 0; i < 3; i += 1) {
        const answer = await accept(signedEvent(utterance('bot_logs_ingress', i), secret), context);
        expect(answer.statusCode).toBe(202);
      }
    });
    expect(messages(accepted)).toEqual([]);
    expect(accepted.filter(isEmf)).toHaveLength(3);

    const refused = await linesWrittenBy(() =>
      accept(signedEvent(utterance('bot_logs_ingress', 9), newSigningSecret()), context),
    );
    expect(refused.filter((line) => !isEmf(line))).toContainEqual(
      expect.objectContaining({ level: 'WARN', message: 'webhook rejected', reason: 'signature-mismatch' }),
    );
  });

  it('the consumer writes one line and one metrics document for a batch of one trigger', async () => {
    const batch = await queuedBatch(10);
    const tools = createTelemetry('process-events');
    const consume = withPowertools(createProcessEventsHandler(processDependencies(resources, tools)), tools);
    const lines = await linesWrittenBy(() => consume(batch, context));
    expect(messages(lines)).toEqual(['events batch']);
    expect(lines.find((line) => line.message === 'events batch')).toMatchObject({
      level: 'INFO',
      records: 10,
      applied: 10,
      duplicates: 0,
      failed: 0,
      triggers: { 'transcript.update': 10 },
    });
    const emf = lines.filter(isEmf);
    expect(emf).toHaveLength(1);
    expect(emf[0]).toMatchObject({ trigger: 'transcript.update', EventApplied: Array(10).fill(1) });

    // Delivered again: all duplicates, still one line, the count in it.
    const again = await linesWrittenBy(() => consume(batch, context));
    expect(messages(again)).toEqual(['events batch']);
    expect(again.find((line) => line.message === 'events batch')).toMatchObject({ applied: 0, duplicates: 10 });
  });

  it('the consumer logs each failed event at ERROR beside the batch line', async () => {
    const [good, bad] = (await queuedBatch(2)).Records;
    const poisoned = { Records: [good, { ...bad, body: 'not json' }] } as SQSEvent;
    const tools = createTelemetry('process-events');
    const consume = withPowertools(createProcessEventsHandler(processDependencies(resources, tools)), tools);
    const lines = await linesWrittenBy(() => consume(poisoned, context));
    expect(lines.filter((line) => line.level === 'ERROR')).toEqual([
      expect.objectContaining({ message: 'event failed; it will be retried', reason: 'PoisonEventError' }),
    ]);
    expect(lines.find((line) => line.message === 'events batch')).toMatchObject({ applied: 1, failed: 1 });
  });

  it('at DEBUG each event has its own line', async () => {
    const batch = await queuedBatch(3);
    const tools = createTelemetry('process-events');
    tools.logger.setLogLevel('DEBUG');
    const consume = withPowertools(createProcessEventsHandler(processDependencies(resources, tools)), tools);
    const lines = await linesWrittenBy(() => consume(batch, context));
    expect(messages(lines).filter((message) => message === 'event applied')).toHaveLength(3);
  });
});
