/**
 * The rules the real service applies to `POST bots` and `PATCH bots/{id}`,
 * written from shared/design/upstream-facts.md (each checked against Attendee's
 * behaviour, none of its code): which meeting links it takes and how it rewrites
 * them, what metadata, bot names and join times it refuses, and the shape of
 * its error bodies. Messages the facts quote are kept word for word (a client
 * may match them); the rest say the same in our words. The simulator is only
 * useful if it is no kinder than the service.
 */
import { dumps, type PyValue, WIRE } from './python-json';

/** Every field `POST bots` takes; any other is refused (the serializer's own check). */
export const CREATE_BOT_FIELDS = [
  'automatic_leave_settings',
  'bot_chat_message',
  'bot_image',
  'bot_name',
  'calendar_event_id',
  'callback_settings',
  'debug_settings',
  'deduplication_key',
  'external_media_storage_settings',
  'google_meet_settings',
  'join_at',
  'kubernetes_settings',
  'meeting_url',
  'metadata',
  'recording_settings',
  'rtmp_settings',
  'teams_settings',
  'transcription_settings',
  'voice_agent_settings',
  'webhooks',
  'websocket_settings',
  'zoom_settings',
] as const;

/** States after which a bot's deduplication key is free again. */
export const POST_MEETING_STATES: readonly string[] = ['fatal_error', 'ended', 'data_deleted'];

export const ALL_STATES = [
  'ready',
  'joining',
  'joined_not_recording',
  'joined_recording',
  'leaving',
  'post_processing',
  'fatal_error',
  'waiting_room',
  'ended',
  'data_deleted',
  'scheduled',
  'staged',
  'joined_recording_paused',
  'joining_breakout_room',
  'leaving_breakout_room',
  'joined_recording_permission_denied',
  'connecting',
  'connected',
  'disconnecting',
] as const;

export const MAX_METADATA_JSON_LENGTH = 1000;

/** Fields the create serializer declares without allowing null: `null` there is a field error. */
export const NOT_NULL_CREATE_FIELDS = ['metadata', 'join_at', 'deduplication_key'] as const;
/** DRF's message for a null its field does not allow. */
export const NULL_REFUSED = 'This field may not be null.';

/** The serializer's whole-body check: every field it does not declare, named, then every one it does. */
export function unexpectedFieldsMessage(unexpected: readonly string[], allowed: readonly string[]): string {
  return `Unexpected field(s): ${[...unexpected].sort().join(', ')}. Allowed fields are: ${[...allowed].sort().join(', ')}`;
}

/** States before a bot is in its meeting; with the post-meeting ones, they do not count against the concurrency limit. */
export const PRE_MEETING_STATES: readonly string[] = ['ready', 'scheduled', 'staged'];

/** The service's default cap on bots in a meeting at once, per project (CONCURRENT_BOTS_LIMIT). */
export const DEFAULT_CONCURRENT_BOTS_LIMIT = 2500;

export function concurrentBotsMessage(limit: number): string {
  return `You have exceeded the maximum number of concurrent bots (${limit}) for your account. Please reach out to customer support to increase the limit.`;
}

export function zoomCredentialsMessage(settingsUrl: string): string {
  return `Zoom App credentials are required to create a Zoom bot. Please add Zoom credentials at ${settingsUrl}`;
}

/** `GET bots/{id}/transcript?updated_after=` that is no date and time. */
export const UPDATED_AFTER_FORMAT_ERROR =
  'Invalid updated_after format. Use ISO 8601 format (e.g., 2024-01-18T12:34:56Z)';

/** The service's throttle on POSTs, per project: 3000 a minute unless configured otherwise. */
export const DEFAULT_POST_THROTTLE = { limit: 3000, windowMs: 60_000 } as const;

/** DRF's 429 body for a throttled request, `wait` already rounded up to whole seconds. */
export function throttledDetail(waitSeconds: number): string {
  return `Request was throttled. Expected available in ${waitSeconds} second${waitSeconds === 1 ? '' : 's'}.`;
}

/** Keys of a state change's event metadata that name a person; deleting a bot's data removes them. */
export const REMOVER_METADATA_KEYS = ['remover_name', 'remover_uuid', 'remover_user_uuid', 'remover_is_host'] as const;

/** DRF's field-error body: `{"field": ["message", ...]}`. */
export type FieldErrors = Record<string, string[]>;

// Meeting links: lambdas/core/upstream/meeting-url.ts (the calendar sync reads links the same way).
export { normalizeMeetingUrl } from '../../lambdas/core/upstream/meeting-url';

// ---------------------------------------------------------------------------
// Field rules

/** `json.dumps(value)` length as the service counts it: `", "` and `": "` separators, non-ASCII escaped. */
export function pythonJsonLength(value: Record<string, unknown>): number {
  return dumps(value as PyValue, WIRE).length;
}

/** Metadata rules; a message when refused. */
export function metadataProblem(value: unknown): string | undefined {
  if (value === null) return undefined;
  if (typeof value !== 'object' || Array.isArray(value)) return 'metadata must be a JSON object';
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length === 0) return 'metadata needs at least one key';
  for (const [key, item] of entries) if (typeof item !== 'string') return `Value for key '${key}' must be a string`;
  if (pythonJsonLength(value as Record<string, unknown>) > MAX_METADATA_JSON_LENGTH)
    return `metadata is longer than ${MAX_METADATA_JSON_LENGTH} characters as JSON`;
  return undefined;
}

/** The serializer's text field: a string (numbers become text), trimmed, not blank. */
export function textProblem(value: unknown): string | undefined {
  if (typeof value !== 'string' && typeof value !== 'number') return 'Not a valid string.';
  if (String(value).trim() === '') return 'This field may not be blank.';
  return undefined;
}

export function botNameProblem(name: string): string | undefined {
  for (const char of name)
    if ((char.codePointAt(0) ?? 0) > 0xffff)
      return 'bot_name cannot hold characters above U+FFFF (emoji or rare scripts)';
  return undefined;
}

const DATETIME =
  /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,6}))?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/i;

/** An ISO 8601 time as the service reads it (no zone: UTC); undefined when it cannot. */
export function parseServiceTime(text: string): number | undefined {
  const match = DATETIME.exec(text.trim());
  if (match === null) return undefined;
  const [, y, mo, d, h, mi, s, fraction, zone] = match;
  let offsetMinutes = 0;
  if (zone !== undefined && zone.toUpperCase() !== 'Z') {
    const digits = zone.slice(1).replace(':', '');
    offsetMinutes = (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2) || '0')) * (zone[0] === '-' ? -1 : 1);
  }
  const ms = Date.UTC(
    Number(y),
    Number(mo) - 1,
    Number(d),
    Number(h),
    Number(mi),
    Number(s ?? '0'),
    Number((fraction ?? '').padEnd(3, '0').slice(0, 3)),
  );
  const date = new Date(ms);
  if (Number.isNaN(ms) || date.getUTCDate() !== Number(d) || date.getUTCMonth() !== Number(mo) - 1) return undefined;
  return ms - offsetMinutes * 60_000;
}

export const DATETIME_FORMAT_ERROR = 'not an ISO 8601 date and time, e.g. 2026-11-23T15:00:00Z';

/** `join_at`: not in the past, at most three calendar years ahead. */
export function joinAtProblem(value: unknown, nowMs: number): string | undefined {
  const at = typeof value === 'string' ? parseServiceTime(value) : undefined;
  if (at === undefined) return DATETIME_FORMAT_ERROR;
  if (at < nowMs) return 'join_at cannot be in the past';
  const limit = new Date(nowMs);
  limit.setUTCFullYear(limit.getUTCFullYear() + 3);
  if (at > limit.getTime()) return 'join_at is more than 3 years ahead';
  return undefined;
}

/** ISO time as the service writes it back (UTC, `Z`). */
export function serviceTime(ms: number): string {
  return new Date(ms)
    .toISOString()
    .replace('.000Z', 'Z')
    .replace(/\.(\d{3})Z$/, '.$1000Z');
}

// ---------------------------------------------------------------------------
// Bot states: which event moves a bot from which states to which

/** An event the service records on a bot, with the states it may come from and the state it leads to. */
export interface BotTransition {
  from: readonly string[];
  to: string;
}

/** Joined states a bot records or may be asked to leave from (the service's list, recording paused and breakout rooms included). */
const IN_MEETING_STATES = [
  'joined_not_recording',
  'joined_recording',
  'joined_recording_paused',
  'joined_recording_permission_denied',
  'joining_breakout_room',
  'leaving_breakout_room',
] as const;

/**
 * The service's valid transitions, by event type as its webhooks and `events` name it. An event
 * from any other state is refused by the service itself, so the simulator never sends one.
 * `could_not_join_meeting` and `meeting_ended` both come before joining too: a bot left in the
 * lobby ends in `fatal_error` (the timeout) or `ended` (the meeting ended first), never recorded.
 */
export const BOT_TRANSITIONS: Readonly<Record<string, BotTransition>> = {
  staged: { from: ['scheduled'], to: 'staged' },
  join_requested: { from: ['ready', 'staged'], to: 'joining' },
  put_in_waiting_room: { from: ['joining'], to: 'waiting_room' },
  joined_meeting: { from: ['joining', 'waiting_room'], to: 'joined_not_recording' },
  recording_permission_granted: {
    from: ['joined_not_recording', 'joined_recording_permission_denied'],
    to: 'joined_recording',
  },
  recording_permission_denied: {
    from: ['joined_not_recording', 'joined_recording', 'joined_recording_paused'],
    to: 'joined_recording_permission_denied',
  },
  recording_paused: { from: ['joined_recording'], to: 'joined_recording_paused' },
  recording_resumed: { from: ['joined_recording_paused'], to: 'joined_recording' },
  could_not_join_meeting: { from: ['joining', 'waiting_room'], to: 'fatal_error' },
  meeting_ended: { from: [...IN_MEETING_STATES, 'joining', 'waiting_room', 'leaving'], to: 'post_processing' },
  leave_requested: { from: [...IN_MEETING_STATES, 'joining', 'waiting_room'], to: 'leaving' },
  left_meeting: { from: ['leaving'], to: 'post_processing' },
  post_processing_completed: { from: ['post_processing'], to: 'ended' },
  fatal_error: {
    from: [...IN_MEETING_STATES, 'scheduled', 'staged', 'joining', 'waiting_room', 'leaving', 'post_processing'],
    to: 'fatal_error',
  },
  data_deleted: { from: ['fatal_error', 'ended'], to: 'data_deleted' },
};

/** A state change the service would never make: the simulator throws rather than send it. */
export class InvalidTransitionError extends Error {
  override name = 'InvalidTransitionError';
}

/** The state `eventType` leads to from `oldState`; throws when the service allows no such move. */
export function nextState(eventType: string, oldState: string): string {
  const transition = BOT_TRANSITIONS[eventType];
  if (transition === undefined) throw new InvalidTransitionError(`unknown bot event type ${eventType}`);
  if (!transition.from.includes(oldState))
    throw new InvalidTransitionError(
      `${eventType} is not allowed from ${oldState}; only from ${transition.from.join(', ')}`,
    );
  return transition.to;
}

/** How long a bot waits to be admitted before giving up, unless the bot's settings say otherwise. */
export const WAITING_ROOM_TIMEOUT_SECONDS = 900;

/** `GET bots/{id}/recording` and `/transcript` of a bot with no recording at all (one that never joined). */
export const NO_RECORDING_ERROR = 'No recording found for bot';
/** `GET bots/{id}/recording` while the recording exists but its file is not uploaded yet. */
export const NO_RECORDING_FILE_ERROR = 'No recording file found for bot';

/**
 * A Zoom link (as normalized). Zoom bots need the project's Zoom credentials, and only the
 * native Zoom bot reports the lobby (`waiting_room`): Teams and Meet bots stay `joining`.
 */
export function isZoomLink(normalized: string): boolean {
  const host = new URL(normalized).hostname;
  return host === 'zoom.us' || host.endsWith('.zoom.us');
}
