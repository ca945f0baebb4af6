/** Quarantine limits and the re-drive, with real signatures and the real ingress decision. */
import { describe, expect, it } from 'vitest';
import type { IngressDependencies } from '../../lambdas/core/ingress/accept-webhook';
import type { QueuedEventMeta } from '../../lambdas/core/ingress/event-queue';
import {
  Quarantine,
  type QuarantineEntry,
  type QuarantineStore,
  quarantineEntrySchema,
} from '../../lambdas/core/ingress/quarantine';
import { redriveQuarantine } from '../../lambdas/core/ingress/redrive-quarantine';
import { parseSigningSecrets } from '../../lambdas/core/signature/verify';
import { silentTelemetry } from '../../lambdas/core/telemetry';
import { signWebhook } from '../../local/simulator/webhook-signer';
import { newSigningSecret, transcriptEnvelope } from '../fixtures/webhooks';

function memoryStore(): QuarantineStore & { entries: Map<string, QuarantineEntry> } {
  const entries = new Map<string, QuarantineEntry>();
  return {
    entries,
    put: async (key, entry) => void entries.set(key, quarantineEntrySchema.parse(entry)),
    list: async () => [...entries.keys()].sort(),
    read: async (key) => {
      const entry = entries.get(key);
      if (entry === undefined) throw new Error(`no ${key}`);
      return entry;
    },
    remove: async (key) => void entries.delete(key),
  };
}

const AT = new Date('2026-11-23T15:00:00Z');

describe('Quarantine.keep', () => {
  it('keeps one entry per body and signature, however often the service retries it', async () => {
    const store = memoryStore();
    const quarantine = new Quarantine(store);
    const signed = signWebhook(transcriptEnvelope(), newSigningSecret());
    for (let attempt = 0; attempt < 3; attempt++) {
      expect(await quarantine.keep(signed, 'signature-mismatch', AT)).toMatchObject({ kept: true });
    }
    expect(store.entries.size).toBe(1);
    const [entry] = store.entries.values();
    expect(entry).toMatchObject({
      reason: 'signature-mismatch',
      signature: signed.signature,
      received_at: AT.toISOString(),
    });
    expect(Buffer.from(entry?.body ?? '', 'utf8').equals(signed.body)).toBe(true);
  });

  it('refuses bodies over the size cap, and more than the rate allows in a minute', async () => {
    const store = memoryStore();
    const quarantine = new Quarantine(store, {
      maxBodyBytes: 2048,
      maxEntriesPerMinute: 3,
      maxBytesPerMinute: 1 << 20,
    });
    const big = { body: Buffer.alloc(4096, 0x20), signature: 'x' };
    expect(await quarantine.keep(big, 'signature-mismatch', AT)).toEqual({ kept: false, why: 'too-large' });
    const results = [];
    for (let i = 0; i < 5; i++) {
      results.push(
        await quarantine.keep({ body: Buffer.from(`{"n":${i}}`), signature: 's' }, 'signature-mismatch', AT),
      );
    }
    expect(results.map((r) => r.kept)).toEqual([true, true, true, false, false]);
    const nextMinute = new Date(AT.getTime() + 60_000);
    expect(
      await quarantine.keep({ body: Buffer.from('{"n":9}'), signature: 's' }, 'signature-mismatch', nextMinute),
    ).toMatchObject({ kept: true });
    expect(store.entries.size).toBe(4);
  });

  it('bounds the bytes kept per minute too', async () => {
    const quarantine = new Quarantine(memoryStore(), {
      maxBodyBytes: 1000,
      maxEntriesPerMinute: 100,
      maxBytesPerMinute: 2500,
    });
    const body = { body: Buffer.alloc(1000, 0x20), signature: 's' };
    const kept = [];
    for (let i = 0; i < 4; i++)
      kept.push((await quarantine.keep({ ...body, signature: `s${i}` }, 'signature-mismatch', AT)).kept);
    expect(kept).toEqual([true, true, false, false]);
  });
});

describe('redriveQuarantine', () => {
  function ingress(secrets: string[], queued: QueuedEventMeta[]): Omit<IngressDependencies, 'quarantine'> {
    return {
      signingKeys: async () => parseSigningSecrets(JSON.stringify(secrets)),
      queue: {
        enqueue: async (_body, meta) => {
          queued.push(meta);
          return { messageId: `m${queued.length}`, bodyLocation: 'inline' };
        },
      },
      maxBodyBytes: 1 << 20,
      telemetry: silentTelemetry,
      now: () => new Date(),
    };
  }

  it('queues what verifies with the current secrets, once, and keeps the rest', async () => {
    const oldSecret = newSigningSecret();
    const newSecret = newSigningSecret();
    const store = memoryStore();
    const quarantine = new Quarantine(store);
    const fromNew = [transcriptEnvelope(), transcriptEnvelope()].map((p) => signWebhook(p, newSecret));
    const forged = signWebhook(transcriptEnvelope(), newSigningSecret());
    for (const signed of [...fromNew, forged]) await quarantine.keep(signed, 'signature-mismatch', AT);

    const queued: QueuedEventMeta[] = [];
    const dry = await redriveQuarantine(store, ingress([newSecret, oldSecret], queued), { dryRun: true });
    expect(dry.redriven).toHaveLength(2);
    expect(queued).toHaveLength(0);
    expect(store.entries.size).toBe(3);

    const report = await redriveQuarantine(store, ingress([newSecret, oldSecret], queued));
    expect(report).toMatchObject({ checked: 3, failed: [] });
    expect(report.redriven).toHaveLength(2);
    expect(report.stillRefused).toHaveLength(1);
    expect(queued.map((m) => m.receivedAt)).toEqual([AT.toISOString(), AT.toISOString()]);
    expect(store.entries.size).toBe(1);

    const again = await redriveQuarantine(store, ingress([newSecret, oldSecret], queued));
    expect(again.redriven).toHaveLength(0);
    expect(queued).toHaveLength(2);
  });
});
