/**
 * The read API as its callers see it: routes, parameters and answers. The handler
 * answers with these shapes, and the CLI, the MCP server and the tests parse with
 * them; a change here is a change of the public API.
 */
import * as z from 'zod/mini';
import { apiErrorBody } from '../api-error';
import { OUTCOME_STATUSES } from '../outcome/outcome-reasons';
import { utcTimestampSchema } from '../text/utc-timestamp';

export const READ_API_ROUTES = {
  listMeetings: 'GET /meetings',
  getMeeting: 'GET /meetings/{bot_id}',
  transcript: 'GET /meetings/{bot_id}/transcript',
  participants: 'GET /meetings/{bot_id}/participants',
  recording: 'GET /meetings/{bot_id}/recording',
  meetingEvents: 'GET /meetings/{bot_id}/events',
  objectEvents: 'GET /events',
} as const;

export const TRANSCRIPT_FORMATS = ['json', 'text', 'vtt', 'srt'] as const;
export type TranscriptFormat = (typeof TRANSCRIPT_FORMATS)[number];

/** Content types of the transcript formats. */
export const TRANSCRIPT_CONTENT_TYPES: Record<TranscriptFormat, string> = {
  json: 'application/json',
  text: 'text/plain; charset=utf-8',
  vtt: 'text/vtt; charset=utf-8',
  srt: 'application/x-subrip; charset=utf-8',
};

/** Page sizes: `limit` defaults to DEFAULT_PAGE_SIZE and may not exceed MAX_PAGE_SIZE. */
export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 200;

/** Every error answer (400, 404, 500): a code and a reason a person can act on (the shape of every route). */
export const errorBody = apiErrorBody;

/** Every time answered: ISO 8601 UTC with milliseconds (lambdas/core/text/utc-timestamp.ts). */
const time = utcTimestampSchema;

export const recordingSummary = z.object({
  status: z.enum(['archived', 'none']),
  bytes: z.nullable(z.int()),
  sha256: z.nullable(z.string()),
  content_type: z.nullable(z.string()),
});

/** How the meeting went (lambdas/core/outcome): docs/read-api.md has every status and reason. */
export const outcomeView = z.object({
  status: z.enum(OUTCOME_STATUSES),
  /** The service's own sub-type where it gave one (an unknown one kept as is), else ours. */
  reason: z.string(),
  sentence: z.string(),
});

/** One state change of the meeting (webhook, or the reconciler's reading of the bot's events). */
export const timelineEntry = z.object({
  at: time,
  event_type: z.string(),
  event_sub_type: z.nullable(z.string()),
  /** Null for an event known only from the service's events list, which carries no states. */
  old_state: z.nullable(z.string()),
  new_state: z.nullable(z.string()),
});
export type TimelineEntry = z.infer<typeof timelineEntry>;

/** One meeting as listed and as shown. */
export const meetingView = z.object({
  bot_id: z.string(),
  /** The bot's state (`joining`, `joined_recording`, `ended`…), or null when nothing is known yet. */
  state: z.nullable(z.string()),
  /** When the meeting entered that state, or null. */
  state_at: z.nullable(time),
  /** The summary text, or null when none arrived. */
  summary: z.nullable(z.string()),
  utterance_count: z.int(),
  participant_count: z.int(),
  schedule_id: z.nullable(z.string()),
  meeting_url: z.nullable(z.string()),
  scheduled_join_at: z.nullable(time),
  archived_at: z.nullable(time),
  /** Present once the meeting is archived. */
  recording: z.nullable(recordingSummary),
  /** Null only for a meeting heard of before outcomes were kept, until its next state change. */
  outcome: z.nullable(outcomeView),
  /** Its state changes, oldest first: what the outcome was derived from. */
  timeline: z.array(timelineEntry),
});
export type MeetingView = z.infer<typeof meetingView>;

/** A list entry: the meeting without its counts and summary (those cost a read each). */
export const meetingListEntry = z.pick(meetingView, {
  bot_id: true,
  state: true,
  state_at: true,
  schedule_id: true,
  meeting_url: true,
  scheduled_join_at: true,
  archived_at: true,
  outcome: true,
});
export type MeetingListEntry = z.infer<typeof meetingListEntry>;

export const meetingList = z.object({
  meetings: z.array(meetingListEntry),
  /** Pass as `cursor` for the next page; null on the last page. */
  next_cursor: z.nullable(z.string()),
});

export const utteranceView = z.object({
  speaker_name: z.string(),
  speaker_uuid: z.string(),
  /** When the utterance began, epoch ms (the service's `timestamp_ms`). */
  timestamp_ms: z.number(),
  duration_ms: z.nullable(z.number()),
  text: z.string(),
  /** Milliseconds from the recording start (or, when that is unknown, from the first utterance). */
  offset_ms: z.number(),
});
export type UtteranceView = z.infer<typeof utteranceView>;

export const transcriptJson = z.object({
  bot_id: z.string(),
  /** What offsets count from: the recording start when known, else the first utterance. */
  offsets_from: z.enum(['recording_start', 'first_utterance']),
  utterances: z.array(utteranceView),
});

export const participantView = z.object({
  participant_uuid: z.string(),
  name: z.nullable(z.string()),
  user_uuid: z.nullable(z.string()),
  is_host: z.boolean(),
  joined_at: z.nullable(time),
  left_at: z.nullable(time),
});
export const participantList = z.object({ bot_id: z.string(), participants: z.array(participantView) });

export const recordingLink = z.object({
  url: z.string(),
  expires_at: time,
  bytes: z.int(),
  sha256: z.string(),
  content_type: z.string(),
});

export const DELIVERY_OUTCOMES = ['applied', 'duplicate', 'failed', 'pending'] as const;

/** One delivery of a webhook: the first of its key is applied, failed or pending; a later one is a duplicate. */
export const deliveryView = z.object({
  idempotency_key: z.string(),
  trigger: z.string(),
  received_at: time,
  outcome: z.enum(DELIVERY_OUTCOMES),
  /** Why its last attempt failed, when the outcome is `failed`. */
  failure_reason: z.optional(z.string()),
});
export const deliveryLog = z.object({
  events: z.array(deliveryView),
  next_cursor: z.nullable(z.string()),
});
