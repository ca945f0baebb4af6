import { createHash } from 'node:crypto';
import { type MessageAttributeValue, SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { PayloadStore } from '../queue/payload-store';
import {
  type BodyLocation,
  type ClaimCheckPointer,
  claimCheckKey,
  EVENT_ATTRIBUTES,
  LEDGER_RECORDED,
  SQS_INVALID_CHARACTER,
} from '../queue/queued-event';

export interface QueuedEventMeta {
  idempotencyKey: string;
  botId: string;
  trigger: string;
  /** When the event was first accepted (ISO 8601, to the microsecond): orders re-sends downstream. */
  receivedAt: string;
  /** The ledger holds the event (the ingress recorded it): the consumer does not record it again. */
  recorded?: boolean;
}

export interface EnqueueOptions {
  /** Store the body in S3 even if it would fit in the message (the ledger keeps the pointer instead of the body). */
  claimCheck?: boolean;
}

export interface EnqueueResult {
  messageId: string;
  bodyLocation: BodyLocation;
}

/** Where accepted webhooks go; resolves only once the event is durably stored. */
export interface EventQueue {
  enqueue(rawBody: string, meta: QueuedEventMeta, options?: EnqueueOptions): Promise<EnqueueResult>;
  /**
   * Where enqueue will store the body when it goes to S3, computed without storing it (undefined:
   * it goes inline). Content-addressed under the first acceptance's day, so every delivery of an
   * event stores the same object.
   */
  claimCheckFor?(rawBody: string, meta: QueuedEventMeta, options?: EnqueueOptions): ClaimCheckPointer | undefined;
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

  claimCheckFor(rawBody: string, meta: QueuedEventMeta, options: EnqueueOptions = {}): ClaimCheckPointer | undefined {
    return this.goesInline(rawBody, meta, options)
      ? undefined
      : this.pointerFor(Buffer.from(rawBody, 'utf8'), meta).pointer;
  }

  async enqueue(rawBody: string, meta: QueuedEventMeta, options: EnqueueOptions = {}): Promise<EnqueueResult> {
    if (this.goesInline(rawBody, meta, options)) {
      const sent = await this.sqs.send(
        new SendMessageCommand({
          QueueUrl: this.config.queueUrl,
          MessageBody: rawBody,
          MessageAttributes: attributesFor(meta, 'inline'),
        }),
      );
      return { messageId: requireMessageId(sent.MessageId), bodyLocation: 'inline' };
    }
    const pointer = await this.storeBody(rawBody, meta);
    const sent = await this.sqs.send(
      new SendMessageCommand({
        QueueUrl: this.config.queueUrl,
        MessageBody: JSON.stringify(pointer),
        MessageAttributes: attributesFor(meta, 's3'),
      }),
    );
    return { messageId: requireMessageId(sent.MessageId), bodyLocation: 's3' };
  }

  private goesInline(rawBody: string, meta: QueuedEventMeta, options: EnqueueOptions): boolean {
    if (options.claimCheck === true) return false;
    const inlineBytes = Buffer.byteLength(rawBody, 'utf8') + attributesBytes(attributesFor(meta, 'inline'));
    // SQS refuses some characters JSON allows (e.g. U+FFFE); S3 stores any bytes.
    return inlineBytes <= this.config.inlineLimitBytes && !SQS_INVALID_CHARACTER.test(rawBody);
  }

  private pointerFor(bytes: Buffer, meta: QueuedEventMeta): { pointer: ClaimCheckPointer; sha256: Buffer } {
    const sha256 = createHash('sha256').update(bytes).digest();
    const key = claimCheckKey(new Date(meta.receivedAt), sha256.toString('hex'));
    const claimCheck = { bucket: this.payloads.bucket, key, bytes: bytes.length, sha256: sha256.toString('hex') };
    return { pointer: { claimCheck }, sha256 };
  }

  private async storeBody(rawBody: string, meta: QueuedEventMeta): Promise<ClaimCheckPointer> {
    const bytes = Buffer.from(rawBody, 'utf8');
    const { pointer, sha256 } = this.pointerFor(bytes, meta);
    await this.payloads.put(pointer.claimCheck.key, bytes, sha256);
    return pointer;
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
    ...(meta.recorded === true && { [EVENT_ATTRIBUTES.ledger]: text(LEDGER_RECORDED) }),
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
