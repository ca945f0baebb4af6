/**
 * A meeting's outcome, derived from the bot's state changes as the service reported them (webhooks, or the
 * reconciler's reading of the bot's `events`), in whatever order they arrived, plus what we know besides
 * (the schedule was cancelled). Pure: the apply step, the read API and the reports all call it.
 *
 * Why not the final state: `meeting_ended` is allowed from `joining` and `waiting_room`, so a bot never
 * admitted ends in `ended` like one that recorded the whole meeting. Only a join (a `joined_meeting` event,
 * or a state only a joined bot reaches) means something was recorded.
 */
import { isoToMicros } from '../text/iso-micros';
import { JOINED_BOT_STATES } from '../upstream/webhook-contract';
import {
  type KnownReason,
  type OutcomeStatus,
  outcomeSentence,
  SERVICE_FAILURE_REASONS,
  type SentenceFacts,
} from './outcome-reasons';

export type { OutcomeStatus } from './outcome-reasons';

export interface MeetingOutcome {
  status: OutcomeStatus;
  /** The service's sub-type code where it gave one (kept even when unknown to us), else one of ours. */
  reason: KnownReason | (string & {});
  /** For people: what happened, with the durations the events show. */
  sentence: string;
}

/**
 * One state change as stored (webhook field names). The service's `events` list (`GET bots/{id}`) carries no
 * states, so those are optional; `created_at` is ISO 8601 with a zone.
 */
export interface OutcomeEvent {
  event_type: string;
  event_sub_type?: string | null;
  old_state?: string | null;
  new_state?: string | null;
  created_at: string;
  event_metadata?: Record<string, unknown> | null;
}

/** What we know of the meeting besides its events. */
export interface OutcomeContext {
  /** The schedule was cancelled (its bot deleted at the service before it started). */
  cancelled?: boolean;
  /** The launch was refused after every retry: no bot exists. */
  launchRefused?: boolean;
}

/** States only a bot inside the meeting reaches. */
const JOINED_STATES: readonly string[] = JOINED_BOT_STATES;
/** States that say the bot's run is over. */
const OVER_STATES: readonly string[] = ['post_processing', 'ended', 'fatal_error', 'data_deleted'];
/** Event types that say the bot's run is over, whatever came before. */
const OVER_EVENTS: readonly string[] = [
  'meeting_ended',
  'left_meeting',
  'could_not_join_meeting',
  'fatal_error',
  'post_processing_completed',
  'data_deleted',
];
/** Where each event type sits in a bot's life: events at the same microsecond order by it, then by name. */
const EVENT_RANK: Record<string, number> = {
  staged: 1,
  join_requested: 2,
  put_in_waiting_room: 3,
  joined_meeting: 4,
  recording_permission_granted: 5,
  recording_permission_denied: 6,
  recording_paused: 6,
  recording_resumed: 6,
  leave_requested: 7,
  meeting_ended: 8,
  could_not_join_meeting: 8,
  fatal_error: 8,
  left_meeting: 9,
  post_processing_completed: 10,
  data_deleted: 11,
};

interface TimedEvent extends OutcomeEvent {
  micros: number;
}

/** The meeting's outcome from its events (any order, repeats allowed) and what else we know. */
export function deriveMeetingOutcome(events: readonly OutcomeEvent[], context: OutcomeContext = {}): MeetingOutcome {
  const timeline = inLifeOrder(events);
  const joinedAt = timeline.find(isJoin)?.micros;
  const joined = joinedAt !== undefined;
  const startedAt = timeline.find(isJoinAttempt)?.micros;
  const cause = endingCause(timeline);
  const over = cause !== undefined || timeline.some(isOver);

  const facts = (until: number | undefined): SentenceFacts => ({
    joined,
    ...(!joined && startedAt !== undefined && until !== undefined && { waited: duration(until - startedAt) }),
    ...(joined && until !== undefined && { recorded: duration(until - joinedAt) }),
  });
  const outcome = (status: OutcomeStatus, reason: string, until: number | undefined): MeetingOutcome => ({
    status,
    reason,
    sentence: outcomeSentence(reason, facts(until)),
  });

  if (cause !== undefined) {
    const subType = cause.event_sub_type ?? undefined;
    const until = endOfRecording(timeline, cause);
    switch (cause.event_type) {
      case 'could_not_join_meeting': {
        const reason = subType ?? 'could_not_join';
        return outcome(SERVICE_FAILURE_REASONS.includes(reason) ? 'failed' : 'missed', reason, cause.micros);
      }
      case 'fatal_error':
        // Before joining the bot never ran in the meeting; after, what it recorded until then is kept.
        return outcome(joined ? 'partial' : 'failed', subType ?? 'fatal_error', cause.micros);
      case 'recording_permission_denied':
        return outcome('partial', subType ?? 'recording_permission_denied', cause.micros);
      case 'leave_requested':
        return outcome(
          joined ? 'recorded' : 'missed',
          subType ?? (joined ? 'left_meeting' : 'left_before_admitted'),
          joined ? until : cause.micros,
        );
      default: {
        // meeting_ended: the meeting ended around the bot, or someone removed it.
        if (!joined) return outcome('missed', subType ?? 'ended_before_admitted', cause.micros);
        if (subType !== undefined) return outcome('recorded', subType, until);
        return wasRemoved(cause)
          ? outcome('partial', 'removed_from_meeting', until)
          : outcome('recorded', 'meeting_ended', until);
      }
    }
  }
  if (over) {
    // Timed by the first sign of the end, not the last event: later ones (post-processing) change nothing.
    const failedAt = timeline.find((event) => event.new_state === 'fatal_error')?.micros;
    if (failedAt !== undefined) return outcome(joined ? 'partial' : 'failed', 'fatal_error', failedAt);
    const overAt = timeline.find(isOver)?.micros;
    const left = timeline.find((event) => event.event_type === 'left_meeting');
    if (joined)
      return outcome('recorded', left === undefined ? 'meeting_ended' : 'left_meeting', left?.micros ?? overAt);
    return outcome('missed', startedAt === undefined ? 'no_join_reported' : 'ended_before_admitted', overAt);
  }
  if (context.cancelled === true) return outcome('cancelled', 'schedule_cancelled', undefined);
  if (context.launchRefused === true) return outcome('failed', 'launch_refused', undefined);
  if (joined) return outcome('in_progress', 'in_meeting', undefined);
  if (timeline.some(isInLobby)) return outcome('in_progress', 'in_waiting_room', undefined);
  if (startedAt !== undefined) return outcome('in_progress', 'joining', undefined);
  return outcome('scheduled', 'scheduled', undefined);
}

/**
 * The events as one timeline, as the outcome reads them: repeats dropped (the same event by webhook and
 * from the service's list), in time then life order.
 */
export function meetingTimeline(events: readonly OutcomeEvent[]): OutcomeEvent[] {
  return inLifeOrder(events).map(({ micros: _micros, ...event }) => event);
}

/** What a schedule that never got a bot tells of its meeting (the calendar report reads these). */
export function deriveScheduleOutcome(schedule: { status: string; botId?: string }): MeetingOutcome {
  const context: OutcomeContext = {
    cancelled: schedule.status === 'cancelled',
    launchRefused: schedule.status === 'failed' && schedule.botId === undefined,
  };
  return deriveMeetingOutcome([], context);
}

/** Repeats dropped (the same event by webhook and by the reconciler), then by time, life order and name. */
function inLifeOrder(events: readonly OutcomeEvent[]): TimedEvent[] {
  const unique = new Map<string, TimedEvent>();
  for (const event of events) {
    const micros = timeOf(event.created_at);
    // A time no one can read orders nothing (stored webhooks were validated; this guards older items).
    if (micros === undefined) continue;
    const key = `${micros}|${event.event_type}|${event.event_sub_type ?? ''}`;
    const seen = unique.get(key);
    // The copy that carries states (a webhook's) says more than the service's events list; between two
    // alike, the first by name, so the copy kept does not depend on arrival order.
    if (seen === undefined || preferred(event, seen)) unique.set(key, { ...event, micros });
  }
  return [...unique.values()].sort(
    (a, b) =>
      a.micros - b.micros ||
      (EVENT_RANK[a.event_type] ?? 0) - (EVENT_RANK[b.event_type] ?? 0) ||
      compareText(identity(a), identity(b)),
  );
}

function timeOf(iso: string): number | undefined {
  try {
    return isoToMicros(iso);
  } catch {
    return undefined;
  }
}

const preferred = (event: OutcomeEvent, seen: OutcomeEvent): boolean =>
  (seen.new_state == null) !== (event.new_state == null)
    ? event.new_state != null
    : compareText(identity(event), identity(seen)) < 0;

const identity = (event: OutcomeEvent) =>
  `${event.event_type}|${event.event_sub_type ?? ''}|${event.old_state ?? ''}|${event.new_state ?? ''}`;
const compareText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

const isJoin = (event: OutcomeEvent) =>
  event.event_type === 'joined_meeting' ||
  JOINED_STATES.includes(event.old_state ?? '') ||
  JOINED_STATES.includes(event.new_state ?? '');

const isJoinAttempt = (event: OutcomeEvent) =>
  event.event_type === 'join_requested' ||
  event.event_type === 'put_in_waiting_room' ||
  event.new_state === 'joining' ||
  event.new_state === 'waiting_room' ||
  isJoin(event);

const isInLobby = (event: OutcomeEvent) =>
  event.event_type === 'put_in_waiting_room' || event.new_state === 'waiting_room';

const isOver = (event: OutcomeEvent) =>
  OVER_EVENTS.includes(event.event_type) || OVER_STATES.includes(event.new_state ?? '');

/**
 * The event that ended the bot's run: the first that turned it away, failed it, made it leave, or ended the
 * meeting. A permission denial counts only if no grant followed it (the host may change their mind).
 */
function endingCause(timeline: readonly TimedEvent[]): TimedEvent | undefined {
  return timeline.find((event, index) => {
    switch (event.event_type) {
      case 'could_not_join_meeting':
      case 'fatal_error':
      case 'leave_requested':
      case 'meeting_ended':
        return true;
      case 'recording_permission_denied':
        return !timeline.slice(index + 1).some((later) => later.event_type === 'recording_permission_granted');
      default:
        return false;
    }
  });
}

/** When the bot stopped recording: it left the meeting, else the meeting ended, else the cause itself. */
function endOfRecording(timeline: readonly TimedEvent[], cause: TimedEvent): number {
  const left = timeline.find(
    (event) =>
      event.micros >= cause.micros && (event.event_type === 'left_meeting' || event.event_type === 'meeting_ended'),
  );
  return left?.micros ?? cause.micros;
}

/** Teams says who removed the bot in the event's metadata. */
const wasRemoved = (event: OutcomeEvent) =>
  typeof event.event_metadata?.remover_name === 'string' || typeof event.event_metadata?.remover_uuid === 'string';

/** A duration for people: "45 s", "15 min", "1 h 5 min". */
export function duration(micros: number): string {
  const seconds = Math.max(0, Math.round(micros / 1_000_000));
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  const rest = minutes % 60;
  return rest === 0 ? `${Math.floor(minutes / 60)} h` : `${Math.floor(minutes / 60)} h ${rest} min`;
}
