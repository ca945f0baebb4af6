/**
 * The domain events the pipeline publishes for the customer's own systems: what
 * happened to a meeting or a schedule, in our words (snake_case, versioned), not
 * the service's webhooks nor our table layout. Each detail-type has a JSON Schema
 * in schemas/events/, the contract a consumer codes against.
 *
 * Published at least once. EventBridge gives every entry an id of its own per
 * PutEvents call, so a re-publish (after a crash, a redelivery) would look new:
 * `detail.event_id` is ours, derived from the cause only, the same on every
 * publish of the same fact. Consumers dedup by it.
 */
import { createHash } from 'node:crypto';
import { utcTimestamp } from '../text/utc-timestamp';

/** `source` of every entry. */
export const DOMAIN_EVENT_SOURCE = 'meeting-pipeline';

/** `detail.version`: raised only for a change a consumer could break on (a field removed or retyped). */
export const DOMAIN_EVENT_VERSION = 1;

export const DETAIL_TYPES = {
  stateChanged: 'meeting.state_changed',
  ended: 'meeting.ended',
  summaryReady: 'summary.ready',
  archived: 'meeting.archived',
  scheduleLaunched: 'schedule.launched',
  scheduleFailed: 'schedule.failed',
  erased: 'meeting.erased',
  calendarDisconnected: 'calendar.disconnected',
  outcome: 'meeting.outcome',
} as const;
export type DetailType = (typeof DETAIL_TYPES)[keyof typeof DETAIL_TYPES];

/** `detail.version` by detail-type where it was raised from DOMAIN_EVENT_VERSION. */
const RAISED_VERSIONS: Partial<Record<DetailType, number>> = { [DETAIL_TYPES.scheduleLaunched]: 2 };

/** Named already so that nothing else takes them. */
export const RESERVED_DETAIL_TYPES: readonly string[] = [];

interface DetailBase {
  version: number;
  /** Stable per fact: the dedup key (see the module comment). */
  event_id: string;
}

/** A state change applied to the meeting, heard by webhook or healed by the reconciler. */
export interface MeetingStateChangedDetail extends DetailBase {
  bot_id: string;
  old_state: string;
  new_state: string;
  /** When the service says the state changed (ISO 8601). */
  changed_at: string;
  event_type: string;
  event_sub_type: string | null;
  /** `reconciler` when the webhook was lost and the service's API told us instead. */
  observed_by: 'webhook' | 'reconciler';
}

/** The meeting reached a final state (`ended`, or `fatal_error` when the bot crashed). */
export interface MeetingEndedDetail extends DetailBase {
  bot_id: string;
  final_state: string;
  ended_at: string;
}

/**
 * The meeting's outcome is final (lambdas/core/outcome): recorded, partial, missed, failed or cancelled,
 * and why. Published whenever an applied state change leaves it so; a later event can change it (a
 * lost join heard late), and that is another fact.
 */
export interface MeetingOutcomeDetail extends DetailBase {
  bot_id: string;
  status: 'recorded' | 'partial' | 'missed' | 'failed' | 'cancelled';
  /** The service's own sub-type where it gave one (an unknown one kept as is), else ours. */
  reason: string;
  /** For people; may change: branch on `status` and `reason`. */
  sentence: string;
}

/** The meeting's summary is (now) this one; read it from the read API. */
export interface SummaryReadyDetail extends DetailBase {
  bot_id: string;
  /** UTF-8 size of the summary text; null when the update carried none. */
  summary_bytes: number | null;
  received_at: string;
}

export interface ArchivedRecordingDetail {
  status: 'archived' | 'none';
  bytes: number | null;
  sha256: string | null;
  content_type: string | null;
}

/** The recording, transcript and participants are in the recordings bucket. */
export interface MeetingArchivedDetail extends DetailBase {
  bot_id: string;
  archived_at: string;
  recording: ArchivedRecordingDetail;
  transcript_lines: number;
  participant_count: number;
}

/**
 * Version 2: version 1's `meeting_url` is gone. Events are archived out of an erasure's reach, and a
 * link may carry the meeting's passcode (Zoom's `pwd=`); a consumer correlates by `schedule_id` (its
 * own id) or `bot_id`, and reads the link from the schedule API while the schedule exists.
 */
export interface ScheduleLaunchedDetail extends DetailBase {
  schedule_id: string;
  schedule_version: number;
  bot_id: string;
  join_at: string;
}

export interface ScheduleFailedDetail extends DetailBase {
  schedule_id: string;
  schedule_version: number;
  reason: string;
}

/** A meeting's data was erased here: the receipt's id and counts, nothing of the meeting itself. */
export interface MeetingErasedDetail extends DetailBase {
  bot_id: string;
  receipt_id: string;
  erased_at: string;
  /** What was removed, by store (the receipt's counts). */
  counts: Record<string, number>;
}

/**
 * A company calendar's grant no longer reaches this user's calendar (the admin
 * revoked it, the secret is wrong, the user left the access policy): nothing of
 * theirs is synced until it does again. Their bots already scheduled stay.
 */
export interface CalendarDisconnectedDetail extends DetailBase {
  calendar_id: string;
  /** The user as the calendar lists them. */
  user: string;
  provider: 'google' | 'microsoft';
  /** The provider's words; never a credential. */
  reason: string;
  /** `source`: every user of the calendar is cut off (one event each); `user`: this user only. */
  scope: 'user' | 'source';
  disconnected_at: string;
}

interface Details {
  'meeting.state_changed': MeetingStateChangedDetail;
  'meeting.ended': MeetingEndedDetail;
  'summary.ready': SummaryReadyDetail;
  'meeting.archived': MeetingArchivedDetail;
  'schedule.launched': ScheduleLaunchedDetail;
  'schedule.failed': ScheduleFailedDetail;
  'meeting.erased': MeetingErasedDetail;
  'calendar.disconnected': CalendarDisconnectedDetail;
  'meeting.outcome': MeetingOutcomeDetail;
}

export type DomainEvent = { [T in DetailType]: { detailType: T; detail: Details[T] } }[DetailType];

/** What a detail holds besides the fields every detail has. */
type Fields<T extends DetailType> = Omit<Details[T], keyof DetailBase>;

/**
 * The id of a fact: the detail-type and what caused it (a webhook's idempotency
 * key, a schedule version, an archive), hashed; never a time of publishing.
 */
export function domainEventId(detailType: DetailType, ...cause: string[]): string {
  return createHash('sha256')
    .update(JSON.stringify([detailType, ...cause]))
    .digest('hex')
    .slice(0, 32);
}

/**
 * Every `…_at` field of a detail is a time, written in the one form of all answers
 * (lambdas/core/text/utc-timestamp.ts) whatever spelling it came in (the service's
 * `…123456+00:00`, a schedule's `…00Z`). The id is made from the cause as given.
 */
function withUtcTimes<F extends object>(fields: F): F {
  const entries = Object.entries(fields).map(([name, value]) => [
    name,
    name.endsWith('_at') && typeof value === 'string' ? utcTimestamp(value) : value,
  ]);
  return Object.fromEntries(entries) as F;
}

function event<T extends DetailType>(detailType: T, cause: string[], fields: Fields<T>): DomainEvent {
  const version = RAISED_VERSIONS[detailType] ?? DOMAIN_EVENT_VERSION;
  const detail = { version, event_id: domainEventId(detailType, ...cause), ...withUtcTimes(fields) };
  // The mapped type cannot see that `detailType` and `fields` agree; the signature ensures it.
  return { detailType, detail } as unknown as DomainEvent;
}

export const domainEvents = {
  /** Keyed by the webhook (or the reconciler's observation) that made the change. */
  stateChanged: (idempotencyKey: string, fields: Fields<'meeting.state_changed'>) =>
    event(DETAIL_TYPES.stateChanged, [fields.bot_id, idempotencyKey], fields),
  /**
   * Keyed by the fact, not by who reported it: the reconciler's observation and a late webhook of the
   * same final state are one `meeting.ended`.
   */
  ended: (fields: Fields<'meeting.ended'>) =>
    // The time as UTC: the service spells it `…796000+00:00`, the reconciler's REST read `…796Z`.
    event(DETAIL_TYPES.ended, [fields.bot_id, fields.final_state, utcTimestamp(fields.ended_at)], fields),
  summaryReady: (idempotencyKey: string, fields: Fields<'summary.ready'>) =>
    event(DETAIL_TYPES.summaryReady, [fields.bot_id, idempotencyKey], fields),
  /** A meeting is archived once; its archive record's time names that archive. */
  archived: (fields: Fields<'meeting.archived'>) =>
    event(DETAIL_TYPES.archived, [fields.bot_id, fields.archived_at], fields),
  /** One launch per schedule version (the bot's deduplication key is per version too). */
  scheduleLaunched: (fields: Fields<'schedule.launched'>) =>
    event(DETAIL_TYPES.scheduleLaunched, [fields.schedule_id, String(fields.schedule_version)], fields),
  scheduleFailed: (fields: Fields<'schedule.failed'>) =>
    event(DETAIL_TYPES.scheduleFailed, [fields.schedule_id, String(fields.schedule_version)], fields),
  /** One erasure per receipt. */
  erased: (fields: Fields<'meeting.erased'>) => event(DETAIL_TYPES.erased, [fields.bot_id, fields.receipt_id], fields),
  /** Keyed by the meeting and the outcome itself: every state change that leaves it so publishes one fact. */
  outcome: (fields: Fields<'meeting.outcome'>) =>
    event(DETAIL_TYPES.outcome, [fields.bot_id, fields.status, fields.reason], fields),
  /** One per disconnection of a user: found once, its time kept with the user until the event is published. */
  calendarDisconnected: (fields: Fields<'calendar.disconnected'>) =>
    event(
      DETAIL_TYPES.calendarDisconnected,
      [fields.calendar_id, fields.user.toLowerCase(), fields.disconnected_at],
      fields,
    ),
};
