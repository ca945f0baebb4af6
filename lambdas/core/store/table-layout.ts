/**
 * The meetings table: one table, items grouped by bot. The CDK stack, local mode
 * and tests all build the table from these definitions.
 *
 * | item            | PK              | SK                                  | GSI1 (PK / SK)                    | GSI2 (PK / SK)            |
 * |-----------------|-----------------|-------------------------------------|-----------------------------------|---------------------------|
 * | meeting         | BOT#<bot_id>    | MEETING                             | DAY#<yyyy-mm-dd> / <stateAt>#<bot> | STATE#<state> / <stateAt>#<bot> |
 * | state change    | BOT#<bot_id>    | STATE#<created_at µs>#<key>         |                                   |                           |
 * | utterance       | BOT#<bot_id>    | UTT#<timestamp_ms>#<speaker_uuid>   |                                   |                           |
 * | participant     | BOT#<bot_id>    | PART#<participant_uuid>             |                                   |                           |
 * | participant evt | BOT#<bot_id>    | PEV#<event id>                      |                                   |                           |
 * | unknown trigger | BOT#<bot_id>    | RAW#<idempotency_key>               |                                   |                           |
 * | event record    | EVENT#<key>     | EVENT                               | EVENTS#<bot_id> / <received_at>#<key> |                       |
 * | schedule        | SCHEDULE#<id>   | SCHEDULE                            |                                   |                           |
 *
 * Event records (dedup and replay) expire through the TTL attribute. A meeting
 * launched but not yet heard from, or one the service still holds `scheduled`,
 * is indexed at its join time instead of `stateAt`: it is not due before then.
 */

export const TABLE_KEYS = {
  partitionKey: 'pk',
  sortKey: 'sk',
} as const;

export const GSI = {
  /** Meetings by day of their current state; a bot's events in arrival order. */
  byDay: { name: 'gsi1', partitionKey: 'gsi1pk', sortKey: 'gsi1sk' },
  /** Meetings by current state. */
  byState: { name: 'gsi2', partitionKey: 'gsi2pk', sortKey: 'gsi2sk' },
} as const;

export const TTL_ATTRIBUTE = 'expiresAt';

/** Every key attribute is a string. */
export const KEY_ATTRIBUTES = [
  TABLE_KEYS.partitionKey,
  TABLE_KEYS.sortKey,
  GSI.byDay.partitionKey,
  GSI.byDay.sortKey,
  GSI.byState.partitionKey,
  GSI.byState.sortKey,
] as const;

export const MEETING_SK = 'MEETING';
export const EVENT_SK = 'EVENT';

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
  event: (idempotencyKey: string) => ({ pk: `EVENT#${idempotencyKey}`, sk: EVENT_SK }),
  /** When the ingress first accepted an event: every later delivery of it carries this time. */
  acceptance: (idempotencyKey: string) => ({ pk: `ACCEPTED#${idempotencyKey}`, sk: 'ACCEPTED' }),
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
  eventsOfBot: (botId: string) => `EVENTS#${botId}`,
  meetingsOfDay: (day: string) => `DAY#${day}`,
  meetingsInState: (state: string) => `STATE#${state}`,
  /** A meeting's sort key in both meeting indexes: its state's time, then the bot (a scheduled meeting: its join time). */
  meetingAt: (micros: number, botId: string) => `${padMicros(micros)}#${botId}`,
} as const;

/** Zero-padded so string order is numeric order; used in version strings. */
export const padMs = (ms: number): string => String(ms).padStart(MS_DIGITS, '0');

/** Epoch microseconds zero-padded so string order is time order (sort keys, state order, cutoffs). */
export const padMicros = (micros: number): string => String(micros).padStart(MICROS_DIGITS, '0');

/** The largest microsecond count padMicros renders. */
export const MAX_MICROS = 10 ** MICROS_DIGITS - 1;
