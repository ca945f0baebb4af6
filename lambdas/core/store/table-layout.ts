/**
 * The meetings table: one table, items grouped by bot. The CDK stack, local mode
 * and tests all build the table from these definitions.
 *
 * | item            | PK                            | SK                                | GSI2 (PK / SK)                          |
 * |-----------------|-------------------------------|-----------------------------------|-----------------------------------------|
 * | meeting         | BOT#<bot_id>                  | MEETING                           | STATE#<state>#<shard> / <stateAt>#<bot> |
 * | meeting by day  | MEETINGS#<yyyy-mm-dd>#<shard> | <listedAt µs>#<bot_id>            |                                         |
 * | summary         | BOT#<bot_id>                  | SUMMARY                           |                                         |
 * | state change    | BOT#<bot_id>                  | STATE#<created_at µs>#<key>       |                                         |
 * | utterance       | BOT#<bot_id>                  | UTT#<timestamp_ms>#<speaker_uuid> |                                         |
 * | participant     | BOT#<bot_id>                  | PART#<participant_uuid>           |                                         |
 * | participant evt | BOT#<bot_id>                  | PEV#<event id>                    |                                         |
 * | unknown trigger | BOT#<bot_id>                  | RAW#<idempotency_key>             |                                         |
 * | event record    | EVENTS#<bot_id or object>     | EVENT#<idempotency_key>           |                                         |
 * | object event    | OBJECT#<kind>:<id>            | EVENT#<idempotency_key>           |                                         |
 * | schedule        | SCHEDULE#<id>                 | SCHEDULE                          |                                         |
 * | calendar event  | SCHEDULE#<id>                 | CALENDAR_EVENT#<EventBridge id>   |                                         |
 * | retention mark  | RETENTION                     | RETENTION                         |                                         |
 * | calendar        | CALENDARS                     | CALENDAR#<calendar_id>            |                                         |
 * | calendar feed   | CALENDAR#<calendar_id>        | FEED                              |                                         |
 * | calendar entry  | CALENDAR#<calendar_id>        | OCC#<schedule_id>                 |                                         |
 * | new schedules   | CALENDAR#<calendar_id>        | NEW#<yyyy-mm-dd>                  |                                         |
 * | company user    | CALENDAR#<calendar_id>        | USER#<lowercased user>            |                                         |
 * | user's items    | CALENDAR#<user scope id>      | FEED                              |                                         |
 * | meeting claim   | CLAIM#<sha256(link)>#<start>  | CLAIM                             |                                         |
 * | quarantine cap  | QUARANTINE#MINUTE#<minute>    | CAP                               |                                         |
 * | quarantine cap  | QUARANTINE#BOT#<sha256(bot)>  | DAY#<yyyy-mm-dd>                  |                                         |
 * | push channel    | CALENDAR#<calendar_id>        | PUSH#<user>                       |                                         |
 * | push route      | PUSH#<secret id>              | ROUTE                             |                                         |
 * | lake day lease  | LAKE#<yyyy-mm-dd>             | LEASE                             |                                         |
 *
 * Costs drive the shape (on-demand bills 1 write unit per KB of item written,
 * and an index copy of an item is written with it):
 *  - event records (dedup and replay, raw body compressed) are in no index: a
 *    bot's events are a Query on the base table. They expire through the TTL
 *    attribute;
 *  - only the meeting item is indexed, and it stays small: the summary, up to
 *    64 KB, has its own item. Its state-index partition is spread over
 *    STATE_INDEX_SHARDS by bot, so meetings ending on the same minute do not all
 *    write one index partition. Archived meetings leave the index. A meeting
 *    launched but not yet heard from, or one the service still holds
 *    `scheduled`, is indexed at its join time instead of `stateAt`: it is not due
 *    before then;
 *  - meetings by day are small listing items, written once per meeting by whoever
 *    creates its meeting item (the launcher at its join time, else the first
 *    state change applied, at its `created_at`; the meeting item's `listedAt`
 *    says which, and returns as UPDATED_OLD so that no other write lists it
 *    again): one write unit per meeting, none per transcript line. Spread over
 *    DAY_LISTING_SHARDS by bot like the state index, so meetings aligned on the
 *    hour do not all write one partition; a day is read newest first across them;
 *  - the delivery log writes nothing per webhook: a record notes redeliveries
 *    (the ingress, on repeats only) and a failure (the consumer, on failures
 *    only); whether an event was applied, its items tell (read/delivery-outcomes.ts).
 *
 * The index is named gsi2 because gsi1 (meetings by day, bot events by arrival)
 * was removed; renaming gsi2 would replace it.
 */

export const TABLE_KEYS = {
  partitionKey: 'pk',
  sortKey: 'sk',
} as const;

export const GSI = {
  /** Unarchived meetings by current state (sharded), due time first. */
  byState: { name: 'gsi2', partitionKey: 'gsi2pk', sortKey: 'gsi2sk' },
} as const;

/**
 * Partitions per state in the state index. A partition takes about 1,000 writes a
 * second, so 16 take 16,000 meetings entering one state in the same second. It may grow
 * (readers read every shard, writers hash the bot), never shrink: entries in a
 * dropped shard would no longer be read.
 */
export const STATE_INDEX_SHARDS = 16;

/** Partitions per day of the day listing; may grow (readers read every shard), never shrink. */
export const DAY_LISTING_SHARDS = 4;

export const TTL_ATTRIBUTE = 'expiresAt';

/** Every key attribute is a string. */
export const KEY_ATTRIBUTES = [
  TABLE_KEYS.partitionKey,
  TABLE_KEYS.sortKey,
  GSI.byState.partitionKey,
  GSI.byState.sortKey,
] as const;

export const CALENDARS_PK = 'CALENDARS';
export const CALENDAR_SK_PREFIX = 'CALENDAR#';
export const CALENDAR_ENTRY_SK_PREFIX = 'OCC#';
/** A company calendar's users, under the calendar's items (calendar/company/company-store.ts). */
export const COMPANY_USER_SK_PREFIX = 'USER#';
export const CLAIM_PK_PREFIX = 'CLAIM#';
/** Sort-key prefix of a company calendar's push channels (one per user) under `CALENDAR#<calendar_id>`. */
export const PUSH_CHANNEL_SK_PREFIX = 'PUSH#';
/** The partition of the channels of deleted calendars (keys.retiredPushChannel). */
export const RETIRED_PUSH_CHANNELS_PK = 'PUSH_RETIRED';
/** The quarantine's counters (core/ingress/quarantine-cap.ts): the only items the ingress writes besides the ledger. */
export const QUARANTINE_CAP_PK_PREFIX = 'QUARANTINE#';

export const MEETING_SK = 'MEETING';
/**
 * On the meeting item, when the archive took the service's final transcript as
 * the meeting's: from then on no webhook, re-drive or replay changes a line.
 */
export const TRANSCRIPT_FINAL_ATTRIBUTE = 'transcriptFinalAt';
/**
 * On the meeting item once its erasure began (lambdas/core/erase): the item is then the meeting's
 * tombstone, holding no personal data, and every writer that reads the meeting drops what it brings.
 */
export const ERASURE_ATTRIBUTE = 'erasure';

/** On the meeting item: its outcome ({status, reason, sentence}), kept by lambdas/core/apply/meeting-outcome-item.ts. */
export const OUTCOME_ATTRIBUTE = 'outcome';
export const SUMMARY_SK = 'SUMMARY';
/** Sort-key prefix of the event records under `EVENTS#<bot_id>`. */
export const EVENT_SK_PREFIX = 'EVENT#';

/** Widths that keep numeric sort keys in numeric order as strings. */
const MS_DIGITS = 15;
const MICROS_DIGITS = 17;

/** Sort-key prefixes of a meeting's items; a Query with begins_with reads one kind. */
export const SK_PREFIX = {
  stateChange: 'STATE#',
  utterance: 'UTT#',
  participant: 'PART#',
  participantEvent: 'PEV#',
  unknownEvent: 'RAW#',
} as const;

export const keys = {
  bot: (botId: string) => `BOT#${botId}`,
  meeting: (botId: string) => ({ pk: keys.bot(botId), sk: MEETING_SK }),
  stateChange: (botId: string, createdAtMicros: number, idempotencyKey: string) => ({
    pk: keys.bot(botId),
    sk: `${SK_PREFIX.stateChange}${padMicros(createdAtMicros)}#${idempotencyKey}`,
  }),
  utterance: (botId: string, timestampMs: number, speakerUuid: string) => ({
    pk: keys.bot(botId),
    sk: `${SK_PREFIX.utterance}${padMs(timestampMs)}#${speakerUuid}`,
  }),
  participant: (botId: string, participantUuid: string) => ({
    pk: keys.bot(botId),
    sk: `${SK_PREFIX.participant}${participantUuid}`,
  }),
  participantEvent: (botId: string, eventId: string) => ({
    pk: keys.bot(botId),
    sk: `${SK_PREFIX.participantEvent}${eventId}`,
  }),
  unknownEvent: (botId: string, idempotencyKey: string) => ({
    pk: keys.bot(botId),
    sk: `${SK_PREFIX.unknownEvent}${idempotencyKey}`,
  }),
  summary: (botId: string) => ({ pk: keys.bot(botId), sk: SUMMARY_SK }),
  /**
   * An event's ledger record, under its bot (or the object a webhook without a bot is about): a bot's
   * events are one Query, and no index copies them. Keyed by idempotency key alone, so a redelivery
   * (which may carry another arrival time) lands on the same record. The ingress writes it when it
   * first accepts the event (its time orders re-sends); the consumer moves its status.
   */
  event: (botId: string, idempotencyKey: string) => ({
    pk: keys.eventsOfBot(botId),
    sk: `${EVENT_SK_PREFIX}${idempotencyKey}`,
  }),
  /**
   * A webhook about something other than a bot (a calendar, an app session…), kept under that object.
   * Keyed by idempotency key alone, so a redelivery (received later) lands on the same item.
   */
  objectEvent: (relatedObject: string, idempotencyKey: string) => ({
    pk: keys.relatedObject(relatedObject),
    sk: `EVENT#${idempotencyKey}`,
  }),
  relatedObject: (relatedObject: string) => `OBJECT#${relatedObject}`,
  schedule: (scheduleId: string) => ({ pk: `SCHEDULE#${scheduleId}`, sk: 'SCHEDULE' }),
  /** A calendar event from EventBridge applied to a schedule, by the event's id (schedule/applied-calendar-events.ts). */
  appliedCalendarEvent: (scheduleId: string, eventId: string) => ({
    pk: `SCHEDULE#${scheduleId}`,
    sk: `CALENDAR_EVENT#${eventId}`,
  }),
  /** The retention run's progress: the oldest day whose listing may still hold meetings (core/erase/retention.ts). */
  retentionMark: () => ({ pk: 'RETENTION', sk: 'RETENTION' }),
  /** The lease one lake day's compacted files are rewritten under (compaction, erasure, a late write). */
  lakeDayLease: (day: string) => ({ pk: `LAKE#${day}`, sk: 'LEASE' }),
  /** Every calendar source sits in one partition: the sync lists them with one Query. */
  calendar: (calendarId: string) => ({ pk: CALENDARS_PK, sk: `${CALENDAR_SK_PREFIX}${calendarId}` }),
  /** A calendar's last feed (compressed) with its validators, for a conditional GET. */
  calendarFeed: (calendarId: string) => ({ pk: keys.calendarItems(calendarId), sk: 'FEED' }),
  /** What one occurrence of a calendar asked for, under its schedule id. */
  calendarEntry: (calendarId: string, scheduleId: string) => ({
    pk: keys.calendarItems(calendarId),
    sk: `${CALENDAR_ENTRY_SK_PREFIX}${scheduleId}`,
  }),
  calendarItems: (calendarId: string) => `CALENDAR#${calendarId}`,
  /** How many new schedules a calendar made on a UTC day (calendar/schedule-budget.ts); expires by TTL. */
  calendarNewSchedules: (calendarId: string, day: string) => ({
    pk: keys.calendarItems(calendarId),
    sk: `NEW#${day}`,
  }),
  /**
   * One user of a company calendar: state, last sync, back-off, lease. Their entries, new-schedule
   * counters and kept items + cursor (at calendarFeed) are under the user's scope id
   * (calendar/company/user-scope.ts), a calendar partition of its own.
   */
  companyUser: (calendarId: string, user: string) => ({
    pk: keys.calendarItems(calendarId),
    sk: `${COMPANY_USER_SK_PREFIX}${user.toLowerCase()}`,
  }),
  /** One bot per meeting: the occurrence that holds (meeting link, start) across all calendars. */
  meetingClaim: (linkHash: string, start: string) => ({ pk: `${CLAIM_PK_PREFIX}${linkHash}#${start}`, sk: 'CLAIM' }),
  eventsOfBot: (botId: string) => `EVENTS#${botId}`,
  /** A user's push channel (Google watch channel, Graph subscription) on a company calendar: listed per calendar. */
  pushChannel: (calendarId: string, user: string) => ({
    pk: keys.calendarItems(calendarId),
    sk: `${PUSH_CHANNEL_SK_PREFIX}${user}`,
  }),
  /**
   * The same channel found by the random id in its secret (calendar/company/push/push-secret.ts): a
   * notification names only that, and is read here only after its HMAC held.
   */
  pushRoute: (secretId: string) => ({ pk: `PUSH#${secretId}`, sk: 'ROUTE' }),
  /**
   * A channel of a deleted calendar, still to be stopped at its provider by the renewal run (which alone
   * holds the credentials): every such channel in one partition, as the run reads them all.
   */
  retiredPushChannel: (calendarId: string, secretId: string) => ({
    pk: RETIRED_PUSH_CHANNELS_PK,
    sk: `${calendarId}#${secretId}`,
  }),
  /** Bodies quarantined in one minute (epoch minutes), across every ingress instance: the global cap's counter. */
  quarantineMinute: (minute: number) => ({ pk: `${QUARANTINE_CAP_PK_PREFIX}MINUTE#${minute}`, sk: 'CAP' }),
  /** Bodies quarantined on one day (yyyy-mm-dd) naming one bot (by hash: a forged id is any text). */
  quarantineBotDay: (botHash: string, day: string) => ({
    pk: `${QUARANTINE_CAP_PK_PREFIX}BOT#${botHash}`,
    sk: `DAY#${day}`,
  }),
  /** The state-index partition a meeting in `state` is written to: its bot's shard. */
  meetingsInState: (state: string, botId: string) => `${keys.unshardedState(state)}#${stateShard(botId)}`,
  /** The state-index partition earlier releases wrote: a meeting keeps it until its next state change or archive. */
  unshardedState: (state: string) => `STATE#${state}`,
  /** Every partition that can hold meetings in `state`: each shard, and the unsharded one. */
  stateIndexPartitions: (state: string): string[] => [
    ...Array.from({ length: STATE_INDEX_SHARDS }, (_, shard) => `${keys.unshardedState(state)}#${shard}`),
    keys.unshardedState(state),
  ],
  /** The day listing's partition a meeting listed on `day` (yyyy-mm-dd, UTC) is written to (`*`: a grant's pattern). */
  meetingsOnDay: (day: string, shard: number | '*') => `MEETINGS#${day}#${shard}`,
  /** A meeting's day-listing item: under its UTC day and bot's shard, by time then bot. */
  dayListing: (listedAtMicros: number, botId: string) => {
    const day = new Date(Math.floor(listedAtMicros / 1000)).toISOString().slice(0, 10);
    return {
      pk: keys.meetingsOnDay(day, stateShard(botId) % DAY_LISTING_SHARDS),
      sk: keys.meetingAt(listedAtMicros, botId),
    };
  },
  /** A meeting's sort key in the state index: its state's time, then the bot (a scheduled meeting: its join time). */
  meetingAt: (micros: number, botId: string) => `${padMicros(micros)}#${botId}`,
} as const;

/**
 * Every kind of partition the table holds, as an IAM `StringLike` pattern of its partition key, built
 * by the same builders the code uses. Each function's grant (lib/grants.ts) names the kinds it reads
 * or writes, and `dynamodb:LeadingKeys` holds its item actions to them. An item under a new partition
 * key is one line here, and its kind in the grant of each function whose code builds that key
 * (test/infra/table-grants.test.ts finds those functions in the code and names what is missing).
 */
export const PARTITIONS = {
  bot: keys.bot('*'),
  events: keys.eventsOfBot('*'),
  object: keys.relatedObject('*'),
  schedule: keys.schedule('*').pk,
  retention: keys.retentionMark().pk,
  calendars: keys.calendar('*').pk,
  calendar: keys.calendarItems('*'),
  claim: `${CLAIM_PK_PREFIX}*`,
  dayListing: keys.meetingsOnDay('*', '*'),
  quarantineCap: `${QUARANTINE_CAP_PK_PREFIX}*`,
  pushRoute: keys.pushRoute('*').pk,
  retiredPushChannels: RETIRED_PUSH_CHANNELS_PK,
  lakeDay: keys.lakeDayLease('*').pk,
} as const;
export type PartitionKind = keyof typeof PARTITIONS;

/** Zero-padded so string order is numeric order; used in version strings. */
export const padMs = (ms: number): string => String(ms).padStart(MS_DIGITS, '0');

/** Epoch microseconds zero-padded so string order is time order (sort keys, state order, cutoffs). */
export const padMicros = (micros: number): string => String(micros).padStart(MICROS_DIGITS, '0');

/** The largest microsecond count padMicros renders. */
export const MAX_MICROS = 10 ** MICROS_DIGITS - 1;

/** A bot's shard of the state index: FNV-1a of its id, stable across releases and runtimes. */
export function stateShard(botId: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < botId.length; i++) {
    hash ^= botId.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) % STATE_INDEX_SHARDS;
}
