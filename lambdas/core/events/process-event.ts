/**
 * The consumer's decision for one queued webhook: read it (inline or claim
 * check), validate it against the upstream contract, skip it if the ledger says
 * it was applied, apply it by trigger, then record it as applied.
 */
import { createHash } from 'node:crypto';
import { type AppliedEffects, applyWebhook } from '../apply/apply-webhook';
import type { ArchiveQueue } from '../archive/archive-job';
import type { PayloadReader, PayloadStore } from '../queue/payload-store';
import {
  type ClaimCheckPointer,
  claimCheckKey,
  claimCheckPointerSchema,
  EVENT_ATTRIBUTES,
} from '../queue/queued-event';
import type { TableAccess } from '../store/dynamo';
import { METRICS, type Telemetry } from '../telemetry';
import { parseTriggerData, parseWebhookEnvelope, type TypedWebhook } from '../upstream/webhook-contract';
import type { EventLedger, LedgerEntry } from './event-ledger';

/** A message as the queue delivered it, whatever the transport (Lambda event, local poller). */
export interface QueuedMessage {
  messageId: string;
  body: string;
  /** String message attributes by name. */
  attributes: Record<string, string | undefined>;
  /** When SQS accepted the message (epoch ms), the fallback for `received_at`. */
  sentTimestamp?: number;
}

/** The message can never be applied as it is; retrying will not help, the DLQ will keep it. */
export class PoisonEventError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PoisonEventError';
  }
}

/** Another delivery of the same event holds its lease; this one is retried later. */
export class EventBusyError extends Error {
  constructor(idempotencyKey: string) {
    super(`event ${idempotencyKey} is being applied by another delivery`);
    this.name = 'EventBusyError';
  }
}

export interface ProcessDependencies {
  table: TableAccess;
  ledger: EventLedger;
  archive: ArchiveQueue;
  payloads: PayloadReader & PayloadStore;
  telemetry: Telemetry;
}

export type ProcessOutcome = {
  status: 'applied' | 'duplicate';
  trigger: string;
  botId: string;
  idempotencyKey: string;
  effects?: AppliedEffects;
};

/** Raw bodies up to this size are kept in the ledger item; larger ones in the payload bucket. */
const LEDGER_INLINE_BODY_BYTES = 300 * 1024;

/** Triggers whose apply has effects outside the table: they take the ledger's lease (see event-ledger.ts). */
const EXCLUSIVE_TRIGGERS: ReadonlySet<string> = new Set(['bot.state_change']);

export async function processQueuedEvent(message: QueuedMessage, deps: ProcessDependencies): Promise<ProcessOutcome> {
  const { text, stored } = await readBody(message, deps.payloads);
  const webhook = decodeWebhook(text);
  const { idempotency_key: idempotencyKey, bot_id: botId, trigger } = webhook.envelope;
  const receivedAt =
    message.attributes[EVENT_ATTRIBUTES.receivedAt] ?? new Date(message.sentTimestamp ?? Date.now()).toISOString();
  const log = { idempotency_key: idempotencyKey, bot_id: botId, trigger };
  const { ledger, telemetry } = deps;

  const entry = async (): Promise<LedgerEntry> => ({
    idempotencyKey,
    botId,
    trigger,
    receivedAt,
    body: stored !== undefined ? { stored } : await keepForReplay(text, receivedAt, deps.payloads),
  });
  const ctx = { table: deps.table, botId, idempotencyKey, receivedAt };
  const duplicate = (): ProcessOutcome => {
    telemetry.log.info('duplicate event skipped', log);
    telemetry.metrics.emit(METRICS.eventDuplicate, 1, { trigger: webhook.trigger });
    return { status: 'duplicate', trigger, botId, idempotencyKey };
  };

  let effects: AppliedEffects;
  if (EXCLUSIVE_TRIGGERS.has(webhook.trigger)) {
    if ((await ledger.state(idempotencyKey)) === 'completed') return duplicate();
    const record = await entry();
    const claim = await ledger.claim(record);
    if (claim === 'completed') return duplicate();
    if (claim === 'busy') throw new EventBusyError(idempotencyKey);
    try {
      effects = await applyWebhook(webhook, ctx, deps.archive);
    } catch (error) {
      await ledger.release(idempotencyKey).catch(() => undefined); // else the lease lapses
      throw asPoisonIfTooLarge(error, trigger);
    }
    await ledger.complete(record);
  } else {
    const firstDelivery = await ledger.record(await entry());
    try {
      effects = await applyWebhook(webhook, ctx, deps.archive);
    } catch (error) {
      throw asPoisonIfTooLarge(error, trigger);
    }
    // Seen before and nothing newer written: a redelivery (applying it again changed nothing).
    if (!firstDelivery && effects.valueWritten !== true) return duplicate();
  }

  telemetry.log.info('event applied', { ...log, ...effects });
  telemetry.metrics.emit(METRICS.eventApplied, 1, { trigger: webhook.trigger });
  if (webhook.trigger === 'unknown') telemetry.metrics.emit(METRICS.unknownTrigger, 1);
  if (effects.archiveRequested === true) telemetry.metrics.emit(METRICS.archiveRequested, 1);
  return { status: 'applied', trigger, botId, idempotencyKey, effects };
}

/** Parses and validates a raw webhook body; anything that fails can never succeed. */
export function decodeWebhook(text: string): TypedWebhook {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new PoisonEventError(`queued body is not JSON: ${(error as Error).message}`);
  }
  const envelope = parseWebhookEnvelope(parsed);
  if (!envelope.ok)
    throw new PoisonEventError(`queued body is not a webhook envelope: ${envelope.problems.join('; ')}`);
  const typed = parseTriggerData(envelope.value);
  if (!typed.ok) {
    throw new PoisonEventError(
      `${envelope.value.trigger} data does not match the upstream contract: ${typed.problems.join('; ')}`,
    );
  }
  return typed.value;
}

async function readBody(
  message: QueuedMessage,
  payloads: PayloadReader,
): Promise<{ text: string; stored?: ClaimCheckPointer }> {
  if (message.attributes[EVENT_ATTRIBUTES.bodyLocation] !== 's3') return { text: message.body };
  let pointer: ClaimCheckPointer;
  try {
    pointer = claimCheckPointerSchema.parse(JSON.parse(message.body));
  } catch {
    throw new PoisonEventError('message says its body is in S3 but holds no valid claim-check pointer');
  }
  const bytes = await payloads.read(pointer);
  return { text: bytes.toString('utf8'), stored: pointer };
}

async function keepForReplay(text: string, receivedAt: string, store: PayloadStore): Promise<LedgerEntry['body']> {
  // Measured without copying: nearly every body stays inline.
  if (Buffer.byteLength(text, 'utf8') <= LEDGER_INLINE_BODY_BYTES) return { inline: text };
  const bytes = Buffer.from(text, 'utf8');
  const sha256 = createHash('sha256').update(bytes).digest();
  const key = claimCheckKey(new Date(receivedAt), sha256.toString('hex'));
  await store.put(key, bytes, sha256);
  return { stored: { claimCheck: { bucket: store.bucket, key, bytes: bytes.length, sha256: sha256.toString('hex') } } };
}

/** DynamoDB refuses items over 400 KB; such an event can never be applied and belongs in the DLQ. */
function asPoisonIfTooLarge(error: unknown, trigger: string): unknown {
  if (error instanceof Error && error.name === 'ValidationException' && /item size/i.test(error.message)) {
    return new PoisonEventError(`${trigger} holds more than fits in one DynamoDB item (400 KB): ${error.message}`);
  }
  return error;
}
