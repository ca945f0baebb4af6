/**
 * The REST contract: how we call the meeting assistant service's API and the
 * shapes and rules of its answers (Attendee's bots/bots_api_views.py and
 * bots/serializers.py). What it sends us is in webhook-contract.ts.
 */
import * as z from 'zod/mini';
import {
  type BotState,
  FINAL_BOT_STATES,
  jsonObject,
  type TranscriptUpdateData,
  transcriptUpdateDataSchema,
} from './webhook-contract';

// `{base_url}` ends in `/api/v1/`, every call carries `Authorization: Token <key>`.

export const API_PATH_SUFFIX = '/api/v1/';
export const AUTHORIZATION_SCHEME = 'Token';

export const API_PATHS = {
  bots: 'bots',
  bot: (id: string) => `bots/${encodeURIComponent(id)}`,
  transcript: (id: string) => `bots/${encodeURIComponent(id)}/transcript`,
  recording: (id: string) => `bots/${encodeURIComponent(id)}/recording`,
  participants: (id: string) => `bots/${encodeURIComponent(id)}/participants`,
  /** Deletes the bot's recordings, transcript and participants (not its metadata); the bot then shows `data_deleted`. */
  deleteData: (id: string) => `bots/${encodeURIComponent(id)}/delete_data`,
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

/**
 * A `POST bots` refused because the project has as many bots in meetings as it may
 * (bots before or after their meeting do not count): 400 with this in its `error`.
 * A launch to try again later, not a failure.
 */
export const CONCURRENT_BOTS_LIMIT_REACHED = 'You have exceeded the maximum number of concurrent bots';

/** A Zoom link for a project without Zoom app credentials: 400 with this in its `error`. Permanent until an admin adds them. */
export const ZOOM_CREDENTIALS_REQUIRED = 'Zoom App credentials are required';

/**
 * A 400's body as the service writes it: `{"error": "..."}`, or the serializer's
 * field errors `{"<field>": ["..."], "non_field_errors": ["..."]}` (a `null` where none is
 * allowed: "This field may not be null."; an undeclared field: "Unexpected field(s): …").
 */
export type FieldErrors = Record<string, string[]>;

/** The field errors of a 400 body, or undefined when it holds none. */
export function fieldErrorsOf(body: unknown): FieldErrors | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const errors: FieldErrors = {};
  for (const [field, messages] of Object.entries(body))
    if (Array.isArray(messages) && messages.every((m) => typeof m === 'string')) errors[field] = messages;
  return Object.keys(errors).length === 0 ? undefined : errors;
}

/** States after which a bot no longer holds its deduplication key (the service's post-meeting states). */
export const POST_MEETING_BOT_STATES: readonly BotState[] = FINAL_BOT_STATES;

/** The service starts a scheduled bot up to this long before its `join_at`: POST it earlier than that. */
export const SERVICE_STARTS_BOT_AHEAD_MS = 10 * 60_000;
