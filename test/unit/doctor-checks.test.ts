/** The doctor's secret checks and its one-line output, without any stack. */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { allHold, checkLines, failed, ok, skipped } from '../../cli/doctor/check';
import { checkApiKey, checkSigningSecret, isPlaceholder, type SecretReading } from '../../cli/doctor/secret-checks';
import { webhookSignature } from '../../lambdas/core/signature/sign';
import { parseSigningSecrets, verifyWebhookBody } from '../../lambdas/core/signature/verify';
import { signWebhook } from '../../local/simulator/webhook-signer';

const stored = (value: string): SecretReading => ({
  name: 'meeting-pipeline/x',
  read: async () => value,
  howToSet: (example) => `put ${example}`,
});

describe('doctor secret checks', () => {
  it("takes the deploy instructions' placeholders and filler words for placeholders, and real keys for keys", () => {
    for (const value of ['<API_KEY>', '<SIGNING_SECRET>', ' <your key> ', 'changeme', 'TODO', 'xxxx', 'placeholder'])
      expect(isPlaceholder(value), value).toBe(true);
    for (const value of ['3f9a7c1e2b', randomBytes(32).toString('base64'), 'tok_<live>_abc'])
      expect(isPlaceholder(value), value).toBe(false);
  });

  it('passes a signing secret of 32 random bytes and refuses short, non-base64 and placeholder ones with advice', async () => {
    const good = await checkSigningSecret(stored(randomBytes(32).toString('base64')));
    expect(good.result).toMatchObject({ status: 'ok', detail: 'meeting-pipeline/x: one key, base64 of 32 bytes' });
    expect(good.keys).toHaveLength(1);
    for (const [value, why] of [
      [randomBytes(8).toString('base64'), /decodes to 8 bytes; expected at least 16/],
      ['not base64!', /not base64 text/],
      ['<SIGNING_SECRET>', /still holds the placeholder "<SIGNING_SECRET>"/],
    ] as const) {
      const bad = await checkSigningSecret(stored(value));
      expect(bad.result.status, value).toBe('fail');
      expect(bad.result.detail, value).toMatch(why);
      expect(bad.result.advice, value).toMatch(
        /^(?:copy the secret from the service.s webhook settings|store the real value): put /,
      );
      expect(bad.keys).toBeUndefined();
    }
  });

  it('refuses an API key with a line break or surrounding space, which a paste adds', async () => {
    for (const [value, why] of [
      ['key\n', 'contains a line break'],
      [' key', 'has leading or trailing whitespace'],
      ['', 'is empty'],
    ] as const) {
      const checked = await checkApiKey(stored(value));
      expect(checked.result).toMatchObject({ status: 'fail', detail: `meeting-pipeline/x ${why}` });
      expect(checked.key).toBeUndefined();
    }
    expect((await checkApiKey(stored('k3y'))).key).toBe('k3y');
  });

  it("signs a test webhook as the service does: the ingress verifies it, and the simulator's own signer agrees", () => {
    const secret = randomBytes(32).toString('base64');
    const payload = { bot_id: 'bot_doctor_1', trigger: 'transcript.update', data: { text: 'café — ünïcode' } };
    const body = Buffer.from(JSON.stringify(payload));
    const signature = webhookSignature(body, parseSigningSecrets(secret)[0] as Buffer);
    expect(verifyWebhookBody(body, signature, parseSigningSecrets(secret))).toEqual({ ok: true });
    expect(signature).toBe(signWebhook(payload, secret).signature);
  });
});

describe('doctor output', () => {
  it('prints one aligned line a check, advice after an arrow, and holds only without a failure', () => {
    const results = [
      ok('API key', 'set'),
      failed('DLQ events', '2 messages', 'meeting-pipeline dlq redrive events'),
      skipped('alarms', 'skipped: local mode has no CloudWatch alarms'),
    ];
    expect(checkLines(results)).toEqual([
      '✓ API key     set',
      '✗ DLQ events  2 messages → meeting-pipeline dlq redrive events',
      '- alarms      skipped: local mode has no CloudWatch alarms',
    ]);
    expect(allHold(results)).toBe(false);
    expect(allHold([results[0]!, results[2]!])).toBe(true);
  });
});
