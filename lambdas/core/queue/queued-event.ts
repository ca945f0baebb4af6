/**
 * The format of a message on the events queue, shared by the ingress (writer)
 * and the event processor (reader). The message body is the webhook's raw body,
 * byte for byte, or, when that does not fit in one SQS message, a pointer to
 * where it was stored in S3 (claim check).
 */
import * as z from 'zod/mini';

export const EVENT_ATTRIBUTES = {
  trigger: 'trigger',
  botId: 'bot_id',
  idempotencyKey: 'idempotency_key',
  receivedAt: 'received_at',
  /** `inline` (the body is the webhook) or `s3` (the body is a claim-check pointer). */
  bodyLocation: 'body_location',
  /** `recorded` when the ingress wrote (or found) the event's ledger record; absent, the consumer records it. */
  ledger: 'ledger',
} as const;

/** The value of the `ledger` attribute when the event's ledger record exists. */
export const LEDGER_RECORDED = 'recorded';

export type BodyLocation = 'inline' | 's3';

export const claimCheckPointerSchema = z.object({
  claimCheck: z.object({
    bucket: z.string().check(z.minLength(1)),
    key: z.string().check(z.minLength(1)),
    bytes: z.int().check(z.nonnegative()),
    sha256: z.string().check(z.regex(/^[0-9a-f]{64}$/)),
  }),
});
export type ClaimCheckPointer = z.infer<typeof claimCheckPointerSchema>;

/** Prefix of claim-checked bodies in the payload bucket; a lifecycle rule expires them. */
export const CLAIM_CHECK_PREFIX = 'claim-check/';

/** Content-addressed, so a retried delivery overwrites the same object instead of adding one. */
export function claimCheckKey(receivedAt: Date, sha256Hex: string): string {
  const day = receivedAt.toISOString().slice(0, 10).replaceAll('-', '/');
  return `${CLAIM_CHECK_PREFIX}${day}/${sha256Hex}.json`;
}

/** SQS's own ceiling for one message, body and attributes together. */
export const SQS_MAX_MESSAGE_BYTES = 1_048_576;

/** Characters SQS accepts in a message body or string attribute; anything else fails the send. */
export const SQS_INVALID_CHARACTER = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;
