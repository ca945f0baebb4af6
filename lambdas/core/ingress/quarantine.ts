/**
 * Webhooks refused for their signature, kept aside instead of lost.
 *
 * The service signs with its newest secret the moment one is created and gives up
 * after 3 attempts, so a webhook signed with a secret we do not hold yet would be
 * gone for good. Such bodies are kept (bounded in size and rate, expiring with the
 * bucket's lifecycle rule), never processed, until a re-drive checks them against
 * the current secrets and queues those that now verify, through the normal dedup.
 *
 * Anyone can POST forged bodies, so what is kept is bounded across all ingress instances
 * (quarantine-cap.ts), and each is filed under the bot it names: erasing a meeting lists
 * its own entries, whatever else a flood left.
 */
import { createHash } from 'node:crypto';
import * as z from 'zod/mini';
import type { PayloadStore } from '../queue/payload-store';

/** Prefix of quarantined bodies in the payload bucket; a lifecycle rule expires them. */
export const QUARANTINE_PREFIX = 'quarantine/';
/** Entries whose body names a bot, one folder per bot: an erasure lists only its meeting's. */
export const QUARANTINE_BOTS_PREFIX = `${QUARANTINE_PREFIX}bots/`;
/** Entries whose body names no bot (a calendar's, an app session's, no `bot_id`): no meeting's erasure reads them. */
export const QUARANTINE_UNBOUND_PREFIX = `${QUARANTINE_PREFIX}unbound/`;
/**
 * The first layout, `quarantine/<yyyy>/<mm>/<dd>/…`, keyed by content alone: no longer written, and
 * gone once the quarantine retention has passed since the upgrade. Until then erasure reads these.
 */
export const LEGACY_QUARANTINE_PREFIX = `${QUARANTINE_PREFIX}2`;

export const QUARANTINE_REASONS = ['signature-mismatch', 'signing-secret-unavailable'] as const;
export type QuarantineReason = (typeof QUARANTINE_REASONS)[number];

export const quarantineEntrySchema = z.object({
  format: z.literal(1),
  received_at: z.string(),
  reason: z.enum(QUARANTINE_REASONS),
  /** The X-Webhook-Signature header as received: a re-drive verifies against it. */
  signature: z.string(),
  /** The body exactly as received, as UTF-8 text (it parsed as JSON before it was refused). */
  body: z.string(),
  sha256: z.string().check(z.regex(/^[0-9a-f]{64}$/)),
});
export type QuarantineEntry = z.infer<typeof quarantineEntrySchema>;

/**
 * The bot a refused body names (its top-level `bot_id`), or undefined. Unverified: anyone can name
 * any bot, which is why the bot is only ever a place to file the body, and each bot's share is capped.
 */
export function quarantineOwner(parsed: unknown): string | undefined {
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return undefined;
  const botId = (parsed as { bot_id?: unknown }).bot_id;
  return typeof botId === 'string' && botId !== '' ? botId : undefined;
}

/** A bot's id as it appears in quarantine keys and counters: fixed length and safe whatever a forger sent. */
export function quarantineBotHash(botId: string): string {
  return createHash('sha256').update(botId, 'utf8').digest('hex').slice(0, 32);
}

/** Where a bot's quarantined bodies are: one ListObjects finds them all. */
export const quarantineBotPrefix = (botId: string): string => `${QUARANTINE_BOTS_PREFIX}${quarantineBotHash(botId)}/`;

/**
 * Filed under the bot the body names (or with the unbound ones), then content-addressed per day and
 * signature: the service's retries of one webhook make one entry.
 */
export function quarantineKey(
  receivedAt: Date,
  sha256Hex: string,
  signature: string,
  owner: string | undefined,
): string {
  const day = receivedAt.toISOString().slice(0, 10).replaceAll('-', '/');
  const signatureDigest = createHash('sha256').update(signature).digest('hex').slice(0, 16);
  const folder = owner === undefined ? QUARANTINE_UNBOUND_PREFIX : quarantineBotPrefix(owner);
  return `${folder}${day}/${sha256Hex}-${signatureDigest}.json`;
}

const KEY_DAY = /(\d{4})\/(\d{2})\/(\d{2})\/[^/]+$/;

/** The day an entry was received, read from its key (every layout ends in `<yyyy>/<mm>/<dd>/<name>`). */
export function quarantineKeyDay(key: string): string {
  const match = KEY_DAY.exec(key);
  return match === null ? '' : `${match[1]}-${match[2]}-${match[3]}`;
}

/** Where quarantined bodies live: the payload bucket in AWS and local mode. */
export interface QuarantineStore {
  put(key: string, entry: QuarantineEntry): Promise<void>;
  /** Every key under `prefix` (default: the whole quarantine, every layout), oldest day first. */
  list(prefix?: string): Promise<string[]>;
  read(key: string): Promise<QuarantineEntry>;
  remove(key: string): Promise<void>;
}

export interface QuarantineLimits {
  /** Bodies larger than this are not kept (the ingress's own body limit applies first). */
  maxBodyBytes: number;
  /** Entries and bytes kept per minute by all ingress instances together: a flood of forged bodies is bounded. */
  maxEntriesPerMinute: number;
  maxBytesPerMinute: number;
  /** Entries kept per day naming one bot: a flood naming one meeting cannot make its erasure long. */
  maxEntriesPerBotPerDay: number;
}

export const DEFAULT_QUARANTINE_LIMITS: QuarantineLimits = {
  maxBodyBytes: 1024 * 1024,
  maxEntriesPerMinute: 600,
  maxBytesPerMinute: 16 * 1024 * 1024,
  maxEntriesPerBotPerDay: 1000,
};

/** Which cap held a body back. */
export type QuarantineCapName = 'per-minute' | 'per-bot';

/** Counts what is kept across every ingress instance (quarantine-cap.ts keeps the counters in the table). */
export interface QuarantineCap {
  /** Counts one more body of `bytes` (naming `owner`) received at `at`, unless a cap is reached: then says which. */
  admit(body: { bytes: number; owner: string | undefined; at: Date }): Promise<QuarantineCapName | undefined>;
}

export type KeepResult =
  | { kept: true; key: string }
  | { kept: false; why: 'too-large' }
  | { kept: false; why: 'capped'; cap: QuarantineCapName };

/** The ingress's side: keeps a refused body unless the limits say no. */
export class Quarantine {
  constructor(
    private readonly store: Pick<QuarantineStore, 'put'>,
    private readonly cap: QuarantineCap,
    private readonly maxBodyBytes: number = DEFAULT_QUARANTINE_LIMITS.maxBodyBytes,
  ) {}

  /** `owner`: the bot the body names (quarantineOwner), which files it. */
  async keep(
    delivery: { body: Uint8Array; signature: string; owner: string | undefined },
    reason: QuarantineReason,
    receivedAt: Date,
  ): Promise<KeepResult> {
    const bytes = delivery.body.byteLength;
    if (bytes > this.maxBodyBytes) return { kept: false, why: 'too-large' };
    const capped = await this.cap.admit({ bytes, owner: delivery.owner, at: receivedAt });
    if (capped !== undefined) return { kept: false, why: 'capped', cap: capped };
    const body = Buffer.from(delivery.body.buffer, delivery.body.byteOffset, delivery.body.byteLength);
    const sha256 = createHash('sha256').update(body).digest('hex');
    const key = quarantineKey(receivedAt, sha256, delivery.signature, delivery.owner);
    await this.store.put(key, {
      format: 1,
      received_at: receivedAt.toISOString(),
      reason,
      signature: delivery.signature,
      body: body.toString('utf8'),
      sha256,
    });
    return { kept: true, key };
  }
}

/** The ingress writes entries through its payload store (S3, loaded on first use). */
export function quarantineWriter(payloads: PayloadStore): Pick<QuarantineStore, 'put'> {
  return {
    async put(key, entry) {
      const bytes = Buffer.from(JSON.stringify(entry), 'utf8');
      await payloads.put(key, bytes, createHash('sha256').update(bytes).digest());
    },
  };
}
