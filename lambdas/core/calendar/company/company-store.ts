/**
 * A company calendar's items in the meetings table (store/table-layout.ts): each
 * user's state under the calendar, and each user's kept items with the provider's
 * cursor in one compressed item under the user's scope (user-scope.ts), where an
 * ICS calendar keeps its feed. Dropping that item (an erasure does) forces a full
 * listing of the user, so nothing depends on it being there.
 */
import { brotliCompressSync, brotliDecompressSync } from 'node:zlib';
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { queryAllWithPrefix, type TableAccess, writeIfCondition } from '../../store/dynamo';
import { type LeaseToken, releaseItemLease, takeItemLease, withoutLease } from '../../store/item-lease';
import { COMPANY_USER_SK_PREFIX, keys } from '../../store/table-layout';
import type { ProviderItem, SyncWindow } from './provider-contract';

/** One user of a company calendar, as GET /calendars/{id} shows them. */
export interface CompanyUserState {
  /** As configured or as the group listed them. */
  user: string;
  /** `pending`: not synced yet; `disconnected`: the provider refused the grant (`reason` says why). */
  state: 'pending' | 'connected' | 'disconnected';
  /** The provider's words for a disconnection; never a credential. */
  reason?: string;
  lastSyncAt?: string;
  lastSyncOutcome?: string;
  /** Instances kept from the provider's listings (the window's, not yet ended). */
  eventsSeen: number;
  /** Throttled: no sync of this user is asked for before this time (ISO 8601). */
  backoffUntil?: string;
  /** Came from the source's group (and leaves when the group no longer lists them). */
  fromGroup: boolean;
  /** Throttled syncs in a row: each doubles the wait. */
  throttledRuns?: number;
  /** When the current disconnection was found: with calendar and user, it names its domain event. */
  disconnectedAt?: string;
  /** The disconnection's domain event is published (published again until it is). */
  disconnectPublished?: boolean;
}

/** What a user's listings left: the instances by item id, the cursor for the next listing, the window it covers. */
export interface KeptItems {
  items: ProviderItem[];
  cursor: string | undefined;
  window: SyncWindow;
  /** KEPT_ITEMS_FORMAT when kept; absent in items kept before formats were named. */
  format?: number;
}

/**
 * The form kept items are written in. 2: a Graph series' plain occurrences are filled from
 * their master; before, they were kept as Graph lists them, without title or link, and an
 * incremental listing would never name them again. Items of another form are read without
 * their cursor, so the user's next listing is full and replaces them.
 */
export const KEPT_ITEMS_FORMAT = 2;

/** A compressed kept set must fit in an item with room to spare; a larger one is not kept (the next listing is full). */
const MAX_STORED_ITEMS_BYTES = 300 * 1024;

function userOf(item: Record<string, unknown>): CompanyUserState {
  const { pk: _pk, sk: _sk, ...state } = withoutLease(item);
  return state as unknown as CompanyUserState;
}

export const companyStore = (table: TableAccess) => ({
  async listUsers(calendarId: string): Promise<CompanyUserState[]> {
    return (await queryAllWithPrefix(table, keys.calendarItems(calendarId), COMPANY_USER_SK_PREFIX)).map(userOf);
  },

  async getUser(calendarId: string, user: string): Promise<CompanyUserState | undefined> {
    const { Item } = await table.db.send(
      new GetCommand({ TableName: table.tableName, Key: keys.companyUser(calendarId, user), ConsistentRead: true }),
    );
    return Item === undefined ? undefined : userOf(Item);
  },

  /** Writes the user whole (a new user; a lease held on it is dropped). */
  async putUser(calendarId: string, state: CompanyUserState): Promise<void> {
    await table.db.send(
      new PutCommand({ TableName: table.tableName, Item: { ...keys.companyUser(calendarId, state.user), ...state } }),
    );
  },

  /** Sets and removes fields of a user that exists; false when the user is gone (removed meanwhile). */
  async updateUser(
    calendarId: string,
    user: string,
    set: Partial<Omit<CompanyUserState, 'user'>>,
    remove: ReadonlyArray<keyof CompanyUserState> = [],
  ): Promise<boolean> {
    const fields = Object.entries(set).filter(([, value]) => value !== undefined);
    const names: Record<string, string> = {};
    const values: Record<string, unknown> = {};
    const sets = fields.map(([name, value], i) => {
      names[`#s${i}`] = name;
      values[`:s${i}`] = value;
      return `#s${i} = :s${i}`;
    });
    const removes = remove.map((name, i) => {
      names[`#r${i}`] = name;
      return `#r${i}`;
    });
    const update = [sets.length > 0 && `SET ${sets.join(', ')}`, removes.length > 0 && `REMOVE ${removes.join(', ')}`]
      .filter(Boolean)
      .join(' ');
    if (update === '') return true;
    return writeIfCondition(() =>
      table.db.send(
        new UpdateCommand({
          TableName: table.tableName,
          Key: keys.companyUser(calendarId, user),
          UpdateExpression: update,
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeNames: names,
          ...(fields.length > 0 && { ExpressionAttributeValues: values }),
        }),
      ),
    );
  },

  /**
   * Marks the user disconnected with the provider's reason; true only for the write that
   * disconnected them (a user already disconnected, or gone, is left as is), so each
   * disconnection is counted and announced once however many syncs find it.
   */
  async markDisconnected(calendarId: string, user: string, reason: string, at: string): Promise<boolean> {
    return writeIfCondition(() =>
      table.db.send(
        new UpdateCommand({
          TableName: table.tableName,
          Key: keys.companyUser(calendarId, user),
          UpdateExpression:
            'SET #state = :disconnected, #reason = :reason, disconnectedAt = :at, disconnectPublished = :no',
          ConditionExpression: 'attribute_exists(pk) AND #state <> :disconnected',
          ExpressionAttributeNames: { '#state': 'state', '#reason': 'reason' },
          ExpressionAttributeValues: { ':disconnected': 'disconnected', ':reason': reason, ':at': at, ':no': false },
        }),
      ),
    );
  },

  async deleteUser(calendarId: string, user: string): Promise<void> {
    await table.db.send(new DeleteCommand({ TableName: table.tableName, Key: keys.companyUser(calendarId, user) }));
  },

  /**
   * One sync of a user at a time (the scheduled run, a push, a manual sync may meet): undefined while
   * another holds the lease, or when the user is not (or no longer) one of the calendar's. A crashed
   * holder's lease simply expires.
   */
  takeUserLease: (calendarId: string, user: string, nowMs: number, forMs: number): Promise<LeaseToken | undefined> =>
    takeItemLease(table, keys.companyUser(calendarId, user), nowMs, forMs),

  releaseUserLease: (calendarId: string, user: string, token: LeaseToken): Promise<void> =>
    releaseItemLease(table, keys.companyUser(calendarId, user), token),

  /** The user's kept items and cursor; undefined when none are kept (or they cannot be read): list in full. */
  async getKept(scopeId: string): Promise<KeptItems | undefined> {
    const { Item } = await table.db.send(
      new GetCommand({ TableName: table.tableName, Key: keys.calendarFeed(scopeId), ConsistentRead: true }),
    );
    if (Item === undefined || !(Item.items instanceof Uint8Array)) return undefined;
    try {
      const kept = JSON.parse(brotliDecompressSync(Item.items).toString('utf8')) as KeptItems;
      return kept.format === KEPT_ITEMS_FORMAT ? kept : { ...kept, cursor: undefined };
    } catch {
      return undefined;
    }
  },

  /** Keeps the items and cursor; false (and nothing kept, so the next listing is full) when they are too large. */
  async putKept(scopeId: string, kept: KeptItems): Promise<boolean> {
    const compressed = brotliCompressSync(JSON.stringify({ ...kept, format: KEPT_ITEMS_FORMAT }));
    if (compressed.length > MAX_STORED_ITEMS_BYTES) {
      await this.deleteKept(scopeId);
      return false;
    }
    await table.db.send(
      new PutCommand({ TableName: table.tableName, Item: { ...keys.calendarFeed(scopeId), items: compressed } }),
    );
    return true;
  },

  async deleteKept(scopeId: string): Promise<void> {
    await table.db.send(new DeleteCommand({ TableName: table.tableName, Key: keys.calendarFeed(scopeId) }));
  },
});

export type CompanyStore = ReturnType<typeof companyStore>;
