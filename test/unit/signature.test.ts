import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { canonicalJson, compareCodePoints, DuplicateKeyError, NestingTooDeepError } from '../../lambdas/core/signature/canonical-json';
import { parseSigningSecrets, SigningSecretConfigError, verifySignature } from '../../lambdas/core/signature/verify';
import { pythonVectors } from '../fixtures/python-vectors';

const vectors = pythonVectors();

describe('canonical form and signature against Python json.dumps + hmac', () => {
  it('covers every tricky payload in three spellings', () => {
    expect(vectors.length).toBe(39);
  });

  it.each(vectors.map((v) => [v.name, v] as const))('%s: canonical bytes match Python', (_name, vector) => {
    const text = vector.body.toString('utf8');
    JSON.parse(text); // the ingress validates syntax before canonicalizing
    expect(Buffer.from(canonicalJson(text), 'utf8').equals(vector.canonical)).toBe(true);
  });

  it.each(vectors.map((v) => [v.name, v] as const))('%s: the Python signature verifies', (_name, vector) => {
    const keys = parseSigningSecrets(vector.secret);
    expect(verifySignature(canonicalJson(vector.body.toString('utf8')), vector.signature, keys)).toEqual({ ok: true });
  });

  it('rejects every vector under a different secret', () => {
    const other = parseSigningSecrets(randomBytes(32).toString('base64'));
    for (const vector of vectors) {
      expect(verifySignature(canonicalJson(vector.body.toString('utf8')), vector.signature, other)).toEqual({
        ok: false,
        reason: 'signature-mismatch',
      });
    }
  });

  it('rejects a body with one changed character in a value', () => {
    const vector = vectors.find((v) => v.name === 'transcript_update/service')!;
    const tampered = vector.body.toString('utf8').replace('Zo', 'Zp');
    expect(tampered).not.toBe(vector.body.toString('utf8'));
    const keys = parseSigningSecrets(vector.secret);
    expect(verifySignature(canonicalJson(tampered), vector.signature, keys).ok).toBe(false);
  });

  it('accepts any of several secrets during rotation', () => {
    const vector = vectors[0]!;
    const keys = parseSigningSecrets(JSON.stringify([randomBytes(32).toString('base64'), vector.secret]));
    expect(keys).toHaveLength(2);
    expect(verifySignature(canonicalJson(vector.body.toString('utf8')), vector.signature, keys)).toEqual({ ok: true });
  });
});

describe('canonicalJson', () => {
  it('keeps number spelling and sorts integer-like keys as strings', () => {
    expect(canonicalJson('{"b": 2.0, "10": 1e-07, "9": 12345678901234567890, "a": [1.50, -0]}')).toBe(
      '{"10":1e-07,"9":12345678901234567890,"a":[1.50,-0],"b":2.0}',
    );
  });

  it('decodes escapes and writes non-ASCII as is', () => {
    expect(canonicalJson('{"k": "caf\\u00e9 \\ud83d\\ude00 \\/ \\u2028 \\"q\\""}')).toBe('{"k":"café 😀 / \u2028 \\"q\\""}');
  });

  it('finds the end of strings that end in escaped backslashes', () => {
    expect(canonicalJson('["a\\\\", "b\\\\\\"c", "\\\\"]')).toBe('["a\\\\","b\\\\\\"c","\\\\"]');
  });

  it('renders scalars at the top level', () => {
    expect(canonicalJson(' 2.0 ')).toBe('2.0');
    expect(canonicalJson('"x"')).toBe('"x"');
    expect(canonicalJson('[ ]')).toBe('[]');
  });

  it('rejects duplicate keys, also when written with different escapes', () => {
    expect(() => canonicalJson('{"a": 1, "b": 2, "a": 3}')).toThrow(DuplicateKeyError);
    expect(() => canonicalJson('{"x": {"\\u0061": 1, "a": 2}}')).toThrow(/duplicate key "a"/);
  });

  it('orders keys by code point, not UTF-16 unit', () => {
    expect(compareCodePoints('\uff5e', '😀')).toBeLessThan(0);
    expect('\uff5e' < '😀').toBe(false); // what a naive sort would do
    expect(compareCodePoints('10', '9')).toBeLessThan(0);
    expect(compareCodePoints('a', 'ab')).toBeLessThan(0);
    expect(compareCodePoints('é', 'é')).toBe(0);
  });
});

describe('verifySignature', () => {
  const key = randomBytes(32);
  const keys = [key];

  it.each([
    [undefined, 'missing-signature'],
    ['', 'missing-signature'],
    ['not base64!', 'malformed-signature'],
    ['c2hvcnQ=', 'malformed-signature'],
    ['A'.repeat(43) + '=', 'signature-mismatch'],
  ] as const)('%j → %s', (header, reason) => {
    expect(verifySignature('{}', header, keys)).toEqual({ ok: false, reason });
  });
});

describe('parseSigningSecrets', () => {
  it('reads one base64 secret, trimming whitespace', () => {
    const secret = randomBytes(32);
    expect(parseSigningSecrets(` ${secret.toString('base64')}\n`)).toEqual([secret]);
  });

  it.each([
    ['', /#1 is empty/],
    ['[]', /holds no secrets/],
    ['[1]', /#1 is not base64/],
    ['[not json', /not valid JSON/],
    ['c2hvcnQ=', /decodes to 5 bytes/],
    ['plain text secret', /not base64/],
  ])('refuses %j with a message that says what to fix', (value, message) => {
    expect(() => parseSigningSecrets(value)).toThrow(SigningSecretConfigError);
    expect(() => parseSigningSecrets(value)).toThrow(message);
  });
});

describe('canonicalJson nesting limit', () => {
  it('renders 1,000 levels and refuses 1,001 without overflowing the stack', () => {
    const nest = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);
    expect(canonicalJson(nest(1000))).toBe(nest(1000));
    expect(() => canonicalJson(nest(1001))).toThrow(NestingTooDeepError);
    expect(() => canonicalJson('{"a":'.repeat(200_000) + '1' + '}'.repeat(200_000))).toThrow(NestingTooDeepError);
  });
});
