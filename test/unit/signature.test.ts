import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  canonicalJson,
  compareCodePoints,
  DuplicateKeyError,
  NestingTooDeepError,
} from '../../lambdas/core/signature/canonical-json';
import { parseSigningSecrets, SigningSecretConfigError, verifySignature } from '../../lambdas/core/signature/verify';
import { seededRandom } from '../../local/seeded-random';
import { dumps, PyFloat, PyInt, type PyValue, SIGNED, WIRE } from '../../local/simulator/python-json';
import { pythonVectors } from '../fixtures/python-vectors';

const vectors = pythonVectors();

describe('canonical form and signature against Python json.dumps + hmac', () => {
  it('covers every tricky payload in three spellings', () => {
    expect(vectors.length).toBe(39);
  });

  it.each(vectors.map((v) => [v.name, v] as const))('%s: canonical bytes match Python', (_name, vector) => {
    JSON.parse(vector.body.toString('utf8')); // the ingress validates syntax before canonicalizing
    expect(canonicalJson(vector.body).toString('utf8')).toBe(vector.canonical.toString('utf8'));
    expect(canonicalJson(vector.body).equals(vector.canonical)).toBe(true);
  });

  it.each(vectors.map((v) => [v.name, v] as const))('%s: the Python signature verifies', (_name, vector) => {
    const keys = parseSigningSecrets(vector.secret);
    expect(verifySignature(canonicalJson(vector.body), vector.signature, keys)).toEqual({ ok: true });
  });

  it('rejects every vector under a different secret', () => {
    const other = parseSigningSecrets(randomBytes(32).toString('base64'));
    for (const vector of vectors) {
      expect(verifySignature(canonicalJson(vector.body), vector.signature, other)).toEqual({
        ok: false,
        reason: 'signature-mismatch',
      });
    }
  });

  it('rejects a body with one changed character in a value', () => {
    const vector = vectors.find((v) => v.name === 'transcript_update/service')!;
    const tampered = Buffer.from(vector.body.toString('utf8').replace('Zo', 'Zp'));
    expect(tampered.equals(vector.body)).toBe(false);
    const keys = parseSigningSecrets(vector.secret);
    expect(verifySignature(canonicalJson(tampered), vector.signature, keys).ok).toBe(false);
  });

  it('accepts any of several secrets during rotation', () => {
    const vector = vectors[0]!;
    const keys = parseSigningSecrets(JSON.stringify([randomBytes(32).toString('base64'), vector.secret]));
    expect(keys).toHaveLength(2);
    expect(verifySignature(canonicalJson(vector.body), vector.signature, keys)).toEqual({ ok: true });
  });
});

const render = (text: string): string => canonicalJson(Buffer.from(text, 'utf8')).toString('utf8');

describe('canonicalJson', () => {
  it('keeps number spelling and sorts integer-like keys as strings', () => {
    expect(render('{"b": 2.0, "10": 1e-07, "9": 12345678901234567890, "a": [1.50, -0]}')).toBe(
      '{"10":1e-07,"9":12345678901234567890,"a":[1.50,-0],"b":2.0}',
    );
  });

  it('decodes escapes and writes non-ASCII as is', () => {
    expect(render('{"k": "caf\\u00e9 \\ud83d\\ude00 \\/ \\u2028 \\"q\\""}')).toBe('{"k":"café 😀 / \u2028 \\"q\\""}');
  });

  it('finds the end of strings that end in escaped backslashes', () => {
    expect(render('["a\\\\", "b\\\\\\"c", "\\\\"]')).toBe('["a\\\\","b\\\\\\"c","\\\\"]');
  });

  it('normalizes escapes the way Python writes them', () => {
    expect(render('["\\u0001", "\\u000A", "\\u0022", "\\u005C", "\\u00E9", "\\u007f", "\\b\\f\\n\\r\\t"]')).toBe(
      '["\\u0001","\\n","\\"","\\\\","é","\u007f","\\b\\f\\n\\r\\t"]',
    );
  });

  it('sorts keys holding escapes by their code points', () => {
    expect(render('{"a": 1, "\\n": 2, "\\u0009": 3, "\\"": 4, "\\u00e9": 5, "z": 6}')).toBe(
      '{"\\t":3,"\\n":2,"\\"":4,"a":1,"z":6,"é":5}',
    );
  });

  it('refuses malformed input instead of reading past its end', () => {
    for (const text of ['"abc', '{"a": 1', '[1, 2', '{"a" 1}', '"\\u12"', '{"a":}', '']) {
      expect(() => render(text), text).toThrow();
    }
  });

  it('finds every quote and escape wherever it falls in a four-byte word', () => {
    // Plain runs are scanned four bytes at a time; stops at each offset, near the end too.
    for (let before = 0; before < 12; before++) {
      for (let after = 0; after < 12; after++) {
        for (const stop of ['\\u00e9', '\\"', '\\\\', '\\n', '\\u2014', '\\ud83d\\ude00', '']) {
          const wire = `{"k":"${'a'.repeat(before)}${stop}${'b'.repeat(after)}"}`;
          const expected = `{"k":${JSON.stringify(JSON.parse(wire).k)}}`;
          expect(render(wire), wire).toBe(expected);
        }
      }
    }
    for (let length = 0; length < 10; length++) {
      const text = `"${'x'.repeat(length)}"`;
      expect(render(text)).toBe(text);
      expect(() => render(text.slice(0, -1)), `unterminated, ${length}`).toThrow(SyntaxError);
    }
  });

  it('refuses a bad hex digit in any position of a \\u escape', () => {
    for (const badEscape of ['\\ug0e9', '\\u0ge9', '\\u00g9', '\\u00eg', '\\u00 9', '\\u-0e9']) {
      expect(() => render(`"caf${badEscape}"`), badEscape).toThrow(SyntaxError);
    }
    expect(render('"\\u00E9\\u00e9\\uFFFD"')).toBe('"éé\ufffd"');
  });

  it('renders scalars at the top level', () => {
    expect(render(' 2.0 ')).toBe('2.0');
    expect(render('"x"')).toBe('"x"');
    expect(render('[ ]')).toBe('[]');
  });

  it('rejects duplicate keys, also when written with different escapes', () => {
    expect(() => render('{"a": 1, "b": 2, "a": 3}')).toThrow(DuplicateKeyError);
    expect(() => render('{"x": {"\\u0061": 1, "a": 2}}')).toThrow(/duplicate key "a"/);
    // Small objects are sorted by insertion, large ones by the library sort: both find a distant duplicate.
    for (const count of [3, 16, 17, 40]) {
      const keys = Array.from({ length: count }, (_, k) => `"key${String(count - k).padStart(2, '0')}": ${k}`);
      expect(render(`{${keys.join(',')}}`)).toMatch(/^\{"key01":/);
      keys.splice(1, 0, keys[count - 1] as string);
      expect(() => render(`{${keys.join(',')}}`), String(count)).toThrow(DuplicateKeyError);
    }
  });

  it('orders keys by code point, not UTF-16 unit', () => {
    expect(compareCodePoints('\uff5e', '😀')).toBeLessThan(0);
    expect('\uff5e' < '😀').toBe(false); // what a naive sort would do
    expect(compareCodePoints('10', '9')).toBeLessThan(0);
    expect(compareCodePoints('a', 'ab')).toBeLessThan(0);
    expect(compareCodePoints('é', 'é')).toBe(0);
  });
});

describe("canonicalJson against the simulator's independent writer", () => {
  const random = seededRandom(20261122);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const alphabet = [
    'a',
    'Z',
    '0',
    '9',
    ' ',
    '"',
    '\\',
    '/',
    '\n',
    '\t',
    '\u0001',
    '\u001f',
    '\u007f',
    'é',
    'ß',
    '中',
    '\u2028',
    '\uff5e',
    '\ue000',
    '😀',
    '👩‍💻',
  ];
  const text = (): string => Array.from({ length: Math.floor(random() * 8) }, () => pick(alphabet)).join('');
  const value = (depth: number): PyValue => {
    const kind = depth > 4 ? Math.floor(random() * 4) : Math.floor(random() * 7);
    switch (kind) {
      case 0:
        return text();
      case 1:
        return pick([0, -1, 7, 2 ** 53 - 1, 1_767_225_600_123]);
      case 2:
        return new PyFloat(pick([2, 0.5, 1e-7, 1.5e300, -0, 123.456, 1e16, 3.25]));
      case 3:
        return pick([null, true, false, new PyInt(2n ** 70n)]);
      case 4:
        return Array.from({ length: Math.floor(random() * 4) }, () => value(depth + 1));
      default: {
        const object: { [key: string]: PyValue } = {};
        for (let k = Math.floor(random() * 6); k > 0; k--)
          object[pick([text(), String(Math.floor(random() * 20)), 'id', 'data'])] = value(depth + 1);
        return object;
      }
    }
  };

  it('agrees on 500 random documents', () => {
    for (let doc = 0; doc < 500; doc++) {
      const payload = value(0);
      const wire = Buffer.from(dumps(payload, WIRE), 'utf8');
      expect(canonicalJson(wire).toString('utf8')).toBe(dumps(payload, SIGNED));
    }
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
    [`${'A'.repeat(43)}=`, 'signature-mismatch'],
  ] as const)('%j → %s', (header, reason) => {
    expect(verifySignature(Buffer.from('{}'), header, keys)).toEqual({ ok: false, reason });
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
    expect(render(nest(1000))).toBe(nest(1000));
    expect(() => render(nest(1001))).toThrow(NestingTooDeepError);
    expect(() => render(`${'{"a":'.repeat(200_000)}1${'}'.repeat(200_000)}`)).toThrow(NestingTooDeepError);
  });
});
