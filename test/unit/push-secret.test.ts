/**
 * Channel secrets: what one key mints for one provider verifies, and nothing else
 * does (another key, the other provider, any changed character, any other length).
 */
import { describe, expect, it } from 'vitest';
import {
  mintPushSecret,
  PUSH_SECRET_MAX_CHARS,
  verifyPushSecret,
} from '../../lambdas/core/calendar/company/push/push-secret';

const KEY = 'push-key-0123456789';

describe('push secrets', () => {
  it('verify for the key and provider that minted them, giving back the id', () => {
    const { id, secret } = mintPushSecret(KEY, 'microsoft');
    expect(secret).toHaveLength(PUSH_SECRET_MAX_CHARS);
    expect(secret.length).toBeLessThanOrEqual(128); // Graph's clientState limit (Google's token: 256)
    expect(verifyPushSecret(KEY, 'microsoft', secret)).toBe(id);
  });

  it('refuse another key, the other provider, and every one-character change', () => {
    // The MAC's last base64url character carries 2 unused bits: 'A' and 'B' decode alike, so ask for one ending in 'A'.
    let secret = mintPushSecret(KEY, 'google').secret;
    while (!secret.endsWith('A')) secret = mintPushSecret(KEY, 'google').secret;
    expect(verifyPushSecret('another-key', 'google', secret)).toBeUndefined();
    expect(verifyPushSecret(KEY, 'microsoft', secret)).toBeUndefined();
    for (let i = 0; i < secret.length; i += 1) {
      const changed = `${secret.slice(0, i)}${secret[i] === 'A' ? 'B' : 'A'}${secret.slice(i + 1)}`;
      expect(verifyPushSecret(KEY, 'google', changed)).toBeUndefined();
    }
  });

  it('refuse absent, shorter, longer and dot-less text unread', () => {
    const { secret } = mintPushSecret(KEY, 'google');
    for (const text of [undefined, '', secret.slice(0, -1), `${secret}A`, secret.replace('.', 'A'), 'x'.repeat(10_000)])
      expect(verifyPushSecret(KEY, 'google', text)).toBeUndefined();
  });
});
