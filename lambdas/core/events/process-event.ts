/**
 * The consumer's decision for one queued webhook: read it (inline or claim
 * check), validate it against the upstream contract, apply it by trigger, exactly
 * once in effect (see event-ledger.ts). The ingress has usually recorded it in the
 * ledger already (the message says so); else it is recorded here.
 */
import { createHash } from 'node:crypto';
import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { type AppliedEffects, applyWebhook } from '../apply/apply-webhook';
import type { ArchiveQueue } from '../archive/archive-job';
import type { DomainEventPublisher } from '../domain-events/publisher';
import { emitFinalOutcome } from '../outcome/outcome-metric';
import type { PayloadReader, PayloadStore } from '../queue/payload-store';
import {
  type ClaimCheckPointer,
  claimCheckKey,
  claimCheckPointerSchema,
  EVENT_ATTRIBUTES,
  LEDGER_RECORDED,
} from '../queue/queued-event';
import { type TableAccess, writeIfCondition } from '../store/dynamo';
import { keys } from '../store/table-layout';
import { readErasureMark } from '../store/tombstone';
import { METRICS, type Telemetry } from '../telemetry';
import {
  DATA_DELETED_STATE,
  describeUnboundWebhook,
  KNOWN_TRIGGERS,
  parseTriggerData,
  parseWebhookEnvelope,
  type TypedWebhook,
  UNBOUND_EVENTS,
  type UnboundWebhook,
  type WebhookEnvelope,
} from '../upstream/webhook-contract';
import { markDeliveryFailed } from './delivery-failure';
import type { EventLedger, LedgerEntry } from './event-ledger';
import { LEDGER_INLINE_BODY_BYTES } from './ledger-record';
import { webhookDomainEvents } from './webhook-domain-events';

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
  /** Where the domain events of applied webhooks go (domain-events.ts). */
  events: DomainEventPublisher;
  telemetry: Telemetry;
  /** Removes a claim-checked body for good (every version): a dropped webhook of an erased meeting leaves none. */
  forgetBody?: (pointer: ClaimCheckPointer) => Promise<void>;
  /**
   * Set when `eraseOnUpstreamDelete` is on: the service's `data_deleted` queues the meeting's erasure
   * here (the erasure queue, erase/erasure-job.ts; named by shape, since erase/ builds on this folder).
   */
  erasure?: { send(job: { kind: 'erase'; bot_id: string; reason: 'upstream-data-deleted' }): Promise<void> };
}

export type ProcessOutcome = {
  /** `dropped`: the meeting is erased; acknowledged, and nothing of it kept. */
  status: 'applied' | 'duplicate' | 'dropped';
  trigger: string;
  botId: string;
  idempotencyKey: string;
  effects?: AppliedEffects;
};

/** Triggers whose apply has effects outside the table: they take the ledger's lease (see event-ledger.ts). */
const EXCLUSIVE_TRIGGERS: ReadonlySet<string> = new Set(['bot.state_change']);

export async function processQueuedEvent(message: QueuedMessage, deps: ProcessDependencies): Promise<ProcessOutcome> {
  try {
    return await decideQueuedEvent(message, deps);
  } catch (error) {
    // For the delivery log: a failed delivery is marked on its ledger record (a bot's; busy is no failure).
    const owner = message.attributes[EVENT_ATTRIBUTES.botId];
    const idempotencyKey = message.attributes[EVENT_ATTRIBUTES.idempotencyKey];
    if (owner && idempotencyKey && !(error instanceof EventBusyError)) {
      const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      await markDeliveryFailed(deps.table, { owner, idempotencyKey, reason, at: new Date() });
    }
    throw error;
  }
}

async function decideQueuedEvent(message: QueuedMessage, deps: ProcessDependencies): Promise<ProcessOutcome> {
  let body: { text: string; stored?: ClaimCheckPointer };
  try {
    body = await readBody(message, deps.payloads);
  } catch (error) {
    // The erasure removed its claim-checked body: a re-drive of an erased meeting's webhook is dropped.
    const dropped = error instanceof PoisonEventError ? await dropIfErased(message, deps) : undefined;
    if (dropped !== undefined) return dropped;
    throw error;
  }
  const { text, stored } = body;
  const receivedAt =
    message.attributes[EVENT_ATTRIBUTES.receivedAt] ?? new Date(message.sentTimestamp ?? Date.now()).toISOString();
  const recorded = message.attributes[EVENT_ATTRIBUTES.ledger] === LEDGER_RECORDED;
  const parsed = parseBody(text);
  const envelope = parseWebhookEnvelope(parsed);
  if (!envelope.ok) {
    return keepUnbound(describeUnboundWebhook(parsed, text), { text, stored, receivedAt, recorded }, deps);
  }
  return applyValidatedEvent({ webhook: typedWebhook(envelope.value), text, stored, receivedAt, recorded }, deps);
}

async function dropIfErased(message: QueuedMessage, deps: ProcessDependencies): Promise<ProcessOutcome | undefined> {
  const botId = message.attributes[EVENT_ATTRIBUTES.botId];
  const idempotencyKey = message.attributes[EVENT_ATTRIBUTES.idempotencyKey];
  const trigger = message.attributes[EVENT_ATTRIBUTES.trigger] ?? 'unknown';
  if (!botId || !idempotencyKey || (await readErasureMark(deps.table, botId)) === undefined) return undefined;
  await deps.table.db.send(
    new DeleteCommand({ TableName: deps.table.tableName, Key: keys.event(botId, idempotencyKey) }),
  );
  deps.telemetry.metrics.emit(METRICS.eventDroppedErased, 1, { trigger: metricTrigger(trigger) });
  return { status: 'dropped', trigger, botId, idempotencyKey };
}

/** The `trigger` dimension: a known trigger, else `unknown` (as applied webhooks count them), a closed set. */
const metricTrigger = (trigger: string): string =>
  (KNOWN_TRIGGERS as readonly string[]).includes(trigger) ? trigger : 'unknown';

/** A webhook that passed the upstream contract, with the body the ledger keeps for replay. */
export interface ValidatedEvent {
  webhook: TypedWebhook;
  /** The raw body, which the ledger keeps and replay decodes again. */
  text: string;
  /** Where the body already is in S3, when it came by claim check. */
  stored?: ClaimCheckPointer;
  /** When the event was first accepted (ISO 8601). */
  receivedAt: string;
  /** The ingress recorded the event in the ledger (the message says so): it is not recorded again. */
  recorded?: boolean;
}

/**
 * Applies a validated event exactly once in effect, deduped by its idempotency
 * key through the ledger, which also keeps it for replay and the delivery log.
 * The queue consumer and the reconciler both come here.
 */
export async function applyValidatedEvent(event: ValidatedEvent, deps: ProcessDependencies): Promise<ProcessOutcome> {
  const { webhook, text, stored, receivedAt, recorded } = event;
  const { idempotency_key: idempotencyKey, bot_id: botId, trigger } = webhook.envelope;
  const log = { idempotency_key: idempotencyKey, bot_id: botId, trigger };
  const { ledger, telemetry } = deps;

  const entry = async (): Promise<LedgerEntry> => ({
    idempotencyKey,
    botId,
    trigger,
    receivedAt,
    body: await keepForReplay(text, stored, receivedAt, deps.payloads),
  });
  const ctx = { table: deps.table, botId, idempotencyKey, receivedAt, largeValues: deps.payloads };
  const duplicate = (): ProcessOutcome => {
    telemetry.log.debug('duplicate event skipped', log);
    telemetry.metrics.emit(METRICS.eventDuplicate, 1, { trigger: webhook.trigger });
    return { status: 'duplicate', trigger, botId, idempotencyKey };
  };

  const dropErased = async (): Promise<ProcessOutcome> => {
    // The ingress (or this consumer) recorded it before the tombstone was seen: that record goes too.
    await deps.table.db.send(
      new DeleteCommand({ TableName: deps.table.tableName, Key: keys.event(botId, idempotencyKey) }),
    );
    if (stored !== undefined) await deps.forgetBody?.(stored);
    telemetry.log.debug('event of an erased meeting dropped', log);
    telemetry.metrics.emit(METRICS.eventDroppedErased, 1, { trigger: webhook.trigger });
    return { status: 'dropped', trigger, botId, idempotencyKey };
  };
  // A transcript line reads the meeting item anyway (transcript.ts): its check is there, at no extra read.
  if (webhook.trigger !== 'transcript.update' && (await readErasureMark(deps.table, botId)) !== undefined) {
    return dropErased();
  }

  let effects: AppliedEffects;
  if (EXCLUSIVE_TRIGGERS.has(webhook.trigger)) {
    const claim = await ledger.claim(botId, idempotencyKey, entry);
    if (claim === 'completed') return duplicate();
    if (claim === 'busy') throw new EventBusyError(idempotencyKey);
    try {
      effects = await applyWebhook(webhook, ctx, deps.archive);
      // At once: only the delivery that wrote the final outcome counts it, a retry after a failure below will not.
      if (effects.outcomeBecameFinal === true && effects.outcome !== undefined) {
        emitFinalOutcome(telemetry.metrics, effects.outcome);
      }
      // Before completing: a failed send leaves the event open, and its redelivery sends again (erasure is idempotent).
      if (deps.erasure !== undefined && isUpstreamDataDeleted(webhook)) {
        await deps.erasure.send({ kind: 'erase', bot_id: botId, reason: 'upstream-data-deleted' });
      }
      // Before completing: a failure here leaves the event open, and its redelivery publishes.
      await deps.events.publish(webhookDomainEvents(webhook, effects, receivedAt));
    } catch (error) {
      await ledger.release(botId, idempotencyKey).catch(() => undefined); // else the lease lapses
      throw asPoisonIfTooLarge(error, trigger);
    }
    await ledger.complete(botId, idempotencyKey);
  } else {
    // Recorded by the ingress: no ledger write, and whether an earlier delivery applied it the items tell.
    const firstDelivery = recorded === true ? undefined : await ledger.record(await entry());
    try {
      effects = await applyWebhook(webhook, { ...ctx, firstDelivery }, deps.archive);
    } catch (error) {
      throw asPoisonIfTooLarge(error, trigger);
    }
    if (effects.erased === true) return dropErased();
    // Seen before and nothing newer written: a redelivery (applying it again changed nothing).
    const seenBefore = firstDelivery === undefined ? effects.seenBefore === true : !firstDelivery;
    // A redelivery publishes too: the delivery that applied it may have failed before publishing.
    await deps.events.publish(webhookDomainEvents(webhook, effects, receivedAt));
    if (seenBefore && effects.valueWritten !== true) return duplicate();
  }

  telemetry.log.debug('event applied', { ...log, ...effects });
  telemetry.metrics.emit(METRICS.eventApplied, 1, { trigger: webhook.trigger });
  if (webhook.trigger === 'unknown') telemetry.metrics.emit(METRICS.unknownTrigger, 1);
  if (effects.archiveRequested === true) telemetry.metrics.emit(METRICS.archiveRequested, 1);
  return { status: 'applied', trigger, botId, idempotencyKey, effects };
}

/** The service deleted its copy of the meeting's data (`POST bots/{id}/delete_data`, or its own retention). */
const isUpstreamDataDeleted = (webhook: TypedWebhook): boolean =>
  webhook.trigger === 'bot.state_change' && webhook.data.new_state === DATA_DELETED_STATE;

/** Parses and validates a bot's raw webhook body; anything that fails can never succeed. */
export function decodeWebhook(text: string): TypedWebhook {
  const envelope = parseWebhookEnvelope(parseBody(text));
  if (!envelope.ok)
    throw new PoisonEventError(`queued body is not a webhook envelope: ${envelope.problems.join('; ')}`);
  return typedWebhook(envelope.value);
}

function parseBody(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new PoisonEventError(`queued body is not JSON: ${(error as Error).message}`);
  }
}

function typedWebhook(envelope: WebhookEnvelope): TypedWebhook {
  const typed = parseTriggerData(envelope);
  if (!typed.ok) {
    throw new PoisonEventError(
      `${envelope.trigger} data does not match the upstream contract: ${typed.problems.join('; ')}`,
    );
  }
  return typed.value;
}

/**
 * A webhook about something other than a bot: recorded in the ledger (dedup and
 * replay, under the object; by the ingress, else here) and kept under its object
 * with its raw body. The conditional put makes a redelivery after a crash between
 * the two writes complete it.
 */
async function keepUnbound(
  unbound: UnboundWebhook,
  event: Omit<ValidatedEvent, 'webhook'>,
  deps: ProcessDependencies,
): Promise<ProcessOutcome> {
  const { relatedObject, idempotencyKey, trigger } = unbound;
  const { text, stored, receivedAt } = event;
  const body = await keepForReplay(text, stored, receivedAt, deps.payloads);
  const firstDelivery =
    event.recorded === true
      ? undefined
      : await deps.ledger.record({ idempotencyKey, botId: relatedObject, trigger, receivedAt, body });
  const written = await writeIfCondition(() =>
    deps.table.db.send(
      new PutCommand({
        TableName: deps.table.tableName,
        Item: {
          ...keys.objectEvent(relatedObject, idempotencyKey),
          relatedObject,
          trigger,
          idempotencyKey,
          receivedAt,
          ...('inline' in body ? { body: body.inline } : { bodyStored: body.stored.claimCheck }),
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    ),
  );
  const log = { idempotency_key: idempotencyKey, related_object: relatedObject, trigger };
  if (firstDelivery !== true && !written) {
    deps.telemetry.log.debug('duplicate event skipped', log);
    deps.telemetry.metrics.emit(METRICS.eventDuplicate, 1, { trigger: UNBOUND_EVENTS });
    return { status: 'duplicate', trigger, botId: relatedObject, idempotencyKey };
  }
  deps.telemetry.log.debug('event without a bot kept', log);
  deps.telemetry.metrics.emit(METRICS.eventApplied, 1, { trigger: UNBOUND_EVENTS });
  return { status: 'applied', trigger, botId: relatedObject, idempotencyKey };
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

/** The body as the ledger keeps it: where it already is in S3, else inline, else stored now. */
async function keepForReplay(
  text: string,
  stored: ClaimCheckPointer | undefined,
  receivedAt: string,
  store: PayloadStore,
): Promise<LedgerEntry['body']> {
  if (stored !== undefined) return { stored };
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
