/**
 * The webhook contract: everything we assume about what the meeting assistant
 * service sends us (signature, envelope, triggers, states, data shapes). What we
 * send it is in rest-contract.ts; the two together are all we assume about it.
 *
 * The vendor's public doc names the envelope, the header and the auth scheme but
 * leaves data shapes, states and the signature algorithm out; they match the
 * open-source Attendee meeting-bot API, so we assume Attendee's shapes, as read in
 * attendee-labs/attendee (bots/serializers.py, bots/webhook_utils.py, bots/models.py).
 * If the vendor's real shape differs, this is the file that changes.
 *
 * Validation is lenient on purpose: unknown fields pass through and an unknown
 * trigger is a valid envelope, because rejecting an authentic event would lose it.
 */
import { createHash } from 'node:crypto';
import * as z from 'zod/mini';
import { describeIssues } from '../validation';

/** How webhook messages are signed. */
export const WEBHOOK_SIGNATURE = {
  /** Header carrying the signature (HTTP APIs deliver header names in lower case). */
  header: 'x-webhook-signature',
  /** HMAC digest algorithm. */
  hmacAlgorithm: 'sha256',
  /** The signing secret is base64 text; its decoded bytes are the HMAC key. */
  secretEncoding: 'base64',
  /** Encoding of the digest in the header (padded base64). */
  digestEncoding: 'base64',
  /** Length of the digest in bytes. */
  digestBytes: 32,
  /**
   * The signed bytes are the envelope re-serialized as canonical JSON: keys sorted
   * by code point, no whitespace, non-ASCII as raw UTF-8, numbers as sent.
   */
  signedForm: 'sorted-compact-json',
} as const;

/** The service answers a webhook delivery as failed unless it gets a 2xx within this time. */
export const WEBHOOK_RESPONSE_DEADLINE_MS = 10_000;

export const BOT_ID_PREFIX = 'bot_';

export const KNOWN_TRIGGERS = [
  'bot.state_change',
  'transcript.update',
  'participant_events.join_leave',
  'summary.update',
] as const;
export type KnownTrigger = (typeof KNOWN_TRIGGERS)[number];

export function isKnownTrigger(trigger: string): trigger is KnownTrigger {
  return (KNOWN_TRIGGERS as readonly string[]).includes(trigger);
}

export const BOT_STATES = [
  'ready',
  'scheduled',
  'staged',
  'joining',
  'waiting_room',
  'joined_not_recording',
  'joined_recording',
  'joined_recording_paused',
  'joined_recording_permission_denied',
  'joining_breakout_room',
  'leaving_breakout_room',
  'leaving',
  'post_processing',
  'ended',
  'fatal_error',
  'data_deleted',
  // App sessions (Attendee's app_session envelopes) move through these.
  'connecting',
  'connected',
  'disconnecting',
] as const;
export type BotState = (typeof BOT_STATES)[number];

/** States only a bot inside the meeting reaches (recording paused and breakout rooms included). */
export const JOINED_BOT_STATES: readonly BotState[] = [
  'joined_not_recording',
  'joined_recording',
  'joined_recording_paused',
  'joined_recording_permission_denied',
  'joining_breakout_room',
  'leaving_breakout_room',
];

/** The state a bot reaches once the service deleted its recording, transcript and participants. */
export const DATA_DELETED_STATE: BotState = 'data_deleted';
export const FINAL_BOT_STATES: readonly BotState[] = ['ended', 'fatal_error', DATA_DELETED_STATE];

export const jsonObject = z.record(z.string(), z.unknown());

/** The message envelope every webhook carries. */
const nonEmptyString = z.string().check(z.minLength(1, 'must be a non-empty string'));

export const webhookEnvelopeSchema = z.looseObject({
  idempotency_key: nonEmptyString,
  bot_id: z.string().check(
    z.refine((id) => id.startsWith(BOT_ID_PREFIX) && id.length > BOT_ID_PREFIX.length, {
      message: `must start with "${BOT_ID_PREFIX}" followed by an identifier`,
    }),
  ),
  // The doc says "an object"; a bot created without metadata may carry null.
  bot_metadata: z.nullable(jsonObject),
  trigger: nonEmptyString,
  data: jsonObject,
});
export type WebhookEnvelope = z.infer<typeof webhookEnvelopeSchema>;

/** ISO 8601 timestamp with a zone, e.g. `2026-01-02T03:04:05.678901+00:00` or `...Z`. */
const isoTimestamp = z.iso.datetime({ offset: true, local: false });

const millis = z.int().check(z.nonnegative());

export const stateChangeDataSchema = z.looseObject({
  event_type: z.string(),
  event_sub_type: z.nullish(z.string()),
  event_metadata: z.nullish(jsonObject),
  old_state: z.string(),
  new_state: z.string(),
  created_at: isoTimestamp,
});

export const transcriptUpdateDataSchema = z.looseObject({
  speaker_name: z.nullish(z.string()),
  speaker_uuid: z.string(),
  speaker_user_uuid: z.nullish(z.string()),
  speaker_is_host: z.nullish(z.boolean()),
  timestamp_ms: millis,
  duration_ms: z.nullish(z.number().check(z.nonnegative())),
  // null when the utterance could not be transcribed; stored as an empty utterance.
  transcription: z.nullable(z.looseObject({ transcript: z.nullish(z.string()) })),
});

export const participantEventDataSchema = z.looseObject({
  id: z.string(),
  participant_name: z.nullish(z.string()),
  participant_uuid: z.string(),
  participant_user_uuid: z.nullish(z.string()),
  participant_is_host: z.nullish(z.boolean()),
  event_type: z.string(),
  event_data: z.nullish(jsonObject),
  timestamp_ms: millis,
});

/** The vendor's own trigger; the summary's field name is unknown, `summary` is our guess. */
export const summaryUpdateDataSchema = z.looseObject({
  summary: z.optional(z.string()),
});

/** Where the summary text may be: the vendor does not name the field, so the likely names in order. */
export const SUMMARY_TEXT_FIELDS = ['summary', 'text', 'content', 'summary_text'] as const;

/** The field that holds the summary's text, if any does. */
export function summaryTextField(data: Record<string, unknown>): string | undefined {
  return SUMMARY_TEXT_FIELDS.find((field) => typeof data[field] === 'string');
}

export const triggerDataSchemas = {
  'bot.state_change': stateChangeDataSchema,
  'transcript.update': transcriptUpdateDataSchema,
  'participant_events.join_leave': participantEventDataSchema,
  'summary.update': summaryUpdateDataSchema,
} as const satisfies Record<KnownTrigger, z.ZodMiniType>;

export type StateChangeData = z.infer<typeof stateChangeDataSchema>;
export type TranscriptUpdateData = z.infer<typeof transcriptUpdateDataSchema>;
export type ParticipantEventData = z.infer<typeof participantEventDataSchema>;
export type SummaryUpdateData = z.infer<typeof summaryUpdateDataSchema>;

/** A validated webhook, discriminated by trigger; an unknown trigger keeps its raw data. */
export type TypedWebhook =
  | { trigger: 'bot.state_change'; envelope: WebhookEnvelope; data: StateChangeData }
  | { trigger: 'transcript.update'; envelope: WebhookEnvelope; data: TranscriptUpdateData }
  | { trigger: 'participant_events.join_leave'; envelope: WebhookEnvelope; data: ParticipantEventData }
  | { trigger: 'summary.update'; envelope: WebhookEnvelope; data: SummaryUpdateData }
  | { trigger: 'unknown'; envelope: WebhookEnvelope; data: Record<string, unknown> };

export type ContractResult<T> = { ok: true; value: T } | { ok: false; problems: string[] };

/** Validates an envelope; problems name the field, e.g. `bot_id: must start with "bot_"`. */
export function parseWebhookEnvelope(value: unknown): ContractResult<WebhookEnvelope> {
  const result = webhookEnvelopeSchema.safeParse(value);
  return result.success ? { ok: true, value: result.data } : { ok: false, problems: describeIssues(result.error) };
}

/** Validates the `data` of a known trigger; an unknown trigger passes with its data as is. */
export function parseTriggerData(envelope: WebhookEnvelope): ContractResult<TypedWebhook> {
  const { trigger } = envelope;
  if (!isKnownTrigger(trigger)) {
    return { ok: true, value: { trigger: 'unknown', envelope, data: envelope.data } };
  }
  const result = triggerDataSchemas[trigger].safeParse(envelope.data);
  if (!result.success) {
    return { ok: false, problems: describeIssues(result.error).map((p) => `data.${p}`) };
  }
  return { ok: true, value: { trigger, envelope, data: result.data } as TypedWebhook };
}

/**
 * The service signs webhooks about other objects alike (bots/webhook_utils.py):
 * app sessions, calendars and Zoom OAuth connections, each named by its own id
 * field and without a `bot_id`. They are kept under the object they relate to.
 */
export const RELATED_OBJECT_ID_FIELDS = {
  app_session: 'app_session_id',
  calendar: 'calendar_id',
  zoom_oauth_connection: 'zoom_oauth_connection_id',
} as const;

/** How events without a bot are counted (the trigger dimension of EventApplied and EventDuplicate). */
export const UNBOUND_EVENTS = 'unbound';

/** A signed webhook that is not a bot's envelope: what it is about, its key and its trigger, as far as it says. */
export interface UnboundWebhook {
  /** `calendar:<id>`, `app_session:<id>`, `zoom_oauth_connection:<id>`, or `unknown`. */
  relatedObject: string;
  /** Its `idempotency_key`, or the body's SHA-256 when it has none (a resend of the same body is then one event). */
  idempotencyKey: string;
  trigger: string;
}

export function describeUnboundWebhook(parsed: unknown, rawBody: string): UnboundWebhook {
  const fields =
    typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
  const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined);
  const related = Object.entries(RELATED_OBJECT_ID_FIELDS).find(([, field]) => text(fields[field]) !== undefined);
  return {
    relatedObject: related === undefined ? 'unknown' : `${related[0]}:${text(fields[related[1]])}`,
    idempotencyKey:
      text(fields.idempotency_key) ?? `sha256:${createHash('sha256').update(rawBody, 'utf8').digest('hex')}`,
    trigger: text(fields.trigger) ?? 'unknown',
  };
}
