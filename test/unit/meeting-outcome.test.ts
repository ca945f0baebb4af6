import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  deriveMeetingOutcome,
  deriveScheduleOutcome,
  type OutcomeEvent,
} from '../../lambdas/core/outcome/meeting-outcome';
import { OTHER_REASON } from '../../lambdas/core/outcome/outcome-metric';
import {
  KNOWN_REASONS,
  OUTCOME_STATUSES,
  outcomeSentence,
  SERVICE_REASONS,
} from '../../lambdas/core/outcome/outcome-reasons';

const START = Date.parse('2026-11-20T10:00:00Z');

/** One state change `minutes` after START: [type, sub-type, old state, new state]. */
type Step = [minutes: number, type: string, subType: string | null, from: string, to: string];

const events = (steps: Step[]): OutcomeEvent[] =>
  steps.map(([minutes, type, subType, from, to]) => ({
    event_type: type,
    event_sub_type: subType,
    old_state: from,
    new_state: to,
    created_at: new Date(START + minutes * 60_000).toISOString(),
  }));

/** The service's events list (`GET bots/{id}`): type, sub-type and time, no states. */
const serviceEvents = (steps: Step[]): OutcomeEvent[] =>
  events(steps).map(({ event_type, event_sub_type, created_at }) => ({ event_type, event_sub_type, created_at }));

// The paths of the service's transitions (Attendee's VALID_TRANSITIONS), as prefixes to build on.
const launched: Step[] = [[0, 'staged', null, 'scheduled', 'staged']];
const joining: Step[] = [...launched, [1, 'join_requested', null, 'staged', 'joining']];
const inLobby: Step[] = [...joining, [2, 'put_in_waiting_room', null, 'joining', 'waiting_room']];
const inMeeting: Step[] = [...joining, [3, 'joined_meeting', null, 'joining', 'joined_recording']];
const inZoomMeeting: Step[] = [
  ...inLobby,
  [4, 'joined_meeting', null, 'waiting_room', 'joined_not_recording'],
  [5, 'recording_permission_granted', null, 'joined_not_recording', 'joined_recording'],
];
const wrapUp = (at: number, from: string): Step[] => [[at, 'post_processing_completed', null, from, 'ended']];
const leftAt = (at: number, subType: string | null): Step[] => [
  [at, 'leave_requested', subType, 'joined_recording', 'leaving'],
  [at + 1, 'left_meeting', null, 'leaving', 'post_processing'],
  ...wrapUp(at + 2, 'post_processing'),
];
const couldNotJoin = (from: Step[], state: string, at: number, subType: string | null): Step[] => [
  ...from,
  [at, 'could_not_join_meeting', subType, state, 'fatal_error'],
];
const fatal = (from: Step[], state: string, at: number, subType: string | null): Step[] => [
  ...from,
  [at, 'fatal_error', subType, state, 'fatal_error'],
];

interface Case {
  name: string;
  events: OutcomeEvent[];
  /** What the outcome must match (a sentence may be a matcher). */
  want: { status: string; reason: string; sentence?: unknown };
}

const MISSED_AT_THE_DOOR = [
  'meeting_not_started_waiting_for_host',
  'request_to_join_denied',
  'meeting_not_found',
  'login_required',
  'bot_login_attempt_failed',
  'unable_to_connect_to_meeting',
  'blocked_by_captcha',
  'zoom_app_cannot_join_anonymously',
  'authorized_user_not_in_meeting_timeout_exceeded',
  'webinar_attendee_needs_panelist_promotion',
];
const SERVICE_FAILED_AT_THE_DOOR = [
  'zoom_authorization_failed',
  'zoom_meeting_status_failed',
  'unpublished_zoom_app',
  'zoom_sdk_internal_error',
  'ui_element_not_found',
];
const FATAL = [
  'process_terminated',
  'heartbeat_timeout',
  'attendee_internal_error',
  'global_runtime_timeout',
  'rtmp_connection_failed',
  'ui_element_not_found',
];
const LEAVE = [
  'user_requested',
  'auto_leave_silence',
  'auto_leave_only_participant_in_meeting',
  'auto_leave_max_uptime_exceeded',
  'auto_leave_could_not_enable_closed_captions',
];
const PERMISSION_DENIED = ['host_denied_permission', 'request_timed_out', 'host_client_cannot_grant_permission'];

const CASES: Case[] = [
  { name: 'nothing heard yet', events: [], want: { status: 'scheduled', reason: 'scheduled' } },
  { name: 'staged', events: events(launched), want: { status: 'scheduled', reason: 'scheduled' } },
  { name: 'joining', events: events(joining), want: { status: 'in_progress', reason: 'joining' } },
  {
    name: 'in the lobby',
    events: events(inLobby),
    want: { status: 'in_progress', reason: 'in_waiting_room', sentence: 'The bot is waiting in the lobby.' },
  },
  { name: 'in the meeting', events: events(inMeeting), want: { status: 'in_progress', reason: 'in_meeting' } },
  {
    name: 'recorded until the meeting ended',
    events: events([
      ...inMeeting,
      [48, 'meeting_ended', null, 'joined_recording', 'post_processing'],
      ...wrapUp(50, 'post_processing'),
    ]),
    want: {
      status: 'recorded',
      reason: 'meeting_ended',
      sentence: 'The bot recorded the meeting for 45 min, until it ended.',
    },
  },
  {
    name: 'recorded in Zoom after the lobby and a permission grant',
    events: events([
      ...inZoomMeeting,
      [64, 'meeting_ended', null, 'joined_recording', 'post_processing'],
      ...wrapUp(65, 'post_processing'),
    ]),
    want: {
      status: 'recorded',
      reason: 'meeting_ended',
      sentence: 'The bot recorded the meeting for 1 h, until it ended.',
    },
  },
  ...LEAVE.map((subType) => ({
    name: `recorded, then left: ${subType}`,
    events: events([...inMeeting, ...leftAt(33, subType)]),
    want: {
      status: 'recorded',
      reason: subType,
      sentence: expect.stringMatching(/^The bot recorded for 31 min and left /),
    },
  })),
  {
    name: 'recorded, then left without a reason',
    events: events([...inMeeting, ...leftAt(33, null)]),
    want: { status: 'recorded', reason: 'left_meeting' },
  },
  {
    name: 'asked to leave while still in the lobby',
    events: events([
      ...inLobby,
      [9, 'leave_requested', 'user_requested', 'waiting_room', 'leaving'],
      [10, 'left_meeting', null, 'leaving', 'post_processing'],
      ...wrapUp(11, 'post_processing'),
    ]),
    want: {
      status: 'missed',
      reason: 'user_requested',
      sentence: 'The bot waited to be admitted for 8 min, then left when asked to.',
    },
  },
  {
    name: 'the meeting ended while the bot was joining (Teams, Meet: no lobby state)',
    events: events([
      ...joining,
      [16, 'meeting_ended', null, 'joining', 'post_processing'],
      ...wrapUp(17, 'post_processing'),
    ]),
    want: {
      status: 'missed',
      reason: 'ended_before_admitted',
      sentence: 'The bot waited to be admitted for 15 min; the meeting ended first.',
    },
  },
  {
    name: 'the meeting ended while the bot was in the lobby (Zoom)',
    events: events([
      ...inLobby,
      [31, 'meeting_ended', null, 'waiting_room', 'post_processing'],
      ...wrapUp(32, 'post_processing'),
    ]),
    want: { status: 'missed', reason: 'ended_before_admitted' },
  },
  {
    name: 'lobby timeout',
    events: events(couldNotJoin(inLobby, 'waiting_room', 16, 'waiting_room_timeout_exceeded')),
    want: {
      status: 'missed',
      reason: 'waiting_room_timeout_exceeded',
      sentence: 'The bot waited in the lobby for 15 min and was never admitted.',
    },
  },
  ...MISSED_AT_THE_DOOR.flatMap((subType) =>
    (['joining', 'waiting_room'] as const).map((state) => ({
      name: `turned away from ${state}: ${subType}`,
      events: events(couldNotJoin(state === 'joining' ? joining : inLobby, state, 6, subType)),
      want: { status: 'missed' as const, reason: subType, sentence: outcomeSentence(subType, { waited: '5 min' }) },
    })),
  ),
  ...SERVICE_FAILED_AT_THE_DOOR.map((subType) => ({
    name: `the service failed at the door: ${subType}`,
    events: events(couldNotJoin(joining, 'joining', 2, subType)),
    want: { status: 'failed' as const, reason: subType },
  })),
  {
    name: 'could not join, no reason given',
    events: events(couldNotJoin(joining, 'joining', 2, null)),
    want: { status: 'missed', reason: 'could_not_join' },
  },
  ...(['bot_not_launched', 'out_of_credits'] as const).flatMap((subType) => [
    {
      name: `fatal error from scheduled: ${subType}`,
      events: events(fatal([], 'scheduled', 0, subType)),
      want: { status: 'failed' as const, reason: subType },
    },
    {
      name: `fatal error from staged: ${subType}`,
      events: events(fatal(launched, 'staged', 1, subType)),
      want: { status: 'failed' as const, reason: subType },
    },
  ]),
  ...FATAL.flatMap((subType) => [
    {
      name: `fatal error before joining: ${subType}`,
      events: events(fatal(joining, 'joining', 2, subType)),
      want: { status: 'failed' as const, reason: subType },
    },
    {
      name: `fatal error after joining: ${subType}`,
      events: events(fatal(inMeeting, 'joined_recording', 23, subType)),
      want: { status: 'partial' as const, reason: subType },
    },
  ]),
  ...PERMISSION_DENIED.map((subType) => ({
    name: `permission to record denied part way: ${subType}`,
    events: events([
      ...inZoomMeeting,
      [20, 'recording_permission_denied', subType, 'joined_recording', 'joined_recording_permission_denied'],
      [30, 'meeting_ended', null, 'joined_recording_permission_denied', 'post_processing'],
      ...wrapUp(31, 'post_processing'),
    ]),
    want: { status: 'partial' as const, reason: subType },
  })),
  {
    name: 'permission denied, then granted: the recording went on',
    events: events([
      ...inZoomMeeting,
      [
        20,
        'recording_permission_denied',
        'host_denied_permission',
        'joined_recording',
        'joined_recording_permission_denied',
      ],
      [21, 'recording_permission_granted', null, 'joined_recording_permission_denied', 'joined_recording'],
      [30, 'meeting_ended', null, 'joined_recording', 'post_processing'],
    ]),
    want: { status: 'recorded', reason: 'meeting_ended' },
  },
  {
    name: 'removed from the meeting (Teams names who)',
    events: [
      ...events([...inMeeting, [20, 'meeting_ended', null, 'joined_recording', 'post_processing']]).map((event) =>
        event.event_type === 'meeting_ended' ? { ...event, event_metadata: { remover_name: 'Ada' } } : event,
      ),
    ],
    want: { status: 'partial', reason: 'removed_from_meeting' },
  },
  {
    name: 'data deleted after the recording: still recorded',
    events: events([
      ...inMeeting,
      ...leftAt(33, 'auto_leave_silence'),
      [90, 'data_deleted', null, 'ended', 'data_deleted'],
    ]),
    want: { status: 'recorded', reason: 'auto_leave_silence' },
  },
  {
    name: 'ended, and no join ever reported (the earlier webhooks lost)',
    events: events(wrapUp(50, 'post_processing')),
    want: { status: 'missed', reason: 'no_join_reported' },
  },
  {
    name: 'the reconciler saw it ended after a heard join',
    events: events([...inMeeting, [50, 'reconciled', null, 'joined_recording', 'ended']]),
    want: { status: 'recorded', reason: 'meeting_ended' },
  },
  {
    name: "the service's events list alone (every webhook lost): recorded",
    events: serviceEvents([...inMeeting, [48, 'meeting_ended', null, '', ''], ...wrapUp(50, '')]),
    want: {
      status: 'recorded',
      reason: 'meeting_ended',
      sentence: 'The bot recorded the meeting for 45 min, until it ended.',
    },
  },
  {
    name: "the service's events list alone: the meeting ended in the lobby",
    events: serviceEvents([...joining, [16, 'meeting_ended', null, '', ''], ...wrapUp(17, '')]),
    want: { status: 'missed', reason: 'ended_before_admitted' },
  },
  {
    name: 'an event heard twice, by webhook and from the events list',
    events: [
      ...events([
        ...inLobby,
        [16, 'could_not_join_meeting', 'waiting_room_timeout_exceeded', 'waiting_room', 'fatal_error'],
      ]),
      ...serviceEvents([[16, 'could_not_join_meeting', 'waiting_room_timeout_exceeded', '', '']]),
    ],
    want: { status: 'missed', reason: 'waiting_room_timeout_exceeded' },
  },
  {
    name: 'an unknown sub-type keeps its code',
    events: events(couldNotJoin(joining, 'joining', 2, 'brand_new_reason')),
    want: { status: 'missed', reason: 'brand_new_reason', sentence: 'The service reported "brand_new_reason".' },
  },
  {
    name: 'an unknown sub-type of a fatal error after joining',
    events: events(fatal(inMeeting, 'joined_recording', 10, 'brand_new_crash')),
    want: { status: 'partial', reason: 'brand_new_crash' },
  },
];

describe('deriveMeetingOutcome', () => {
  it.each(CASES)('$name', ({ events: heard, want }) => {
    expect(deriveMeetingOutcome(heard)).toMatchObject(want);
  });

  it('covers every sub-type the service documents', () => {
    const covered = new Set(CASES.flatMap((c) => c.events.map((event) => event.event_sub_type)));
    expect(Object.keys(SERVICE_REASONS).filter((subType) => !covered.has(subType))).toEqual([]);
  });

  it('gives every known reason a sentence of its own', () => {
    for (const reason of KNOWN_REASONS) expect(outcomeSentence(reason)).not.toContain(`"${reason}"`);
  });

  it('gives the same outcome whatever order the events arrive in, repeats included', () => {
    const withEvents = CASES.filter((c) => c.events.length > 1);
    fc.assert(
      fc.property(
        fc
          .constantFrom(...withEvents)
          .chain((c) =>
            fc.tuple(
              fc.constant(c),
              fc.shuffledSubarray(c.events, { minLength: c.events.length, maxLength: c.events.length }),
              fc.subarray(c.events),
            ),
          ),
        ([c, shuffled, repeats]) => {
          expect(deriveMeetingOutcome([...shuffled, ...repeats])).toEqual(deriveMeetingOutcome(c.events));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('says what we know besides the events: cancelled, launch refused', () => {
    expect(deriveMeetingOutcome([], { cancelled: true })).toMatchObject({
      status: 'cancelled',
      reason: 'schedule_cancelled',
    });
    expect(deriveMeetingOutcome([], { launchRefused: true })).toMatchObject({
      status: 'failed',
      reason: 'launch_refused',
    });
    // The events win once the bot ran: a cancel cannot undo a recording.
    const recorded = events([...inMeeting, ...leftAt(33, 'user_requested')]);
    expect(deriveMeetingOutcome(recorded, { cancelled: true })).toMatchObject({ status: 'recorded' });
  });

  it('derives the outcome of a schedule that never got a bot', () => {
    expect(deriveScheduleOutcome({ status: 'scheduled' })).toMatchObject({ status: 'scheduled' });
    expect(deriveScheduleOutcome({ status: 'launching' })).toMatchObject({ status: 'scheduled' });
    expect(deriveScheduleOutcome({ status: 'cancelled' })).toMatchObject({ status: 'cancelled' });
    expect(deriveScheduleOutcome({ status: 'failed' })).toMatchObject({ status: 'failed', reason: 'launch_refused' });
  });
});

describe('the outcome contract in docs/read-api.md', () => {
  it('lists every status and every reason', () => {
    const doc = readFileSync(resolve(import.meta.dirname, '../../docs/read-api.md'), 'utf8');
    const listed = (name: string) => new RegExp(`^\\| \`${name}\` +\\|`, 'm').test(doc);
    expect(OUTCOME_STATUSES.filter((status) => !listed(status))).toEqual([]);
    expect(KNOWN_REASONS.filter((reason) => !listed(reason))).toEqual([]);
  });
});

describe('what operators do about outcomes, in docs/operating.md', () => {
  it('names every status and every reason (and the metric-only `other`) in its missed-meetings section', () => {
    const doc = readFileSync(resolve(import.meta.dirname, '../../docs/operating.md'), 'utf8');
    const section = doc.slice(
      doc.indexOf('## Missed and failed meetings'),
      doc.indexOf('## Rotating the signing secret'),
    );
    const named = (code: string) => section.includes(`\`${code}\``);
    expect(section.length).toBeGreaterThan(0);
    expect([...OUTCOME_STATUSES, ...KNOWN_REASONS, OTHER_REASON].filter((code) => !named(code))).toEqual([]);
  });
});
