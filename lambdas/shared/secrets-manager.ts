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
