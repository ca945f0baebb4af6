/**
 * The event ledger: one record per accepted webhook, under its bot and keyed by
 * its idempotency key: the replay store (it keeps the raw body for the retention
 * period) and, for events with effects outside the table, the dedup state.
 *
 * Written for every event, so kept to one write unit for a typical webhook: no
 * index copies it (a bot's events are a Query on its partition), the body is
 * stored Brotli-compressed (a 1 KB transcript webhook takes about 520 bytes), and
 * nothing the key already says is repeated.
 *
 * The ingress writes the record when it first accepts the event (status
 * `recorded`; see ingress/first-acceptance.ts), and says so on the queue message.
 * This class reads it, and writes it only when the ingress could not (the table
 * was out of reach, or the record expired before a re-drive) and for the status
 * of state changes.
 *
 * Crash-safe without transactions, because every apply step is idempotent and
 * order-independent (deterministic keys, conditional writes), so an event may be
 * applied again after a crash without changing anything twice. Two paths:
 *  - exclusive (a state change, which may queue an archive job): claim the record
 *    with an expiring lease (a conditional update of the record the ingress
 *    wrote, or a conditional put when there is none), apply, mark it completed.
 *    A completed record short-circuits duplicates; a failure releases the lease,
 *    a crash lets it lapse, and the redelivery applies again;
 *  - recorded (everything else, the hot path): apply. The record is there already
 *    (else: record the raw body, conditional put, first delivery wins). The items
 *    themselves refuse an applied key again, so the ledger need not be read: one
 *    write for a transcript line.
 */
import { GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { ClaimCheckPointer } from '../queue/queued-event';
import { type TableAccess, writeIfCondition } from '../store/dynamo';
import { EVENT_SK_PREFIX, keys, TTL_ATTRIBUTE } from '../store/table-layout';
import { compressBody, decompressBody, type LedgerState, ledgerExpiry } from './ledger-record';

export type { LedgerState } from './ledger-record';

export interface LedgerEntry {
  idempotencyKey: string;
  botId: string;
  trigger: string;
  receivedAt: string;
  /** The raw webhook body, or where it is kept when too big for an item. */
  body: { inline: string } | { stored: ClaimCheckPointer };
}

export interface StoredEvent extends LedgerEntry {
  status: LedgerState;
}

export interface LedgerOptions {
  /** How long a claim keeps other deliveries of the same event away. */
  leaseMs: number;
  /** How long records (and so dedup and replay) last. */
  retentionSeconds: number;
  now(): number;
}

export class EventLedger {
  constructor(
    private readonly table: TableAccess,
    private readonly options: LedgerOptions,
  ) {}

  async state(botId: string, idempotencyKey: string): Promise<LedgerState> {
    const { Item } = await this.table.db.send(
      new GetCommand({
        TableName: this.table.tableName,
        Key: keys.event(botId, idempotencyKey),
        ConsistentRead: true,
        ProjectionExpression: '#status',
        ExpressionAttributeNames: { '#status': 'status' },
      }),
    );
    return (Item?.status as LedgerState | undefined) ?? 'new';
  }

  /** Keeps the raw body of an event on the recorded path; false when an earlier delivery already did. */
  async record(entry: LedgerEntry): Promise<boolean> {
    return writeIfCondition(() =>
      this.table.db.send(
        new PutCommand({
          TableName: this.table.tableName,
          Item: this.item(entry, 'recorded'),
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      ),
    );
  }

  /**
   * Takes the lease, unless the event is completed or another delivery holds a live
   * lease: a conditional update of the record the ingress wrote, or, when there is
   * none, a conditional put of one made from `entry`.
   */
  async claim(
    botId: string,
    idempotencyKey: string,
    entry: () => Promise<LedgerEntry>,
  ): Promise<'claimed' | 'completed' | 'busy'> {
    const state = await this.state(botId, idempotencyKey);
    if (state === 'completed') return 'completed';
    const now = this.options.now();
    const leaseUntil = now + this.options.leaseMs;
    const claimed =
      state === 'new'
        ? await writeIfCondition(async () =>
            this.table.db.send(
              new PutCommand({
                TableName: this.table.tableName,
                Item: { ...this.item(await entry(), 'in_progress'), leaseUntil },
                ConditionExpression: 'attribute_not_exists(pk)',
              }),
            ),
          )
        : await writeIfCondition(() =>
            this.table.db.send(
              new UpdateCommand({
                TableName: this.table.tableName,
                Key: keys.event(botId, idempotencyKey),
                UpdateExpression: 'SET #status = :inProgress, leaseUntil = :leaseUntil',
                ConditionExpression: '#status = :recorded OR (#status = :inProgress AND leaseUntil < :now)',
                ExpressionAttributeNames: { '#status': 'status' },
                ExpressionAttributeValues: {
                  ':inProgress': 'in_progress',
                  ':recorded': 'recorded',
                  ':leaseUntil': leaseUntil,
                  ':now': now,
                },
              }),
            ),
          );
    if (claimed) return 'claimed';
    return (await this.state(botId, idempotencyKey)) === 'completed' ? 'completed' : 'busy';
  }

  /** Marks the event applied; its raw body stays for replay until the record expires. */
  async complete(botId: string, idempotencyKey: string): Promise<void> {
    // A concurrent delivery that completed first leaves nothing to do.
    await writeIfCondition(() =>
      this.table.db.send(
        new UpdateCommand({
          TableName: this.table.tableName,
          Key: keys.event(botId, idempotencyKey),
          UpdateExpression: 'SET #status = :completed, completedAt = :at REMOVE leaseUntil',
          ConditionExpression: '#status = :inProgress',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':completed': 'completed',
            ':at': new Date(this.options.now()).toISOString(),
            ':inProgress': 'in_progress',
          },
        }),
      ),
    );
  }

  /** Gives the lease up after a failure so the redelivery need not wait for it to lapse. */
  async release(botId: string, idempotencyKey: string): Promise<void> {
    await writeIfCondition(() =>
      this.table.db.send(
        new UpdateCommand({
          TableName: this.table.tableName,
          Key: keys.event(botId, idempotencyKey),
          UpdateExpression: 'SET leaseUntil = :zero',
          ConditionExpression: '#status = :inProgress',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':zero': 0, ':inProgress': 'in_progress' },
        }),
      ),
    );
  }

  /** A bot's stored events in arrival order (ties by key), for replay and its delivery log. */
  async eventsOfBot(botId: string): Promise<StoredEvent[]> {
    const events: StoredEvent[] = [];
    let cursor: Record<string, unknown> | undefined;
    do {
      const page = await this.table.db.send(
        new QueryCommand({
          TableName: this.table.tableName,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :event)',
          ExpressionAttributeValues: { ':pk': keys.eventsOfBot(botId), ':event': EVENT_SK_PREFIX },
          ConsistentRead: true,
          ExclusiveStartKey: cursor,
        }),
      );
      for (const item of page.Items ?? []) events.push(toStoredEvent(botId, item));
      cursor = page.LastEvaluatedKey;
    } while (cursor !== undefined);
    // Sorted here: the sort key must be the idempotency key alone for the conditional put to dedup.
    return events.sort((a, b) => compare(a.receivedAt, b.receivedAt) || compare(a.idempotencyKey, b.idempotencyKey));
  }

  private item(entry: LedgerEntry, status: LedgerState): Record<string, unknown> {
    return {
      ...keys.event(entry.botId, entry.idempotencyKey),
      status,
      trigger: entry.trigger,
      receivedAt: entry.receivedAt,
      ...('inline' in entry.body ? { bodyBr: compressBody(entry.body.inline) } : { bodyRef: entry.body.stored }),
      [TTL_ATTRIBUTE]: ledgerExpiry(this.options.now(), this.options.retentionSeconds),
    };
  }
}

const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

function toStoredEvent(botId: string, item: Record<string, unknown>): StoredEvent {
  const body = item.bodyBr;
  return {
    idempotencyKey: String(item.sk).slice(EVENT_SK_PREFIX.length),
    botId,
    trigger: String(item.trigger),
    receivedAt: String(item.receivedAt),
    status: item.status as LedgerState,
    body: body instanceof Uint8Array ? { inline: decompressBody(body) } : { stored: item.bodyRef as ClaimCheckPointer },
  };
}
