import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { dumps, PyFloat, PyInt, type PyValue, SIGNED, WIRE } from '../../local/simulator/python-json';
import { signWebhook } from '../../local/simulator/webhook-signer';

// The simulator's writer must agree with Python itself, independently of our verifier.
// (JavaScript enumerates integer-like keys first, so the literal lists "9" before "10".)
function python(source: string): string {
  return execFileSync('python3', ['-c', source], { encoding: 'utf8' }).replace(/\n$/, '');
}

const payload: PyValue = {
  idempotency_key: 'k-1',
  bot_id: 'bot_abc',
  bot_metadata: {
    '10': 1,
    '9': new PyFloat(2),
    é: 'café ☕ 😀 \u2028',
    '\uff5e': [new PyFloat(1e-7), new PyFloat(1.5e300)],
  },
  trigger: 'transcript.update',
  data: {
    big: new PyInt(2n ** 64n + 1n),
    neg: new PyFloat(-0),
    tenth: 0.1,
    e16: new PyFloat(1e16),
    e15: new PyFloat(1e15),
    text: 'a"b\\c\n\u0001\u007f',
    nested: [[], {}, [null, true, false]],
  },
};
const pythonLiteral = `{"idempotency_key": "k-1", "bot_id": "bot_abc", "bot_metadata": {"9": 2.0, "10": 1, "\\u00e9": "caf\\u00e9 \\u2615 \\U0001F600 \\u2028", "\\uff5e": [1e-7, 1.5e300]}, "trigger": "transcript.update", "data": {"big": 2**64 + 1, "neg": -0.0, "tenth": 0.1, "e16": 1e16, "e15": 1e15, "text": "a\\"b\\\\c\\n\\u0001\\u007f", "nested": [[], {}, [None, True, False]]}}`;

describe('simulator JSON writer', () => {
  it('writes the wire form exactly as json.dumps does', () => {
    expect(dumps(payload, WIRE)).toBe(python(`import json; print(json.dumps(${pythonLiteral}))`));
  });

  it('writes the signed form exactly as the sorted compact json.dumps does', () => {
    const expected = python(
      `import json, sys; sys.stdout.buffer.write(json.dumps(${pythonLiteral}, sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode())`,
    );
    expect(dumps(payload, SIGNED)).toBe(expected);
  });

  it.each([2.0, 0.5, 1e-5, 0.0001, 123456.789, 1e16, 9.999e15, 5e-324, 1.7976931348623157e308, -2.5e-7])(
    'repr(%d)',
    (value) => {
      expect(dumps(new PyFloat(value), WIRE)).toBe(python(`print(repr(float("${String(value)}")))`));
    },
  );

  it('signs with the base64-decoded secret', () => {
    const secret = Buffer.alloc(32, 7).toString('base64');
    const { signature } = signWebhook(payload, secret);
    const expected = python(
      `import json, hmac, hashlib, base64; p = ${pythonLiteral}; print(base64.b64encode(hmac.new(base64.b64decode("${secret}"), json.dumps(p, sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode(), hashlib.sha256).digest()).decode())`,
    );
    expect(signature).toBe(expected);
  });
});
