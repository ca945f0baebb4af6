/**
 * The contract of a meeting's outcome: its statuses, and every reason with the sentence people read.
 * A reason is the service's own `event_sub_type` where it gave one (Attendee's `BotEventSubTypes`),
 * else one of ours. A sub-type not listed here keeps its code and gets a generic sentence.
 */

export const OUTCOME_STATUSES = [
  'scheduled',
  'in_progress',
  'recorded',
  'partial',
  'missed',
  'failed',
  'cancelled',
] as const;
export type OutcomeStatus = (typeof OUTCOME_STATUSES)[number];

/** Statuses that no later event changes (a meeting that reached one is over). */
export const FINAL_OUTCOME_STATUSES: readonly OutcomeStatus[] = [
  'recorded',
  'partial',
  'missed',
  'failed',
  'cancelled',
];

export const isOutcomeStatus = (value: string): value is OutcomeStatus =>
  (OUTCOME_STATUSES as readonly string[]).includes(value);

/** Times a sentence may mention, already written for people ("15 min", "1 h 5 min"). */
export interface SentenceFacts {
  /** From the first join attempt to the moment the bot gave up or was turned away. */
  waited?: string;
  /** From joining to leaving. */
  recorded?: string;
  /** The bot got into the meeting (a leave reason then means it recorded first). */
  joined?: boolean;
}

type Sentence = (facts: SentenceFacts) => string;

const waitedFor = (facts: SentenceFacts) => (facts.waited === undefined ? '' : ` for ${facts.waited}`);
const recordedFor = (facts: SentenceFacts) => (facts.recorded === undefined ? '' : ` for ${facts.recorded}`);
/** A leave reason: after recording, or while the bot still waited to get in. */
const leftBecause = (why: string) => (facts: SentenceFacts) =>
  facts.joined === true
    ? `The bot recorded${recordedFor(facts)} and left ${why}.`
    : `The bot waited to be admitted${waitedFor(facts)}, then left ${why}.`;

/** The service's sub-types (upstream-facts: `BotEventSubTypes`), each with what it means for people. */
export const SERVICE_REASONS = {
  meeting_not_started_waiting_for_host: (f) =>
    `The bot waited${waitedFor(f)} for the host to start the meeting, and it never started.`,
  waiting_room_timeout_exceeded: (f) => `The bot waited in the lobby${waitedFor(f)} and was never admitted.`,
  request_to_join_denied: () => 'The bot asked to join and was denied.',
  meeting_not_found: () => 'The meeting link leads to no meeting.',
  login_required: () => 'The meeting only admits signed-in users; the bot was not signed in.',
  bot_login_attempt_failed: () => 'The bot could not sign in to join the meeting.',
  unable_to_connect_to_meeting: () => 'The bot could not connect to the meeting (often a wrong password in the link).',
  blocked_by_captcha: () => 'The bot was stopped by a captcha.',
  zoom_authorization_failed: () => 'The service could not authorize with Zoom (Zoom app credentials missing or wrong).',
  zoom_meeting_status_failed: () => 'Zoom refused the bot the meeting.',
  unpublished_zoom_app: () => 'The Zoom app the service uses is not published, so Zoom refused the bot.',
  zoom_sdk_internal_error: () => 'The Zoom SDK failed inside the bot.',
  zoom_app_cannot_join_anonymously: () => 'The meeting does not let a Zoom app join without a signed-in user.',
  authorized_user_not_in_meeting_timeout_exceeded: (f) =>
    `The bot waited${waitedFor(f)} for the user it joins on behalf of, who never came.`,
  process_terminated: () => 'The bot process was terminated.',
  heartbeat_timeout: () => 'The bot stopped reporting to the service (heartbeat timeout).',
  bot_not_launched: () => 'The service never launched the bot.',
  out_of_credits: () => 'The service account is out of credits, so the bot was not run.',
  attendee_internal_error: () => 'The service failed with an internal error.',
  global_runtime_timeout: () => 'The bot reached the longest time the service lets it run.',
  rtmp_connection_failed: () => 'The bot could not stream to its RTMP destination.',
  ui_element_not_found: () => 'The bot could not find its way through the meeting page.',
  host_denied_permission: () => 'The host denied the bot permission to record.',
  request_timed_out: () => 'The bot asked for permission to record and got no answer.',
  host_client_cannot_grant_permission: () => "The host's client cannot grant the bot permission to record.",
  webinar_attendee_needs_panelist_promotion: () => 'The webinar admits the bot only if it is promoted to panelist.',
  user_requested: leftBecause('when asked to'),
  auto_leave_silence: leftBecause('after a long silence'),
  auto_leave_only_participant_in_meeting: leftBecause('once it was alone in the meeting'),
  auto_leave_max_uptime_exceeded: leftBecause('at the longest time it may stay'),
  auto_leave_could_not_enable_closed_captions: leftBecause('because it could not turn on closed captions'),
} as const satisfies Record<string, Sentence>;
export type ServiceReason = keyof typeof SERVICE_REASONS;

/** Our reasons, where the service gave no sub-type or the cause is ours. */
export const OWN_REASONS = {
  scheduled: () => 'The bot is scheduled and has not started yet.',
  // No durations while the meeting goes on: they would be stale at once, and rewrite the item at each event.
  joining: () => 'The bot is trying to join.',
  in_waiting_room: () => 'The bot is waiting in the lobby.',
  in_meeting: () => 'The bot is in the meeting, recording.',
  meeting_ended: (f) => `The bot recorded the meeting${recordedFor(f)}, until it ended.`,
  left_meeting: (f) => `The bot recorded${recordedFor(f)} and left the meeting.`,
  removed_from_meeting: (f) => `The bot recorded${recordedFor(f)} and was removed from the meeting.`,
  ended_before_admitted: (f) => `The bot waited to be admitted${waitedFor(f)}; the meeting ended first.`,
  left_before_admitted: (f) => `The bot was asked to leave while it waited to be admitted${waitedFor(f)}.`,
  could_not_join: () => 'The bot could not join the meeting; the service gave no reason.',
  fatal_error: () => 'The bot failed; the service gave no reason.',
  recording_permission_denied: (f) => `The bot recorded${recordedFor(f)} until it was denied permission to record.`,
  no_join_reported: () => 'The meeting is over and the bot never reported joining it: nothing was recorded.',
  schedule_cancelled: () => 'The meeting was cancelled before the bot started.',
  launch_refused: () => 'The service refused to create the bot after every retry.',
} as const satisfies Record<string, Sentence>;
export type OwnReason = keyof typeof OWN_REASONS;

export type KnownReason = ServiceReason | OwnReason;

const SENTENCES: Record<string, Sentence> = { ...SERVICE_REASONS, ...OWN_REASONS };

/** Every reason this release knows, for documentation and filters. */
export const KNOWN_REASONS = Object.keys(SENTENCES) as KnownReason[];

/**
 * Sub-types of `could_not_join_meeting` that say the service (or its Zoom setup) failed, not that the meeting
 * turned the bot away: the meeting is `failed`, not `missed`.
 */
export const SERVICE_FAILURE_REASONS: readonly string[] = [
  'zoom_authorization_failed',
  'zoom_meeting_status_failed',
  'unpublished_zoom_app',
  'zoom_sdk_internal_error',
  'ui_element_not_found',
];

/** The sentence for a reason; one no release knew yet keeps its code in a generic sentence. */
export function outcomeSentence(reason: string, facts: SentenceFacts = {}): string {
  const sentence = Object.hasOwn(SENTENCES, reason) ? SENTENCES[reason] : undefined;
  return sentence === undefined ? `The service reported "${reason}".` : sentence(facts);
}
