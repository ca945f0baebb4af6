/**
 * The load model: what one meeting sends, and how meetings aligned on the hour
 * bunch up. The per-webhook costs come from a run of the real code (measure.ts);
 * only the shape of a meeting is stated here.
 */
import { participantJoinLeave, stateChange, summaryUpdate, transcriptUpdate } from '../local/simulator/payloads';
import type { PyValue } from '../local/simulator/python-json';
export const WEBHOOK_KINDS = [
  'transcript.update',
  'participant_events.join_leave',
  'bot.state_change',
  'summary.update',
] as const;
export type WebhookKind = (typeof WEBHOOK_KINDS)[number];

/** Webhooks one meeting of an hour sends, by kind. */
export function meetingWebhooks(utterancesPerHour: number): Record<WebhookKind, number> {
  return {
    'transcript.update': utterancesPerHour,
    // About ten people joining and leaving.
    'participant_events.join_leave': 20,
    // scheduled → ... → ended, with a recording pause or two.
    'bot.state_change': 10,
    'summary.update': 1,
  };
}

export const DEFAULT_UTTERANCES_PER_HOUR = 600;

/** `npm run load`'s defaults: meetings, transcript webhooks per meeting, webhooks in flight. */
export const LOAD_DEFAULTS = { meetings: 32, utterances: DEFAULT_UTTERANCES_PER_HOUR, concurrency: 32 } as const;

/** The webhooks `npm run load` delivers a second time, after the rest: one in ten, by position. */
export const isRedeliveredInLoad = (position: number): boolean => position % 10 === 3;

/**
 * Meetings aligned on the hour end and start within this window: the ending ones
 * send their last state changes, leaves and summaries, the starting ones their
 * joins and first states, while transcripts keep flowing ("2–3 minutes").
 */
export const ALIGNED_WINDOW_SECONDS = 150;

/**
 * Domain events a meeting publishes (lambdas/core/events/domain-events.ts): one
 * meeting.state_changed per state change, one summary.ready per summary, and
 * meeting.ended, meeting.archived and schedule.launched once each.
 */
export const meetingDomainEvents = (perMeeting: Record<WebhookKind, number>): number =>
  perMeeting['bot.state_change'] + perMeeting['summary.update'] + 3;

/** Events of a meeting that fall at its start or end (everything but its transcript). */
export const edgeWebhooks = (perMeeting: Record<WebhookKind, number>): number =>
  perMeeting['participant_events.join_leave'] + perMeeting['bot.state_change'] + perMeeting['summary.update'];

export interface WebhookRates {
  perMeetingHour: number;
  steadyPerSecond: number;
  peakPerSecond: number;
}

export function webhookRates(meetings: number, aligned: boolean, utterancesPerHour: number): WebhookRates {
  const perMeeting = meetingWebhooks(utterancesPerHour);
  const perMeetingHour = Object.values(perMeeting).reduce((a, b) => a + b, 0);
  const steadyPerSecond = (meetings * perMeetingHour) / 3600;
  // Aligned: the transcripts keep their pace while every meeting's edge events land in the window.
  const peakPerSecond = aligned
    ? (meetings * perMeeting['transcript.update']) / 3600 +
      (meetings * edgeWebhooks(perMeeting)) / ALIGNED_WINDOW_SECONDS
    : steadyPerSecond;
  return { perMeetingHour, steadyPerSecond, peakPerSecond };
}

/** States a meeting goes through, ten changes in all (two recording pauses). */
const MEETING_STATES = [
  'staged',
  'joining',
  'joined_not_recording',
  'joined_recording',
  'joined_recording_paused',
  'joined_recording',
  'joined_recording_paused',
  'joined_recording',
  'leaving',
  'post_processing',
  'ended',
];

/** About 1 KB of webhook body per utterance, as the load model assumes. */
export const UTTERANCE_TEXT =
  'We agreed to move the launch review to Thursday and to ask the platform team for the capacity figures. '
    .repeat(7)
    .slice(0, 700);

export interface MeetingWebhooks {
  /** Joins and the first states: what a meeting sends as it starts. */
  start: PyObject[];
  transcript: PyObject[];
  /** The last states, leaves and the summary. */
  end: PyObject[];
}

type PyObject = { [key: string]: PyValue };

/** The webhooks of one meeting of the load model, with stable idempotency keys. */
export function meetingWebhookPayloads(botId: string, utterances: number, startMicros: number): MeetingWebhooks {
  const perMeeting = meetingWebhooks(utterances);
  const people = perMeeting['participant_events.join_leave'] / 2;
  const key = (kind: string, i: number) => ({ idempotencyKey: `${botId}-${kind}-${i}` });
  const states = MEETING_STATES.slice(1).map((newState, i) =>
    stateChange(
      botId,
      {
        oldState: MEETING_STATES[i] as string,
        newState,
        eventType: newState,
        createdAtMicros: startMicros + i * 300_000_000,
      },
      key('state', i),
    ),
  );
  const participant = (i: number, eventType: 'join' | 'leave') =>
    participantJoinLeave(
      botId,
      {
        id: `${botId}-pe-${eventType}-${i}`,
        name: `Participant ${i}`,
        uuid: `${botId}-par-${i}`,
        isHost: i === 0,
        eventType,
        timestampMs: eventType === 'join' ? 1_000 * (i + 1) : 3_500_000 + 1_000 * i,
      },
      key(`participant-${eventType}`, i),
    );
  const transcript = Array.from({ length: utterances }, (_, i) =>
    transcriptUpdate(
      botId,
      {
        speakerName: `Participant ${i % people}`,
        speakerUuid: `${botId}-par-${i % people}`,
        isHost: i % people === 0,
        timestampMs: 60_000 + i * 5_000,
        durationMs: 4_200,
        text: `${i}: ${UTTERANCE_TEXT}`,
      },
      key('utterance', i),
    ),
  );
  return {
    start: [...states.slice(0, 3), ...Array.from({ length: people }, (_, i) => participant(i, 'join'))],
    transcript: [...transcript.slice(0, utterances), ...states.slice(3, 7)],
    end: [
      ...states.slice(7),
      ...Array.from({ length: people }, (_, i) => participant(i, 'leave')),
      summaryUpdate(botId, `Summary of ${botId}. ${UTTERANCE_TEXT}`, key('summary', 0)),
    ],
  };
}
