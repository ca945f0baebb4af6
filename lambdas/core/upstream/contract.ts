/**
 * Everything we assume about the meeting assistant service lives here.
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
] as const;
export type BotState = (typeof BOT_STATES)[number];

export const FINAL_BOT_STATES: readonly BotState[] = ['ended', 'fatal_error', 'data_deleted'];

const jsonObject = z.record(z.string(), z.unknown());

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

export function summaryText(data: Record<string, unknown>): string | undefined {
  for (const field of SUMMARY_TEXT_FIELDS) {
    const value = data[field];
    if (typeof value === 'string') return value;
  }
  return undefined;
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

// ---------------------------------------------------------------------------
// REST API: `{base_url}` ends in `/api/v1/`, every call carries `Authorization: Token <key>`.

export const API_PATH_SUFFIX = '/api/v1/';
export const AUTHORIZATION_SCHEME = 'Token';

export const API_PATHS = {
  bots: 'bots',
  bot: (id: string) => `bots/${encodeURIComponent(id)}`,
  transcript: (id: string) => `bots/${encodeURIComponent(id)}/transcript`,
  recording: (id: string) => `bots/${encodeURIComponent(id)}/recording`,
  participants: (id: string) => `bots/${encodeURIComponent(id)}/participants`,
} as const;

/**
 * The REST response shapes, built on first use: functions that never call the
 * service (the ingress) then carry none of them in their bundle.
 */
function buildRestSchemas() {
  const bot = z.looseObject({
    id: z.string().check(z.minLength(1)),
    state: z.optional(z.string()),
    metadata: z.optional(z.nullable(jsonObject)),
    meeting_url: z.optional(z.nullable(z.string())),
    join_at: z.optional(z.nullable(z.string())),
    events: z.optional(
      z.array(
        z.looseObject({
          type: z.optional(z.string()),
          sub_type: z.optional(z.nullable(z.string())),
          created_at: z.optional(z.string()),
        }),
      ),
    ),
  });
  /** `GET bots/{id}/recording`: a presigned link that expires after 30 minutes. */
  const recordingLink = z.looseObject({ url: z.url(), start_timestamp_ms: z.optional(z.nullable(z.number())) });
  const participant = z.looseObject({
    id: z.string(),
    name: z.optional(z.nullable(z.string())),
    uuid: z.string(),
    user_uuid: z.optional(z.nullable(z.string())),
    is_host: z.optional(z.nullable(z.boolean())),
  });
  /** One line of `GET bots/{id}/transcript` (the whole array, sorted by timestamp_ms): the fields of a transcript.update. */
  const transcript = z.array(transcriptUpdateDataSchema);
  return { bot, recordingLink, participant, transcript };
}

type RestSchemas = ReturnType<typeof buildRestSchemas>;
let restSchemasBuilt: RestSchemas | undefined;
export const restSchemas = (): RestSchemas => (restSchemasBuilt ??= buildRestSchemas());

export type Bot = z.infer<RestSchemas['bot']>;
export type RecordingLink = z.infer<RestSchemas['recordingLink']>;
export type Participant = z.infer<RestSchemas['participant']>;
export type TranscriptLine = TranscriptUpdateData;

/** Cursor paging: `next` is the URL of the next page, or null on the last. */
export function pageSchema<T extends z.ZodMiniType>(item: T) {
  return z.looseObject({
    next: z.nullable(z.string()),
    previous: z.optional(z.nullable(z.string())),
    results: z.array(item),
  });
}

/**
 * `POST bots` body; the service rejects unknown fields with 400. A `join_at`
 * must be in the future (else 400): the bot is then `scheduled` and the service
 * starts it itself, 5–10 minutes ahead of that time.
 */
export interface CreateBotRequest {
  meeting_url: string;
  bot_name: string;
  metadata?: BotMetadata;
  join_at?: string;
  deduplication_key?: string;
}

/** `PATCH bots/{id}`: join_at, meeting_url and bot_name only while `scheduled`; metadata at any time (replaced whole). */
export interface UpdateBotRequest {
  join_at?: string;
  meeting_url?: string;
  bot_name?: string;
  metadata?: BotMetadata;
}

/** The service keeps string metadata values only (anything else is a 400). */
export type BotMetadata = Record<string, string>;

export const BOT_METADATA_RULES = {
  /** Most characters of the metadata as the service's `json.dumps` writes it (see metadataJsonLength). */
  maxJsonLength: 1000,
} as const;

/**
 * Length of `json.dumps(metadata)` in the service (Python): `", "` between
 * members, `": "` after keys, and every character outside printable ASCII
 * escaped as `\uXXXX` per UTF-16 unit, so "é" counts 6 and an emoji 12.
 */
export function metadataJsonLength(metadata: BotMetadata): number {
  const quoted = (text: string) => {
    let length = 2;
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i);
      if (
        code === 0x22 ||
        code === 0x5c ||
        code === 0x0a ||
        code === 0x0d ||
        code === 0x09 ||
        code === 0x08 ||
        code === 0x0c
      )
        length += 2;
      else length += code < 0x20 || code > 0x7e ? 6 : 1;
    }
    return length;
  };
  const entries = Object.entries(metadata);
  if (entries.length === 0) return 2;
  return 2 + entries.reduce((sum, [key, value]) => sum + quoted(key) + 2 + quoted(value), 0) + 2 * (entries.length - 1);
}

/** A `POST bots` whose deduplication key a live bot holds is a 400 with this in its `error` (not the old bot). */
export const DEDUPLICATION_CONFLICT = 'Deduplication key already in use';

/** States after which a bot no longer holds its deduplication key (the service's post-meeting states). */
export const POST_MEETING_BOT_STATES: readonly BotState[] = FINAL_BOT_STATES;

/** The service starts a scheduled bot up to this long before its `join_at`: POST it earlier than that. */
export const SERVICE_STARTS_BOT_AHEAD_MS = 10 * 60_000;
