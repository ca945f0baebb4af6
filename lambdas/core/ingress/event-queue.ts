import { createHash } from 'node:crypto';
import { type MessageAttributeValue, SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { PayloadStore } from '../queue/payload-store';
import {
  type BodyLocation,
  type ClaimCheckPointer,
  claimCheckKey,
  EVENT_ATTRIBUTES,
  SQS_INVALID_CHARACTER,
} from '../queue/queued-event';

export interface QueuedEventMeta {
  idempotencyKey: string;
  botId: string;
  trigger: string;
  /** When the event was first accepted (ISO 8601, to the microsecond): orders re-sends downstream. */
  receivedAt: string;
}

export interface EnqueueResult {
  messageId: string;
  bodyLocation: BodyLocation;
}

/** Where accepted webhooks go; resolves only once the event is durably stored. */
export interface EventQueue {
  enqueue(rawBody: string, meta: QueuedEventMeta): Promise<EnqueueResult>;
}

export interface SqsEventQueueConfig {
  queueUrl: string;
  /** Largest message (body plus attributes) sent inline; larger bodies are claim-checked. */
  inlineLimitBytes: number;
}

/** Attribute values are for routing and debugging only; the body stays the source of truth. */
const ATTRIBUTE_VALUE_MAX_CHARS = 256;

export class SqsEventQueue implements EventQueue {
  constructor(
    private readonly sqs: SQSClient,
    private readonly payloads: PayloadStore,
    private readonly config: SqsEventQueueConfig,
  ) {}

  async enqueue(rawBody: string, meta: QueuedEventMeta): Promise<EnqueueResult> {
    const inlineAttributes = attributesFor(meta, 'inline');
    const inlineBytes = Buffer.byteLength(rawBody, 'utf8') + attributesBytes(inlineAttributes);
    // SQS refuses some characters JSON allows (e.g. U+FFFE); S3 stores any bytes.
    if (inlineBytes <= this.config.inlineLimitBytes && !SQS_INVALID_CHARACTER.test(rawBody)) {
      const sent = await this.sqs.send(
        new SendMessageCommand({
          QueueUrl: this.config.queueUrl,
          MessageBody: rawBody,
          MessageAttributes: inlineAttributes,
        }),
      );
      return { messageId: requireMessageId(sent.MessageId), bodyLocation: 'inline' };
    }
    const pointer = await this.storeBody(rawBody, new Date(meta.receivedAt));
    const sent = await this.sqs.send(
      new SendMessageCommand({
        QueueUrl: this.config.queueUrl,
        MessageBody: JSON.stringify(pointer),
        MessageAttributes: attributesFor(meta, 's3'),
      }),
    );
    return { messageId: requireMessageId(sent.MessageId), bodyLocation: 's3' };
  }

  private async storeBody(rawBody: string, receivedAt: Date): Promise<ClaimCheckPointer> {
    const bytes = Buffer.from(rawBody, 'utf8');
    const sha256 = createHash('sha256').update(bytes).digest();
    const key = claimCheckKey(receivedAt, sha256.toString('hex'));
    await this.payloads.put(key, bytes, sha256);
    return { claimCheck: { bucket: this.payloads.bucket, key, bytes: bytes.length, sha256: sha256.toString('hex') } };
  }
}

function attributesFor(meta: QueuedEventMeta, location: BodyLocation): Record<string, MessageAttributeValue> {
  const text = (value: string): MessageAttributeValue => ({ DataType: 'String', StringValue: attributeText(value) });
  return {
    [EVENT_ATTRIBUTES.trigger]: text(meta.trigger),
    [EVENT_ATTRIBUTES.botId]: text(meta.botId),
    [EVENT_ATTRIBUTES.idempotencyKey]: text(meta.idempotencyKey),
    [EVENT_ATTRIBUTES.receivedAt]: text(meta.receivedAt),
    [EVENT_ATTRIBUTES.bodyLocation]: text(location),
  };
}

function attributeText(value: string): string {
  const clean = value.replace(new RegExp(SQS_INVALID_CHARACTER, 'gu'), '\uFFFD').slice(0, ATTRIBUTE_VALUE_MAX_CHARS);
  return clean === '' ? '-' : clean;
}

/** SQS counts each attribute's name, data type and value toward the message size. */
function attributesBytes(attributes: Record<string, MessageAttributeValue>): number {
  let total = 0;
  for (const [name, value] of Object.entries(attributes)) {
    total +=
      Buffer.byteLength(name) + Buffer.byteLength(value.DataType ?? '') + Buffer.byteLength(value.StringValue ?? '');
  }
  return total;
}

function requireMessageId(messageId: string | undefined): string {
  if (messageId === undefined) throw new Error('SQS accepted the message but returned no MessageId');
  return messageId;
}
