import { SecretsProvider } from '@aws-lambda-powertools/parameters/secrets';
import type { SecretSource } from '../core/secrets';

/**
 * A Secrets Manager secret, cached in the function for `maxAgeSeconds` so a
 * rotated value is picked up within that time without a call per request.
 */
export function secretsManagerSource(
  secretId: string,
  maxAgeSeconds: number,
  provider = new SecretsProvider(),
): SecretSource {
  return {
    async read() {
      const value = await provider.get(secretId, { maxAge: maxAgeSeconds });
      if (typeof value !== 'string') throw new Error(`Secret ${secretId} has no string value`);
      return value;
    },
  };
}

/**
 * Any secret by name or ARN, each value cached for `maxAgeSeconds` (one provider, so
 * one cache): the company calendars' credentials, named by each source. The role's
 * policy holds the names it may read (lib/calendar-sync.ts); the value is never logged.
 */
export function secretsManagerReader(
  maxAgeSeconds: number,
  provider = new SecretsProvider(),
): (secretId: string) => Promise<string> {
  return (secretId) => secretsManagerSource(secretId, maxAgeSeconds, provider).read();
}
