/**
 * Webhooks refused for their signature, kept aside instead of lost.
 *
 * The service signs with its newest secret the moment one is created and gives up
 * after 3 attempts, so a webhook signed with a secret we do not hold yet would be
 * gone for good. Such bodies are kept (bounded in size and rate, expiring with the
 * bucket's lifecycle rule), never processed, until a re-drive checks them against
 * the current secrets and queues those that now verify, through the normal dedup.
 */
import { createHash } from 'node:crypto';
import * as z from 'zod/mini';
import type { PayloadStore } from '../queue/payload-store';

/** Prefix of quarantined bodies in the payload bucket; a lifecycle rule expires them. */
export const QUARANTINE_PREFIX = 'quarantine/';

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

/** Content-addressed per day and signature: the service's retries of one webhook make one entry. */
export function quarantineKey(receivedAt: Date, sha256Hex: string, signature: string): string {
  const day = receivedAt.toISOString().slice(0, 10).replaceAll('-', '/');
  const signatureDigest = createHash('sha256').update(signature).digest('hex').slice(0, 16);
  return `${QUARANTINE_PREFIX}${day}/${sha256Hex}-${signatureDigest}.json`;
}

/** Where quarantined bodies live: the payload bucket in AWS and local mode. */
export interface QuarantineStore {
  put(key: string, entry: QuarantineEntry): Promise<void>;
  /** Every key under the quarantine prefix, oldest day first. */
  list(): Promise<string[]>;
  read(key: string): Promise<QuarantineEntry>;
  remove(key: string): Promise<void>;
}

export interface QuarantineLimits {
  /** Bodies larger than this are not kept (the ingress's own body limit applies first). */
  maxBodyBytes: number;
  /** Entries and bytes kept per minute by one function instance: a flood of forged bodies is bounded. */
  maxEntriesPerMinute: number;
  maxBytesPerMinute: number;
}

export const DEFAULT_QUARANTINE_LIMITS: QuarantineLimits = {
  maxBodyBytes: 1024 * 1024,
  maxEntriesPerMinute: 120,
  maxBytesPerMinute: 16 * 1024 * 1024,
};

export type KeepResult = { kept: true; key: string } | { kept: false; why: 'too-large' | 'rate-limited' };

/** The ingress's side: keeps a refused body unless the limits say no. */
export class Quarantine {
  private window = { minute: -1, entries: 0, bytes: 0 };

  constructor(
    private readonly store: Pick<QuarantineStore, 'put'>,
    private readonly limits: QuarantineLimits = DEFAULT_QUARANTINE_LIMITS,
  ) {}

  async keep(
    delivery: { body: Uint8Array; signature: string },
    reason: QuarantineReason,
    receivedAt: Date,
  ): Promise<KeepResult> {
    const bytes = delivery.body.byteLength;
    if (bytes > this.limits.maxBodyBytes) return { kept: false, why: 'too-large' };
    const minute = Math.floor(receivedAt.getTime() / 60_000);
    if (minute !== this.window.minute) this.window = { minute, entries: 0, bytes: 0 };
    if (
      this.window.entries + 1 > this.limits.maxEntriesPerMinute ||
      this.window.bytes + bytes > this.limits.maxBytesPerMinute
    ) {
      return { kept: false, why: 'rate-limited' };
    }
    this.window.entries++;
    this.window.bytes += bytes;
    const body = Buffer.from(delivery.body.buffer, delivery.body.byteOffset, delivery.body.byteLength);
    const sha256 = createHash('sha256').update(body).digest('hex');
    const key = quarantineKey(receivedAt, sha256, delivery.signature);
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
