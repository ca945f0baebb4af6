/**
 * When an event was first accepted. The service re-sends a webhook when our answer
 * was slow or failed, and it may send an utterance's draft again after its
 * correction; the version that orders such re-sends must not depend on which
 * delivery got here, or got processed, first. So the ingress records each event
 * in the ledger when it first accepts it (one conditional put: the first delivery
 * wins) and every delivery of the key carries that record's time; the consumer
 * orders by it whatever order it sees. The record is the ledger's (see
 * events/ledger-record.ts): the consumer then writes none on its hot path.
 *
 * Uses the plain DynamoDB client: the ingress bundle stays small (no document
 * marshalling for a six-attribute item).
 */
import {
  type AttributeValue,
  type DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import {
  compressBody,
  LEDGER_INLINE_BODY_BYTES,
  LEDGER_MAX_COMPRESSED_BODY_BYTES,
  ledgerExpiry,
} from '../events/ledger-record';
import type { ClaimCheckPointer } from '../queue/queued-event';
import { isConditionFailed } from '../store/condition';
import { keys, TTL_ATTRIBUTE } from '../store/table-layout';

/** An event as the ingress accepts it. */
export interface AcceptedEvent {
  idempotencyKey: string;
  /** The bot, or for a webhook without one the object it is about: whose ledger partition holds it. */
  owner: string;
  trigger: string;
  /** This delivery's acceptance time (ISO 8601, to the microsecond). */
  acceptedAt: string;
  /** The raw body, or where the queue will store it (claim check): the ledger then keeps the pointer. */
  body: { inline: string } | { stored: ClaimCheckPointer };
}

export interface FirstAcceptance {
  /** When the event was first accepted: this delivery's time, or the stored one. */
  receivedAt: string;
  /** The ledger holds the event (written now or by an earlier delivery). */
  recorded: boolean;
}

export interface AcceptanceLog {
  /** Records the event in the ledger unless an earlier delivery did; returns the first acceptance. */
  firstAcceptance(event: AcceptedEvent): Promise<FirstAcceptance>;
}

/** Whether the ledger item can hold the body (compressed); else the ingress claim-checks it and keeps the pointer. */
export function fitsLedgerItem(text: string): boolean {
  return (
    Buffer.byteLength(text, 'utf8') <= LEDGER_INLINE_BODY_BYTES ||
    compressBody(text).byteLength <= LEDGER_MAX_COMPRESSED_BODY_BYTES
  );
}

export function tableAcceptanceLog(
  db: DynamoDBClient,
  tableName: string,
  options: { retentionSeconds: number; now(): number },
): AcceptanceLog {
  return {
    async firstAcceptance(event) {
      const key = keys.event(event.owner, event.idempotencyKey);
      const storedReceivedAt = async () => {
        const { Item } = await db.send(
          new GetItemCommand({
            TableName: tableName,
            Key: { pk: { S: key.pk }, sk: { S: key.sk } },
            ConsistentRead: true,
            ProjectionExpression: 'receivedAt',
          }),
        );
        return Item?.receivedAt?.S;
      };
      try {
        await db.send(
          new PutItemCommand({
            TableName: tableName,
            Item: {
              pk: { S: key.pk },
              sk: { S: key.sk },
              status: { S: 'recorded' },
              trigger: { S: event.trigger },
              receivedAt: { S: event.acceptedAt },
              ...('inline' in event.body
                ? { bodyBr: { B: compressBody(event.body.inline) } }
                : { bodyRef: pointerAttribute(event.body.stored) }),
              [TTL_ATTRIBUTE]: { N: String(ledgerExpiry(options.now(), options.retentionSeconds)) },
            },
            ConditionExpression: 'attribute_not_exists(pk)',
          }),
        );
        return { receivedAt: event.acceptedAt, recorded: true };
      } catch (error) {
        if (!isConditionFailed(error)) throw error;
      }
      // A repeat (rare): the first delivery's time orders this one, and this one's time joins the record's
      // redeliveries (the delivery log lists them as duplicates), up to a bound that keeps the item small.
      const receivedAt = (await noteRedelivery(db, tableName, key, event.acceptedAt)) ?? (await storedReceivedAt());
      // Expired between the two calls: this delivery is the first one left, and the consumer records it.
      return receivedAt === undefined
        ? { receivedAt: event.acceptedAt, recorded: false }
        : { receivedAt, recorded: true };
    },
  };
}

/** Redelivery times kept on a record; past this, repeats are still accepted but no longer listed. */
export const MAX_LISTED_REDELIVERIES = 20;

/**
 * Appends a redelivery's time to the record (one update, on repeats only) and returns the first
 * acceptance time; undefined when the record is gone (expired), already lists the most it keeps, or
 * the update failed: listing a repeat never stands in the way of ordering it.
 */
async function noteRedelivery(
  db: DynamoDBClient,
  tableName: string,
  key: { pk: string; sk: string },
  acceptedAt: string,
): Promise<string | undefined> {
  try {
    const { Attributes } = await db.send(
      new UpdateItemCommand({
        TableName: tableName,
        Key: { pk: { S: key.pk }, sk: { S: key.sk } },
        UpdateExpression: 'SET redeliveries = list_append(if_not_exists(redeliveries, :none), :at)',
        ConditionExpression:
          'attribute_exists(pk) AND (attribute_not_exists(redeliveries) OR size(redeliveries) < :max)',
        ExpressionAttributeValues: {
          ':none': { L: [] },
          ':at': { L: [{ S: acceptedAt }] },
          ':max': { N: String(MAX_LISTED_REDELIVERIES) },
        },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return Attributes?.receivedAt?.S;
  } catch {
    // Expired, full, or the note itself failed: the caller reads the first acceptance instead.
    return undefined;
  }
}

/** The claim-check pointer as the document client writes it, so the consumer and replay read it alike. */
function pointerAttribute({ claimCheck }: ClaimCheckPointer): AttributeValue {
  return {
    M: {
      claimCheck: {
        M: {
          bucket: { S: claimCheck.bucket },
          key: { S: claimCheck.key },
          bytes: { N: String(claimCheck.bytes) },
          sha256: { S: claimCheck.sha256 },
        },
      },
    },
  };
}

/**
 * Acceptance times as ISO 8601 with microseconds, strictly increasing within this
 * process: two webhooks accepted in the same millisecond keep their order (the
 * digits past the millisecond count them). Strings compare in time order.
 */
export function acceptanceClock(now: () => Date): () => string {
  let lastMs = -1;
  let sameMs = 0;
  return () => {
    const ms = now().getTime();
    if (ms > lastMs) {
      lastMs = ms;
      sameMs = 0;
    } else {
      sameMs = Math.min(sameMs + 1, 999); // a clock stepping back keeps counting on the last millisecond
    }
    return `${new Date(lastMs).toISOString().slice(0, 23)}${String(sameMs).padStart(3, '0')}Z`;
  };
}
