/**
 * The push channels in the table: one per user of a company calendar (Google watch
 * channel or Graph subscription), listed per calendar for the renewal run, and the
 * same record under its secret's id, where a verified notification finds its user.
 * When a calendar is deleted its channels are retired: the route is dropped (a
 * notification then finds no channel and queues nothing) and the channel moved to the
 * retired partition, which the renewal run reads to stop each at its provider. Every
 * item expires by TTL a day after its channel, so a channel that was never stopped
 * leaves nothing behind.
 */
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { batchGetAll, queryAllWithPrefix, type TableAccess, writeIfCondition } from '../../../store/dynamo';
import { keys, PUSH_CHANNEL_SK_PREFIX, RETIRED_PUSH_CHANNELS_PK, TTL_ATTRIBUTE } from '../../../store/table-layout';
import type { CompanyCalendarSource } from '../../calendar-source';
import type { ProviderName } from '../provider-contract';

export interface PushChannelRecord {
  calendarId: string;
  user: string;
  provider: ProviderName;
  /** The id inside the channel's secret (push-secret.ts). */
  secretId: string;
  /** Google: the channel id we chose; Graph: the subscription id. */
  channelId: string;
  /** Google's resourceId for the watched calendar (needed to stop the channel). */
  resourceId?: string;
  /** When the provider stops delivering (ms since the epoch; `expiresAt` is the table's TTL attribute). */
  expiresAtMs: number;
  createdAt: number;
}

/** A channel of a deleted calendar, with the source it was opened for (its credentials are named there). */
export interface RetiredChannel {
  record: PushChannelRecord;
  /** The deleted source without its user list (which may fill most of an item): the provider needs the rest. */
  source: CompanyCalendarSource;
}

const KEPT_AFTER_EXPIRY_SECONDS = 86_400;

/** The TTL of every item of a channel: a day after the provider stops delivering. */
const expiresAfter = (record: PushChannelRecord) => ({
  [TTL_ATTRIBUTE]: Math.ceil(record.expiresAtMs / 1000) + KEPT_AFTER_EXPIRY_SECONDS,
});

const recordOf = (item: Record<string, unknown>): PushChannelRecord => {
  const { pk: _pk, sk: _sk, [TTL_ATTRIBUTE]: _ttl, dueAtMs: _due, ...record } = item;
  return record as unknown as PushChannelRecord;
};

/**
 * What the notification routes do to the channels, and no more (so the push function is granted no
 * more): find a verified secret's channel, and mark a channel due for the renewal run.
 */
export const pushRouteStore = (table: TableAccess) => ({
  /** The channel a verified secret names, if it is still ours. */
  async getRoute(secretId: string): Promise<PushChannelRecord | undefined> {
    const { Item } = await table.db.send(
      new GetCommand({ TableName: table.tableName, Key: keys.pushRoute(secretId), ConsistentRead: true }),
    );
    return Item === undefined ? undefined : recordOf(Item);
  },

  /**
   * Makes the renewal run (in the scheduled sync) see the channel as expiring by `dueAtMs`: lapsed (it
   * is recreated) or inside the renew margin (it is renewed). Written on the route item, the one kind of
   * item the push function may touch (no calendar item), only while it is this channel and only ever
   * earlier; false when nothing changed. The run reads it with routeDueMarks; a renewal's put clears it.
   */
  async markDue(record: PushChannelRecord, dueAtMs: number): Promise<boolean> {
    return writeIfCondition(() =>
      table.db.send(
        new UpdateCommand({
          TableName: table.tableName,
          Key: keys.pushRoute(record.secretId),
          UpdateExpression: 'SET dueAtMs = :due',
          ConditionExpression:
            'channelId = :channel AND expiresAtMs > :due AND (attribute_not_exists(dueAtMs) OR dueAtMs > :due)',
          ExpressionAttributeValues: { ':channel': record.channelId, ':due': dueAtMs },
        }),
      ),
    );
  },
});
export type PushRouteStore = ReturnType<typeof pushRouteStore>;

/** The due marks (markDue) on these channels' routes, by secret id: the renewal run's reading of them. */
export async function routeDueMarks(
  table: TableAccess,
  records: readonly PushChannelRecord[],
): Promise<Map<string, number>> {
  const routes = await batchGetAll(
    table,
    records.map((record) => keys.pushRoute(record.secretId)),
    { projection: { expression: 'secretId, dueAtMs' }, consistent: true },
  );
  return new Map(
    routes
      .filter((route) => typeof route.dueAtMs === 'number')
      .map((route) => [String(route.secretId), route.dueAtMs as number]),
  );
}

export const pushChannelStore = (table: TableAccess) => {
  /** Forgets a channel's route; its listing item too unless a newer channel of the user replaced it. */
  const remove = async (record: PushChannelRecord, options: { keepListing?: boolean } = {}): Promise<void> => {
    await table.db.send(new DeleteCommand({ TableName: table.tableName, Key: keys.pushRoute(record.secretId) }));
    if (options.keepListing) return;
    await writeIfCondition(() =>
      table.db.send(
        new DeleteCommand({
          TableName: table.tableName,
          Key: keys.pushChannel(record.calendarId, record.user),
          ConditionExpression: 'secretId = :secret',
          ExpressionAttributeValues: { ':secret': record.secretId },
        }),
      ),
    );
  };

  return {
    ...pushRouteStore(table),

    async listForCalendar(calendarId: string): Promise<PushChannelRecord[]> {
      return (await queryAllWithPrefix(table, keys.calendarItems(calendarId), PUSH_CHANNEL_SK_PREFIX)).map(recordOf);
    },

    /** Stores a channel (the route first: a notification may arrive before the listing item is written). */
    async put(record: PushChannelRecord): Promise<void> {
      await table.db.send(
        new PutCommand({
          TableName: table.tableName,
          Item: { ...keys.pushRoute(record.secretId), ...record, ...expiresAfter(record) },
        }),
      );
      await table.db.send(
        new PutCommand({
          TableName: table.tableName,
          Item: { ...keys.pushChannel(record.calendarId, record.user), ...record, ...expiresAfter(record) },
        }),
      );
    },

    remove,

    /**
     * Hands a deleted calendar's channel to the renewal run: kept as retired first (so it is never lost),
     * then its route and listing item dropped. Safe to repeat.
     */
    async retire(record: PushChannelRecord, source: CompanyCalendarSource): Promise<void> {
      const { users: _users, ...company } = source.company;
      const retired: RetiredChannel = { record, source: { ...source, company } };
      await table.db.send(
        new PutCommand({
          TableName: table.tableName,
          Item: { ...keys.retiredPushChannel(record.calendarId, record.secretId), ...retired, ...expiresAfter(record) },
        }),
      );
      await remove(record);
    },

    /** Every retired channel not yet stopped (nor lapsed out of the table). */
    async listRetired(): Promise<RetiredChannel[]> {
      return (await queryAllWithPrefix(table, RETIRED_PUSH_CHANNELS_PK, '')).map((item) => ({
        record: item.record as PushChannelRecord,
        source: item.source as CompanyCalendarSource,
      }));
    },

    /** A retired channel stopped at its provider (or lapsed): nothing of it is left. */
    async forgetRetired(record: PushChannelRecord): Promise<void> {
      await table.db.send(
        new DeleteCommand({
          TableName: table.tableName,
          Key: keys.retiredPushChannel(record.calendarId, record.secretId),
        }),
      );
    },
  };
};
export type PushChannelStore = ReturnType<typeof pushChannelStore>;
