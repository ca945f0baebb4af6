import * as z from 'zod/mini';
import { DEFAULT_QUARANTINE_LIMITS } from '../core/ingress/quarantine';
import { secretCacheSeconds } from '../shared/upstream-environment';

/** Environment the ingress function is deployed with (set by lib/webhook-ingress.ts). */
export const ingressEnvironmentSchema = z.object({
  EVENTS_QUEUE_URL: z.url(),
  PAYLOAD_BUCKET: z.string().check(z.minLength(1)),
  SIGNING_SECRET_ID: z.string().check(z.minLength(1)),
  MAX_BODY_BYTES: z.coerce.number().check(z.int(), z.positive()),
  INLINE_MESSAGE_LIMIT_BYTES: z.coerce.number().check(z.int(), z.positive()),
  SECRET_CACHE_SECONDS: secretCacheSeconds,
  /** The meetings table: the ingress records each event in the ledger there on its first acceptance. */
  TABLE_NAME: z.string().check(z.minLength(1)),
  /** How long ledger records are kept (dedup and replay). */
  DEDUP_RETENTION_DAYS: z.coerce.number().check(z.int(), z.positive()),
  /** Bodies refused for their signature kept per minute, and their bytes, by all instances together. */
  QUARANTINE_MAX_PER_MINUTE: z.coerce.number().check(z.int(), z.positive()),
  QUARANTINE_MAX_BYTES_PER_MINUTE: z.coerce.number().check(z.int(), z.positive()),
  /** Of those, kept per day naming one bot. */
  QUARANTINE_MAX_PER_BOT_PER_DAY: z.coerce.number().check(z.int(), z.positive()),
});
export type IngressEnvironment = z.infer<typeof ingressEnvironmentSchema>;

/** The quarantine caps as deployed by default (lib/config.ts takes the same defaults). */
export const DEFAULT_QUARANTINE_ENVIRONMENT = {
  QUARANTINE_MAX_PER_MINUTE: DEFAULT_QUARANTINE_LIMITS.maxEntriesPerMinute,
  QUARANTINE_MAX_BYTES_PER_MINUTE: DEFAULT_QUARANTINE_LIMITS.maxBytesPerMinute,
  QUARANTINE_MAX_PER_BOT_PER_DAY: DEFAULT_QUARANTINE_LIMITS.maxEntriesPerBotPerDay,
} satisfies Partial<IngressEnvironment>;
