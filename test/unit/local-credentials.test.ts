/**
 * Local mode's credentials reader: a secret name resolves to the sample tenant's value
 * or to the `--calendar-secrets` file's entry (read at each call, an object standing for
 * its JSON); anything else is a CredentialsUnavailableError naming the secret and never
 * quoting a value.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CredentialsUnavailableError } from '../../lambdas/core/calendar/company/credentials';
import { localCredentials, readCredentialsFile } from '../../local/local-credentials';
import { scratchDir } from '../fixtures/scratch';

const dir = scratchDir('local-credentials-');

describe('local credentials', () => {
  it('reads the sample tenant values, then the file, which is read again at each call', async () => {
    const file = join(dir, 'secrets.json');
    writeFileSync(file, JSON.stringify({ 'acme/ms': 'first-secret', 'acme/google': { type: 'service_account' } }));
    const read = localCredentials({ values: new Map([['sample/google', 'sample-key']]), file });
    expect(await read('sample/google')).toBe('sample-key');
    expect(await read('acme/ms')).toBe('first-secret');
    expect(JSON.parse(await read('acme/google'))).toEqual({ type: 'service_account' });
    writeFileSync(file, JSON.stringify({ 'acme/ms': 'rotated-secret' }));
    expect(await read('acme/ms')).toBe('rotated-secret');
  });

  it('refuses an unknown name with the secret named, never a value', async () => {
    const file = join(dir, 'other.json');
    writeFileSync(file, JSON.stringify({ 'acme/ms': 'do-not-show-me' }));
    const read = localCredentials({ values: new Map([['sample/google', 'sample-key']]), file });
    const error = await read('acme/unknown').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CredentialsUnavailableError);
    expect((error as CredentialsUnavailableError).secretName).toBe('acme/unknown');
    expect(String(error)).toMatch(/acme\/unknown: no local secret by that name \(not in .*other\.json/);
    expect(String(error)).not.toMatch(/do-not-show-me|sample-key/);
    await expect(localCredentials({})('x')).rejects.toThrow(/give --calendar-secrets FILE/);
  });

  it.each([
    ['missing.json', undefined, /cannot read .*missing\.json \(ENOENT\)/],
    ['not-json.json', '{ nope', /is not JSON/],
    ['array.json', '["a"]', /must hold a JSON object/],
    ['number.json', '{"a": 5}', /the entry "a" must be a non-empty string or a JSON object/],
  ])('says why %s cannot be used', (name, content, problem) => {
    const file = join(dir, name);
    if (content !== undefined) writeFileSync(file, content);
    const result = readCredentialsFile(file);
    expect(result).not.toBeInstanceOf(Map);
    expect((result as { problem: string }).problem).toMatch(problem);
  });
});
