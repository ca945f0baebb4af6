import { parseSigningSecrets } from './signature/verify';

/**
 * Reads one secret's current value. In AWS it is Secrets Manager behind a cache
 * with a short refresh interval; in local mode and tests, local configuration.
 */
export interface SecretSource {
  read(): Promise<string>;
}

export function staticSecret(value: string): SecretSource {
  return { read: async () => value };
}

/** Signing keys from a secret source, re-parsed only when the secret value changes. */
export function signingKeysFrom(source: SecretSource): () => Promise<readonly Buffer[]> {
  let lastValue: string | undefined;
  let lastKeys: readonly Buffer[] = [];
  return async () => {
    const value = await source.read();
    if (value !== lastValue) {
      lastKeys = parseSigningSecrets(value);
      lastValue = value;
    }
    return lastKeys;
  };
}
