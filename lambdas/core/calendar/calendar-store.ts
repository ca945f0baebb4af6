/**
 * The calendar items of the meetings table (store/table-layout.ts): sources, each
 * calendar's last feed and its entries (what each occurrence asked for), and the
 * claims that keep one bot per meeting across calendars.
 */
import { brotliCompressSync, brotliDecompressSync } from 'node:zlib';
import { DeleteCommand, GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { queryAllWithPrefix, type TableAccess, writeIfCondition } from '../store/dynamo';
import { type LeaseToken, releaseItemLease, takeItemLease, withoutLease } from '../store/item-lease';
import { CALENDAR_ENTRY_SK_PREFIX, CALENDAR_SK_PREFIX, CALENDARS_PK, keys } from '../store/table-layout';
import { linkHash, type MeetingSlot } from './calendar-ids';
import type { StoredCalendarSource } from './calendar-source';
import type { FeedValidators } from './feed-fetch';

/** What one occurrence of a calendar last asked for. */
export interface CalendarEntry {
  scheduleId: string;
  uid: string;
  originalStart: string | undefined;
  /** The meeting it holds the claim of, when it has a schedule (`active`). */
  slot: MeetingSlot;
  title: string;
  /**
   * `active`: its schedule is this occurrence's; `duplicate`: another calendar's schedule covers it;
   * `cancelled`; `creating`: a sync began making its schedule and did not finish — it may hold the
   * meeting's claim and the schedule may exist, so the next sync makes it again or, the occurrence
   * gone, cancels it (sync-calendar.ts).
   */
  state: 'active' | 'duplicate' | 'cancelled' | 'creating';
  botName: string;
  /** For a duplicate: the schedule that covers the meeting. */
  coveredBy?: string;
  /**
   * The schedule this occurrence took over from the entry of the event it replaced
   * (deleted and re-created under a new UID for the same meeting); absent: its own.
   */
  adoptedScheduleId?: string;
}

/** The schedule that sends this entry's bot. */
export const scheduleOf = (entry: Pick<CalendarEntry, 'adoptedScheduleId' | 'scheduleId'>): string =>
  entry.adoptedScheduleId ?? entry.scheduleId;

/** What a report reads of an entry. */
export type EntryRef = Pick<CalendarEntry, 'scheduleId' | 'adoptedScheduleId' | 'coveredBy' | 'state' | 'slot'>;

/** The schedule whose bot goes to this entry's meeting: its own, or for a duplicate the one covering it. */
export const entryScheduleId = (entry: EntryRef): string =>
  entry.state === 'duplicate' ? (entry.coveredBy ?? entry.scheduleId) : scheduleOf(entry);

/** A compressed feed must fit in an item with room to spare; a larger one is fetched in full each time. */
const MAX_STORED_FEED_BYTES = 300 * 1024;

const strip = <T>(item: Record<string, unknown>): T => {
  const { pk: _pk, sk: _sk, ...rest } = item;
  return rest as T;
};

export const calendarStore = (table: TableAccess) => ({
  /** An ICS source or a company one (isCompanySource tells them apart): each caller handles both. */
  async getSource(calendarId: string): Promise<StoredCalendarSource | undefined> {
    const { Item } = await table.db.send(
      new GetCommand({ TableName: table.tableName, Key: keys.calendar(calendarId), ConsistentRead: true }),
    );
    if (Item === undefined) return undefined;
    return strip<StoredCalendarSource>(withoutLease(Item));
  },

  async putSource(source: StoredCalendarSource): Promise<void> {
    await table.db.send(
      new PutCommand({ TableName: table.tableName, Item: { ...keys.calendar(source.calendarId), ...source } }),
    );
  },

  async deleteSource(calendarId: string): Promise<void> {
    await table.db.send(new DeleteCommand({ TableName: table.tableName, Key: keys.calendar(calendarId) }));
    await table.db.send(new DeleteCommand({ TableName: table.tableName, Key: keys.calendarFeed(calendarId) }));
  },

  async listSources(): Promise<StoredCalendarSource[]> {
    return (await queryAllWithPrefix(table, CALENDARS_PK, CALENDAR_SK_PREFIX)).map((item) =>
      strip<StoredCalendarSource>(withoutLease(item)),
    );
  },

  async recordSync(calendarId: string, at: string, outcome: string): Promise<void> {
    await writeIfCondition(() =>
      table.db.send(
        new UpdateCommand({
          TableName: table.tableName,
          Key: keys.calendar(calendarId),
          UpdateExpression: 'SET lastSync = :sync',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':sync': { at, outcome } },
        }),
      ),
    );
  },

  /**
   * One sync of a calendar at a time (the schedule and an on-demand sync may meet):
   * undefined while another holds the lease. A crashed holder's lease simply expires.
   */
  takeSyncLease: (calendarId: string, nowMs: number, forMs: number): Promise<LeaseToken | undefined> =>
    takeItemLease(table, keys.calendar(calendarId), nowMs, forMs),

  releaseSyncLease: (calendarId: string, token: LeaseToken): Promise<void> =>
    releaseItemLease(table, keys.calendar(calendarId), token),

  /** The feed last fetched, with the validators it came with. */
  async getFeed(calendarId: string): Promise<{ body: string; validators: FeedValidators } | undefined> {
    const { Item } = await table.db.send(
      new GetCommand({ TableName: table.tableName, Key: keys.calendarFeed(calendarId), ConsistentRead: true }),
    );
    if (Item === undefined) return undefined;
    return {
      body: brotliDecompressSync(Item.body as Uint8Array).toString('utf8'),
      validators: Item.validators as FeedValidators,
    };
  },

  async putFeed(calendarId: string, body: string, validators: FeedValidators): Promise<void> {
    const compressed = brotliCompressSync(body);
    const Key = keys.calendarFeed(calendarId);
    if (compressed.length > MAX_STORED_FEED_BYTES || Object.keys(validators).length === 0) {
      await table.db.send(new DeleteCommand({ TableName: table.tableName, Key }));
      return;
    }
    await table.db.send(new PutCommand({ TableName: table.tableName, Item: { ...Key, body: compressed, validators } }));
  },

  async listEntries(calendarId: string): Promise<CalendarEntry[]> {
    return (await queryAllWithPrefix(table, keys.calendarItems(calendarId), CALENDAR_ENTRY_SK_PREFIX)).map((item) =>
      strip<CalendarEntry>(item),
    );
  },

  /**
   * The scope's entries, `maxPages` Query pages at most (eventually consistent: a report, not a
   * decision); `complete` is false when more were left unread.
   */
  async listRecentEntries(scopeId: string, maxPages: number): Promise<{ entries: EntryRef[]; complete: boolean }> {
    const entries: EntryRef[] = [];
    let start: Record<string, unknown> | undefined;
    for (let page = 0; page < maxPages; page++) {
      const answer = await table.db.send(
        new QueryCommand({
          TableName: table.tableName,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
          ExpressionAttributeValues: { ':pk': keys.calendarItems(scopeId), ':prefix': CALENDAR_ENTRY_SK_PREFIX },
          ProjectionExpression: 'scheduleId, adoptedScheduleId, coveredBy, #state, slot',
          ExpressionAttributeNames: { '#state': 'state' },
          ...(start !== undefined && { ExclusiveStartKey: start }),
        }),
      );
      entries.push(...((answer.Items ?? []) as EntryRef[]));
      start = answer.LastEvaluatedKey;
      if (start === undefined) return { entries, complete: true };
    }
    return { entries, complete: false };
  },

  async putEntry(calendarId: string, entry: CalendarEntry): Promise<void> {
    await table.db.send(
      new PutCommand({
        TableName: table.tableName,
        Item: { ...keys.calendarEntry(calendarId, entry.scheduleId), ...entry },
      }),
    );
  },

  async deleteEntry(calendarId: string, scheduleId: string): Promise<void> {
    await table.db.send(
      new DeleteCommand({ TableName: table.tableName, Key: keys.calendarEntry(calendarId, scheduleId) }),
    );
  },

  /**
   * Takes the meeting for this schedule, or learns which schedule holds it. The
   * first writer wins; taking it again is a no-op, so a retried sync agrees.
   */
  async claim(slot: MeetingSlot, scheduleId: string, calendarId: string): Promise<{ holder: string }> {
    const Key = keys.meetingClaim(linkHash(slot.meetingUrl), slot.start);
    const taken = await writeIfCondition(() =>
      table.db.send(
        new PutCommand({
          TableName: table.tableName,
          Item: { ...Key, scheduleId, calendarId, meetingUrl: slot.meetingUrl, start: slot.start },
          ConditionExpression: 'attribute_not_exists(pk) OR scheduleId = :mine',
          ExpressionAttributeValues: { ':mine': scheduleId },
        }),
      ),
    );
    if (taken) return { holder: scheduleId };
    const { Item } = await table.db.send(new GetCommand({ TableName: table.tableName, Key, ConsistentRead: true }));
    // Released between our write and this read: try again.
    return Item === undefined ? this.claim(slot, scheduleId, calendarId) : { holder: Item.scheduleId as string };
  },

  /** Lets the meeting go, if this schedule holds it. */
  async release(slot: MeetingSlot, scheduleId: string): Promise<void> {
    await writeIfCondition(() =>
      table.db.send(
        new DeleteCommand({
          TableName: table.tableName,
          Key: keys.meetingClaim(linkHash(slot.meetingUrl), slot.start),
          ConditionExpression: 'scheduleId = :mine',
          ExpressionAttributeValues: { ':mine': scheduleId },
        }),
      ),
    );
  },
});

export type CalendarStore = ReturnType<typeof calendarStore>;
