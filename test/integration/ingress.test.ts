import { createHash, randomBytes } from 'node:crypto';
import { GetObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { type Message, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventLedger } from '../../lambdas/core/events/event-ledger';
import { claimCheckPointerSchema } from '../../lambdas/core/queue/queued-event';
import { type SecretSource, staticSecret } from '../../lambdas/core/secrets';
import { type MetricSink, silentTelemetry } from '../../lambdas/core/telemetry';
import { createIngressHandler, type IngressHandler } from '../../lambdas/ingress/adapter';
import { sqsClient } from '../../lambdas/shared/aws-clients';
import { documentClient } from '../../lambdas/shared/dynamo-client';
import { s3Client } from '../../lambdas/shared/s3-client';
import type { LocalResources } from '../../local/resources';
import { badDeliveries, signedUnboundDeliveries } from '../fixtures/bad-webhooks';
import { localIngress } from '../fixtures/local-ingress';
import { createResources, type LocalPipeline, startLocalPipeline } from '../fixtures/local-pipeline';
import { newSigningSecret, signedEvent, transcriptEnvelope } from '../fixtures/webhooks';

const secret = newSigningSecret();
const MAX_BODY_BYTES = 3 * 1024 * 1024;
let pipeline: LocalPipeline;
let tableName: string;
let resources: LocalResources;
const metricPoints: Array<{ name: string; dimensions?: Record<string, string> }> = [];
const metrics: MetricSink = {
  emit: (metric, _value, ...dimensions) =>
    void metricPoints.push({ name: metric.name, ...(dimensions[0] && { dimensions: { ...dimensions[0] } }) }),
};

function handlerWith(
  overrides: { signingSecret?: SecretSource; sqs?: ReturnType<typeof sqsClient> } = {},
): IngressHandler {
  return createIngressHandler(
    localIngress(resources, {
      signingSecret: overrides.signingSecret ?? secret,
      overrides: { MAX_BODY_BYTES: String(MAX_BODY_BYTES) },
      telemetry: { ...silentTelemetry, metrics },
      ...(overrides.sqs !== undefined && { sqs: overrides.sqs }),
    }),
  );
}

async function drain(): Promise<Message[]> {
  const all: Message[] = [];
  for (;;) {
    const { Messages = [] } = await sqsClient().send(
      new ReceiveMessageCommand({
        QueueUrl: resources.eventsQueueUrl,
        MaxNumberOfMessages: 10,
        MessageAttributeNames: ['All'],
        WaitTimeSeconds: 0,
      }),
    );
    if (Messages.length === 0) return all;
    all.push(...Messages);
  }
}

beforeAll(async () => {
  pipeline = await startLocalPipeline();
  resources = await createResources();
  tableName = resources.tableName;
});

afterAll(async () => {
  await pipeline?.stop();
});

describe('ingress handler with a local SQS and S3', () => {
  it('queues a signed webhook with its attributes and answers 202', async () => {
    const envelope = transcriptEnvelope();
    const event = signedEvent(envelope, secret);
    const response = await handlerWith()(event);
    expect(response.statusCode).toBe(202);
    const answer = JSON.parse(response.body ?? '');
    expect(answer).toMatchObject({ status: 'accepted', idempotency_key: envelope.idempotency_key });

    const [message, ...rest] = await drain();
    expect(rest).toHaveLength(0);
    expect(message?.MessageId).toBe(answer.message_id);
    expect(message?.Body).toBe(event.body); // the raw body, byte for byte
    const attributes = Object.fromEntries(
      Object.entries(message?.MessageAttributes ?? {}).map(([k, v]) => [k, v.StringValue]),
    );
    expect(attributes).toMatchObject({
      trigger: 'transcript.update',
      bot_id: 'bot_7Gh2kLm9Qa',
      idempotency_key: envelope.idempotency_key,
      body_location: 'inline',
      ledger: 'recorded', // the ingress wrote the event's ledger record: the consumer writes none
    });
    expect(Date.parse(attributes.received_at ?? '')).toBeGreaterThan(Date.now() - 60_000);
  });

  it('accepts a base64-encoded body and an unknown trigger', async () => {
    const response = await handlerWith()(
      signedEvent(transcriptEnvelope({ trigger: 'bot.something_new', data: { x: 1 } }), secret, { base64: true }),
    );
    expect(response.statusCode).toBe(202);
    const messages = await drain();
    expect(messages.map((m) => m.MessageAttributes?.trigger?.StringValue)).toEqual(['bot.something_new']);
  });

  it('stores a body too big for SQS in S3 and queues a pointer to it', async () => {
    const text = 'Long meeting. '.repeat(120_000); // ~1.6 MB, above the 1 MiB SQS limit
    const event = signedEvent(transcriptEnvelope({ trigger: 'summary.update', data: { summary: text } }), secret);
    const response = await handlerWith()(event);
    expect(response.statusCode).toBe(202);

    const [message] = await drain();
    expect(message?.MessageAttributes?.body_location?.StringValue).toBe('s3');
    const pointer = claimCheckPointerSchema.parse(JSON.parse(message?.Body ?? ''));
    const object = await s3Client().send(
      new GetObjectCommand({ Bucket: pointer.claimCheck.bucket, Key: pointer.claimCheck.key }),
    );
    const stored = Buffer.from(await object.Body!.transformToByteArray());
    expect(stored.toString('utf8')).toBe(event.body);
    expect(pointer.claimCheck.bytes).toBe(stored.length);
    expect(createHash('sha256').update(stored).digest('hex')).toBe(pointer.claimCheck.sha256);
    // The ledger record keeps the same pointer, not the body.
    const ledger = new EventLedger(
      { db: documentClient(), tableName },
      { leaseMs: 60_000, retentionSeconds: 86_400, now: Date.now },
    );
    const key = message?.MessageAttributes?.idempotency_key?.StringValue;
    const events = (await ledger.eventsOfBot('bot_7Gh2kLm9Qa')).filter((e) => e.idempotencyKey === key);
    expect(events).toEqual([expect.objectContaining({ status: 'recorded', body: { stored: pointer } })]);
  });

  it('claim-checks a body that fits in a message but not, even compressed, in a ledger item', async () => {
    const noise = randomBytes(450 * 1024).toString('base64'); // ~600 KB that Brotli cannot shrink below 400 KB
    const event = signedEvent(transcriptEnvelope({ trigger: 'summary.update', data: { summary: noise } }), secret);
    expect((await handlerWith()(event)).statusCode).toBe(202);
    const [message] = await drain();
    expect(message?.MessageAttributes?.body_location?.StringValue).toBe('s3');
    expect(message?.MessageAttributes?.ledger?.StringValue).toBe('recorded');
    const pointer = claimCheckPointerSchema.parse(JSON.parse(message?.Body ?? ''));
    const object = await s3Client().send(
      new GetObjectCommand({ Bucket: pointer.claimCheck.bucket, Key: pointer.claimCheck.key }),
    );
    expect(Buffer.from(await object.Body!.transformToByteArray()).toString('utf8')).toBe(event.body);
  });

  it('claim-checks a body holding characters SQS refuses', async () => {
    const event = signedEvent(transcriptEnvelope(), secret);
    // U+FFFE is valid JSON text but not a valid SQS character; the signature covers it.
    const { signWebhook } = await import('../../local/simulator/webhook-signer');
    const signed = signWebhook({ ...transcriptEnvelope(), data: { note: 'odd \uFFFE char' } }, secret);
    const raw = signed.body.toString('utf8').replace('\\ufffe', '\uFFFE');
    const response = await handlerWith()({ ...event, body: raw, headers: { 'x-webhook-signature': signed.signature } });
    expect(response.statusCode).toBe(202);
    const [message] = await drain();
    expect(message?.MessageAttributes?.body_location?.StringValue).toBe('s3');
  });

  it('answers 503 and queues nothing while the signing secret cannot be read', async () => {
    const failing: SecretSource = { read: () => Promise.reject(new Error('AccessDeniedException')) };
    const response = await handlerWith({ signingSecret: failing })(signedEvent(transcriptEnvelope(), secret));
    expect(response.statusCode).toBe(503);
    expect(JSON.parse(response.body ?? '').error.code).toBe('signing-secret-unavailable');
    expect(await drain()).toHaveLength(0);
  });

  it('answers 503 (so the service retries) when SQS refuses the message', async () => {
    const sqs = sqsClient();
    sqs.send = () => Promise.reject(Object.assign(new Error('Service unavailable'), { name: 'ServiceUnavailable' }));
    const response = await handlerWith({ sqs })(signedEvent(transcriptEnvelope(), secret));
    expect(response.statusCode).toBe(503);
    expect(JSON.parse(response.body ?? '').error.code).toBe('queue-unavailable');
    expect(metricPoints.at(-1)?.name).toBe('WebhookQueueFailed');
  });

  it('accepts a webhook signed with either secret during rotation', async () => {
    const next = newSigningSecret();
    const rotating = staticSecret(JSON.stringify([secret, next]));
    expect((await handlerWith({ signingSecret: rotating })(signedEvent(transcriptEnvelope(), next))).statusCode).toBe(
      202,
    );
    expect((await handlerWith({ signingSecret: rotating })(signedEvent(transcriptEnvelope(), secret))).statusCode).toBe(
      202,
    );
    expect(await drain()).toHaveLength(2);
  });

  describe('bad-input corpus', () => {
    const corpus = badDeliveries(secret, MAX_BODY_BYTES);

    it('has at least 100 distinct requests, with the signed ones of another shape (accepted, see unbound-webhooks)', () => {
      expect(corpus.length + signedUnboundDeliveries(secret).length).toBeGreaterThanOrEqual(100);
      expect(new Set(corpus.map((c) => c.name)).size).toBe(corpus.length);
      expect(new Set(corpus.map((c) => `${c.event.body}|${JSON.stringify(c.event.headers)}`)).size).toBe(corpus.length);
    });

    it('answers each with the expected 4xx and a reason, and queues none', async () => {
      const handler = handlerWith();
      const quarantinedBefore = (
        await s3Client().send(new ListObjectsV2Command({ Bucket: resources.payloadBucket, Prefix: 'quarantine/' }))
      ).KeyCount;
      const results: Array<{
        name: string;
        status: number | undefined;
        code: string | undefined;
        message: string | undefined;
      }> = [];
      for (const delivery of corpus) {
        const response = await handler(delivery.event);
        const answer = JSON.parse(response.body ?? '{}');
        results.push({
          name: delivery.name,
          status: response.statusCode,
          code: answer.error?.code,
          message: answer.error?.message,
        });
      }
      const wrong = results.filter(
        (r, i) => r.status !== corpus[i]!.status || typeof r.code !== 'string' || !((r.message?.length ?? 0) > 10),
      );
      expect(wrong).toEqual([]);
      expect(await drain()).toHaveLength(0);
      const claimChecked = await s3Client().send(
        new ListObjectsV2Command({ Bucket: resources.payloadBucket, Prefix: 'claim-check/' }),
      );
      // Only the three claim-checked bodies from the tests above; nothing from the corpus.
      expect(claimChecked.KeyCount).toBe(3);
      // Bodies refused for their signature are kept aside (never queued), one per distinct body and signature.
      const mismatched = corpus.filter((_, i) => results[i]?.code === 'signature-mismatch');
      const distinct = new Set(mismatched.map((d) => `${d.event.body}\n${d.event.headers?.['x-webhook-signature']}`));
      const quarantined = await s3Client().send(
        new ListObjectsV2Command({ Bucket: resources.payloadBucket, Prefix: 'quarantine/' }),
      );
      expect(mismatched.length).toBeGreaterThan(0);
      expect((quarantined.KeyCount ?? 0) - (quarantinedBefore ?? 0)).toBe(distinct.size);
    });
  });
});
