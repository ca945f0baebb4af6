/**
 * The event ledger: one record per accepted webhook, keyed by its idempotency
 * key: the replay store (it keeps the raw body for the retention period) and,
 * for events with effects outside the table, the dedup state.
 *
 * Crash-safe without transactions, because every apply step is idempotent and
 * order-independent (deterministic keys, conditional writes), so an event may be
 * applied again after a crash without changing anything twice. Two paths:
 *  - exclusive (a state change, which may queue an archive job): claim the record
 *    with an expiring lease (conditional put), apply, mark it completed. A
 *    completed record short-circuits duplicates; a failure releases the lease, a
 *    crash lets it lapse, and the redelivery applies again;
 *  - recorded (everything else, the hot path): record the raw body (conditional
 *    put, first delivery wins), then apply. The items themselves refuse an
 *    applied key again, so the ledger need not be read first: two writes.
 */
import { GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { ClaimCheckPointer } from '../queue/queued-event';
import { type TableAccess, writeIfCondition } from '../store/dynamo';
import { GSI, keys, TTL_ATTRIBUTE } from '../store/table-layout';

export type LedgerState = 'new' | 'in_progress' | 'completed' | 'recorded';

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

  async state(idempotencyKey: string): Promise<LedgerState> {
    const { Item } = await this.table.db.send(
      new GetCommand({
        TableName: this.table.tableName,
        Key: keys.event(idempotencyKey),
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

  /** Takes the lease, unless the event is completed or another delivery holds a live lease. */
  async claim(entry: LedgerEntry): Promise<'claimed' | 'completed' | 'busy'> {
    const now = this.options.now();
    const claimed = await writeIfCondition(() =>
      this.table.db.send(
        new PutCommand({
          TableName: this.table.tableName,
          Item: { ...this.item(entry, 'in_progress'), leaseUntil: now + this.options.leaseMs },
          ConditionExpression: 'attribute_not_exists(pk) OR (#status = :inProgress AND leaseUntil < :now)',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':inProgress': 'in_progress', ':now': now },
        }),
      ),
    );
    if (claimed) return 'claimed';
    return (await this.state(entry.idempotencyKey)) === 'completed' ? 'completed' : 'busy';
  }

  /** Marks the event applied; keeps its raw body for replay until the record expires. */
  async complete(entry: LedgerEntry): Promise<void> {
    // A concurrent delivery that completed first leaves nothing to do.
    await writeIfCondition(() =>
      this.table.db.send(
        new PutCommand({
          TableName: this.table.tableName,
          Item: { ...this.item(entry, 'completed'), completedAt: new Date(this.options.now()).toISOString() },
          ConditionExpression: 'attribute_not_exists(pk) OR #status = :inProgress',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':inProgress': 'in_progress' },
        }),
      ),
    );
  }

  /** Gives the lease up after a failure so the redelivery need not wait for it to lapse. */
  async release(idempotencyKey: string): Promise<void> {
    await writeIfCondition(() =>
      this.table.db.send(
        new UpdateCommand({
          TableName: this.table.tableName,
          Key: keys.event(idempotencyKey),
          UpdateExpression: 'SET leaseUntil = :zero',
          ConditionExpression: '#status = :inProgress',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':zero': 0, ':inProgress': 'in_progress' },
        }),
      ),
    );
  }

  /** A bot's stored events in arrival order, for replay. */
  async eventsOfBot(botId: string): Promise<StoredEvent[]> {
    const events: StoredEvent[] = [];
    let cursor: Record<string, unknown> | undefined;
    do {
      const page = await this.table.db.send(
        new QueryCommand({
          TableName: this.table.tableName,
          IndexName: GSI.byDay.name,
          KeyConditionExpression: '#pk = :pk',
          ExpressionAttributeNames: { '#pk': GSI.byDay.partitionKey },
          ExpressionAttributeValues: { ':pk': keys.eventsOfBot(botId) },
          ExclusiveStartKey: cursor,
        }),
      );
      for (const item of page.Items ?? []) events.push(toStoredEvent(item));
      cursor = page.LastEvaluatedKey;
    } while (cursor !== undefined);
    return events;
  }

  private item(entry: LedgerEntry, status: LedgerState): Record<string, unknown> {
    return {
      ...keys.event(entry.idempotencyKey),
      status,
      idempotencyKey: entry.idempotencyKey,
      botId: entry.botId,
      trigger: entry.trigger,
      receivedAt: entry.receivedAt,
      ...('inline' in entry.body ? { body: entry.body.inline } : { bodyRef: entry.body.stored }),
      [GSI.byDay.partitionKey]: keys.eventsOfBot(entry.botId),
      [GSI.byDay.sortKey]: `${entry.receivedAt}#${entry.idempotencyKey}`,
      [TTL_ATTRIBUTE]: Math.floor(this.options.now() / 1000) + this.options.retentionSeconds,
    };
  }
}

function toStoredEvent(item: Record<string, unknown>): StoredEvent {
  return {
    idempotencyKey: String(item.idempotencyKey),
    botId: String(item.botId),
    trigger: String(item.trigger),
    receivedAt: String(item.receivedAt),
    status: item.status as LedgerState,
    body: typeof item.body === 'string' ? { inline: item.body } : { stored: item.bodyRef as ClaimCheckPointer },
  };
}
