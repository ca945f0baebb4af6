/** Company calendar credentials are read by the name each source gives, cached as the API key is. */
import type { SecretsProvider } from '@aws-lambda-powertools/parameters/secrets';
import { describe, expect, it } from 'vitest';
import { secretsManagerReader } from '../../lambdas/shared/secrets-manager';

describe('calendar credentials reader', () => {
  it('asks for the named secret with the configured cache age, and refuses a secret without a string value', async () => {
    const asked: Array<[string, unknown]> = [];
    const values: Record<string, unknown> = {
      'meeting-pipeline/calendars/acme-google': '{"type":"service_account"}',
      'meeting-pipeline/calendars/binary': new Uint8Array([1]),
    };
    const provider = {
      get: async (name: string, options: unknown) => {
        asked.push([name, options]);
        return values[name];
      },
    } as unknown as SecretsProvider;
    const read = secretsManagerReader(120, provider);
    expect(await read('meeting-pipeline/calendars/acme-google')).toBe('{"type":"service_account"}');
    expect(asked).toEqual([['meeting-pipeline/calendars/acme-google', { maxAge: 120 }]]);
    // The message names the secret, never a value.
    await expect(read('meeting-pipeline/calendars/binary')).rejects.toThrow(
      /^Secret meeting-pipeline\/calendars\/binary has no string value$/,
    );
  });
});
