/** Quarantine limits and the re-drive, with real signatures and the real ingress decision. */
import { describe, expect, it } from 'vitest';
import { acceptWebhook, type IngressDependencies } from '../../lambdas/core/ingress/accept-webhook';
import type { QueuedEventMeta } from '../../lambdas/core/ingress/event-queue';
import {
  Quarantine,
  type QuarantineCap,
  type QuarantineEntry,
  type QuarantineStore,
  quarantineBotPrefix,
  quarantineEntrySchema,
  quarantineOwner,
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

/** Admits everything: these tests are about what is kept and where; the caps are tested on the table (quarantine-flood). */
const uncapped: QuarantineCap = { admit: async () => undefined };

describe('Quarantine.keep', () => {
  it('keeps one entry per body and signature, however often the service retries it', async () => {
    const store = memoryStore();
    const quarantine = new Quarantine(store, uncapped);
    const signed = signWebhook(transcriptEnvelope(), newSigningSecret());
    for (let attempt = 0; attempt < 3; attempt++) {
      expect(await quarantine.keep({ ...signed, owner: 'bot_a' }, 'signature-mismatch', AT)).toMatchObject({
        kept: true,
      });
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

  it('refuses bodies over the size cap', async () => {
    const store = memoryStore();
    const quarantine = new Quarantine(store, uncapped, 2048);
    const big = { body: Buffer.alloc(4096, 0x20), signature: 'x', owner: undefined };
    expect(await quarantine.keep(big, 'signature-mismatch', AT)).toEqual({ kept: false, why: 'too-large' });
    expect(store.entries.size).toBe(0);
  });

  it('files each body under the bot it names (one prefix per bot), and bodies naming none apart', async () => {
    const store = memoryStore();
    const quarantine = new Quarantine(store, uncapped);
    const secret = newSigningSecret();
    const a = signWebhook(transcriptEnvelope({ bot_id: 'bot_a' }), secret);
    const b = signWebhook(transcriptEnvelope({ bot_id: 'bot_b' }), secret);
    const keyOf = async (delivery: { body: Buffer; signature: string }) => {
      const kept = await quarantine.keep(
        { ...delivery, owner: quarantineOwner(JSON.parse(delivery.body.toString())) },
        'signature-mismatch',
        AT,
      );
      return kept.kept ? kept.key : '';
    };
    const keyA = await keyOf(a);
    expect(keyA.startsWith(quarantineBotPrefix('bot_a'))).toBe(true);
    expect(keyA).toMatch(/^quarantine\/bots\/[0-9a-f]{32}\/2026\/11\/23\/[0-9a-f]{64}-[0-9a-f]{16}\.json$/);
    expect((await keyOf(b)).startsWith(quarantineBotPrefix('bot_b'))).toBe(true);
    expect(quarantineBotPrefix('bot_a')).not.toBe(quarantineBotPrefix('bot_b'));
    // A forged id of any length or alphabet still makes a short, safe key.
    const odd = signWebhook({ bot_id: `../${'x'.repeat(5000)}/`, trigger: 'bot.state_change' }, secret);
    expect(await keyOf(odd)).toMatch(/^quarantine\/bots\/[0-9a-f]{32}\//);
    const unbound = signWebhook({ calendar_id: 'cal_1', trigger: 'calendar.events_update' }, secret);
    expect(await keyOf(unbound)).toMatch(/^quarantine\/unbound\/2026\/11\/23\//);
    expect(quarantineOwner([{ bot_id: 'x' }])).toBeUndefined();
    expect(quarantineOwner({ bot_id: 7 })).toBeUndefined();
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
    const quarantine = new Quarantine(store, uncapped);
    const fromNew = [transcriptEnvelope(), transcriptEnvelope()].map((p) => signWebhook(p, newSecret));
    const forged = signWebhook(transcriptEnvelope(), newSigningSecret());
    for (const signed of [...fromNew, forged])
      await quarantine.keep({ ...signed, owner: undefined }, 'signature-mismatch', AT);

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

describe('what the ingress quarantines', () => {
  const secret = newSigningSecret();
  function ingressWith(store: QuarantineStore, signingKeys: IngressDependencies['signingKeys']) {
    const rejected: string[] = [];
    const deps: IngressDependencies = {
      signingKeys,
      queue: {
        enqueue: async () => {
          throw new Error('nothing here may be queued');
        },
      },
      maxBodyBytes: 1 << 20,
      quarantine: new Quarantine(store, uncapped),
      telemetry: {
        ...silentTelemetry,
        metrics: {
          emit: (metric, _value, ...dimensions) => {
            if (metric.name === 'WebhookRejected') rejected.push(String(Object.values(dimensions[0] ?? {})[0]));
          },
        },
      },
      now: () => AT,
    };
    return { deps, rejected };
  }
  const working = async () => parseSigningSecrets(secret);
  const unavailable = async (): Promise<readonly Buffer[]> => {
    throw new Error('Secrets Manager is down');
  };
  const forged = signWebhook(transcriptEnvelope(), newSigningSecret());
  const badHeaders: Array<[string, string | undefined, string]> = [
    ['no header', undefined, 'missing-signature'],
    ['an empty header', '  ', 'missing-signature'],
    ['text that is not base64', 'not a signature!', 'malformed-signature'],
    ['base64 of the wrong length', Buffer.alloc(31).toString('base64'), 'malformed-signature'],
    ['a hex digest', 'ab'.repeat(32), 'malformed-signature'],
  ];

  for (const [keys, signingKeys] of [
    ['the secret readable', working],
    ['the secret unavailable', unavailable],
  ] as const) {
    it(`refuses a body without a well-formed signature header (401, reason counted) and keeps none, with ${keys}`, async () => {
      const store = memoryStore();
      const { deps, rejected } = ingressWith(store, signingKeys);
      for (const [, signature, reason] of badHeaders) {
        const outcome = await acceptWebhook({ body: forged.body, signature }, deps);
        expect(outcome).toMatchObject({ kind: 'rejected', status: 401, reason });
      }
      expect(rejected).toEqual(badHeaders.map(([, , reason]) => reason));
      expect(store.entries.size).toBe(0);

      // A well-formed signature that does not verify (or cannot be checked now) is what is kept.
      const outcome = await acceptWebhook(forged, deps);
      expect(outcome.status).toBe(signingKeys === working ? 401 : 503);
      expect(store.entries.size).toBe(1);
    });
  }
});
