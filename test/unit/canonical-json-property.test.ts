import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../lambdas/core/signature/canonical-json';
import { parseSigningSecrets, verifyWebhookBody } from '../../lambdas/core/signature/verify';
import { seededRandom } from '../../local/seeded-random';
import { dumps, PyFloat, PyInt, type PyValue, SIGNED, WIRE } from '../../local/simulator/python-json';
import { signWebhook } from '../../local/simulator/webhook-signer';
import { canonicalJson as referenceCanonicalJson } from '../fixtures/canonical-json-reference';

/** Characters that stress escaping and key order: controls, quote, backslash, multi-byte, astral, lone surrogates. */
const TRICKY_CHARACTERS = [
  'a',
  'b',
  'Z',
  '0',
  '9',
  ' ',
  '"',
  '\\',
  '/',
  '\n',
  '\t',
  '\b',
  '\f',
  '\r',
  '\u0000',
  '\u0001',
  '\u001f',
  '\u007f',
  'é',
  'ß',
  '中',
  '\u2028',
  '\ud7ff',
  '\ue000',
  '\uff5e',
  '\uffff',
  '😀',
  '\u{10ffff}',
  '\ud83d',
  '\ude00',
  '\udc00',
];
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

const trickyText = fc
  .array(fc.constantFrom(...TRICKY_CHARACTERS), { maxLength: 12 })
  .map((characters) => characters.join(''));
const anyText = fc.oneof(trickyText, fc.string({ unit: 'binary', maxLength: 20 }), fc.string({ maxLength: 8 }));
/** Keys alike for a long stretch, so comparisons run past any prefix shortcut; short keys alike but for the end. */
const key = fc.oneof(
  anyText,
  fc
    .tuple(fc.constantFrom('', 'a', 'aa', 'a'.repeat(24), 'prefix_'.repeat(4), '\u00e9'.repeat(10)), trickyText)
    .map(([prefix, rest]) => prefix + rest),
  fc.integer({ min: 0, max: 30 }).map(String),
);
const number = fc.oneof(
  fc.integer(),
  fc.constantFrom(0, -1, 2 ** 53 - 1, -(2 ** 53) + 1, 1_767_225_600_123),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((value) => new PyFloat(value)),
  fc.constantFrom(-0, 0.1, 1e-7, 1e16, 1.5e300, 5e-324, 2).map((value) => new PyFloat(value)),
  fc.bigInt({ min: -(2n ** 80n), max: 2n ** 80n }).map((value) => new PyInt(value)),
);

const { value: pyValue } = fc.letrec<{ value: PyValue }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    anyText,
    number,
    fc.constantFrom(null, true, false),
    fc.array(tie('value'), { maxLength: 5 }),
    // Past 16 members objects are sorted by the library sort rather than by insertion.
    fc.dictionary(key, tie('value'), { maxKeys: 24 }),
  ),
}));

const wellFormed = (value: PyValue): boolean => !LONE_SURROGATE.test(dumps(value, { ...SIGNED, ensureAscii: false }));

/** Another spelling the service could send: raw UTF-8, odd whitespace. */
const RAW_SPACED = { sortKeys: false, ensureAscii: false, itemSeparator: ' ,\n ', keySeparator: '\t: ' };

describe('canonicalJson, properties', () => {
  it("renders the service's signed form from any way it spells a value", () => {
    fc.assert(
      fc.property(pyValue.filter(wellFormed), (value) => {
        const signed = Buffer.from(dumps(value, SIGNED), 'utf8');
        expect(canonicalJson(Buffer.from(dumps(value, WIRE), 'utf8')).equals(signed)).toBe(true);
        expect(canonicalJson(Buffer.from(dumps(value, RAW_SPACED), 'utf8')).equals(signed)).toBe(true);
      }),
      { numRuns: 400 },
    );
  });

  /**
   * Any JSON text, spelled with escapes chosen at random (lowercase or uppercase
   * `\u`, `\/`, raw characters), and with keys repeated in some objects: the
   * output, or the error, is the previous renderer's, byte for byte.
   */
  it('renders any JSON text exactly as the previous renderer did, duplicate keys and lone surrogates included', () => {
    const spelled = fc.tuple(pyValue, fc.integer(), fc.boolean()).map(([value, seed, repeatKeys]) => {
      const random = seededRandom(seed);
      return Buffer.from(spell(value, random, repeatKeys), 'utf8');
    });
    fc.assert(
      fc.property(spelled, (body) => {
        expect(outcome(() => canonicalJson(body))).toEqual(outcome(() => referenceCanonicalJson(body)));
      }),
      { numRuns: 600 },
    );
  });
});

describe('canonicalJson, large objects', () => {
  /**
   * Past 16 members, objects are sorted by their keys' first bytes natively and
   * then in full among keys alike in those bytes: many keys here share long
   * prefixes, some are prefixes of others, and one key may be repeated.
   */
  it('orders and checks large objects of alike keys as the previous renderer did', () => {
    const alikeKey = fc
      .tuple(fc.constantFrom('', 'a', 'aaa', 'aaaa', 'aaaaaaa', '\u00e9\u00e9', 'k\u0000'), trickyText)
      .map(([prefix, rest]) => prefix + rest);
    const object = fc
      .tuple(
        fc.uniqueArray(alikeKey, { minLength: 17, maxLength: 80 }),
        fc.option(fc.nat(), { nil: undefined }),
        fc.integer(),
      )
      .map(([names, repeated, seed]) => {
        const random = seededRandom(seed);
        const members = names.map((name, index) => `${spellString(name, random)}:${index}`);
        if (repeated !== undefined) {
          const name = names[repeated % names.length] as string;
          members.splice(Math.floor(random() * members.length), 0, `${spellString(name, random)}:-1`);
        }
        return Buffer.from(`{${members.join(',')}}`, 'utf8');
      });
    fc.assert(
      fc.property(object, (body) => {
        expect(outcome(() => canonicalJson(body))).toEqual(outcome(() => referenceCanonicalJson(body)));
      }),
      { numRuns: 300 },
    );
  });
});

describe('verifyWebhookBody, properties', () => {
  const secret = randomBytes(32).toString('base64');
  const keys = parseSigningSecrets(secret);

  it("accepts what the simulator's signer signed and refuses a changed body or signature", () => {
    const payload = fc.record({ data: pyValue, note: anyText }).filter(wellFormed);
    fc.assert(
      fc.property(
        payload,
        trickyText.filter((text) => text !== ''),
        (value, change) => {
          const { body, signature } = signWebhook(value, secret);
          expect(verifyWebhookBody(body, signature, keys)).toEqual({ ok: true });
          const changed = signWebhook({ ...value, note: value.note + change }, secret);
          expect(verifyWebhookBody(changed.body, signature, keys)).toEqual({ ok: false, reason: 'signature-mismatch' });
          const flipped = Buffer.from(signature, 'base64');
          flipped[0] = (flipped[0] as number) ^ 1;
          expect(verifyWebhookBody(body, flipped.toString('base64'), keys)).toEqual({
            ok: false,
            reason: 'signature-mismatch',
          });
        },
      ),
      { numRuns: 300 },
    );
  });
});

function outcome(render: () => Buffer): { bytes: string } | { error: string } {
  try {
    return { bytes: render().toString('hex') };
  } catch (error) {
    return { error: `${(error as Error).name}: ${(error as Error).message}` };
  }
}

/** JSON text for `value` with whitespace and escapes chosen by `random`; some object keys repeated when asked. */
function spell(value: PyValue, random: () => number, repeatKeys: boolean): string {
  const space = () => [' ', '', '\n', '\t ', '\r\n'][Math.floor(random() * 5)] as string;
  if (typeof value === 'string') return spellString(value, random);
  if (Array.isArray(value))
    return `[${space()}${value.map((item) => spell(item, random, repeatKeys)).join(`,${space()}`)}]`;
  if (value === null || typeof value !== 'object' || value instanceof PyFloat || value instanceof PyInt)
    return dumps(value, WIRE);
  const members = Object.entries(value).map(
    ([name, item]) => `${spellString(name, random)}${space()}:${space()}${spell(item, random, repeatKeys)}`,
  );
  if (repeatKeys && members.length > 0 && random() < 0.3) {
    // The same key again, spelled afresh, somewhere in the object.
    const name = Object.keys(value)[Math.floor(random() * members.length)] as string;
    members.splice(Math.floor(random() * members.length), 0, `${spellString(name, random)}:0`);
  }
  return `{${space()}${members.join(`${space()},${space()}`)}${space()}}`;
}

const SHORT_ESCAPES: Record<string, string> = {
  '"': '\\"',
  '\\': '\\\\',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\b': '\\b',
  '\f': '\\f',
};

function spellString(text: string, random: () => number): string {
  let out = '"';
  for (const unit of text.split('')) {
    const code = unit.charCodeAt(0);
    const choice = random();
    const short = SHORT_ESCAPES[unit];
    if (short !== undefined && choice >= 0.5) {
      out += short;
    } else if (unit === '"' || unit === '\\' || code < 0x20 || choice < 0.3) {
      const hex = code.toString(16).padStart(4, '0');
      out += `\\u${choice < 0.15 ? hex.toUpperCase() : hex}`;
    } else if (unit === '/' && choice < 0.6) {
      out += '\\/';
    } else {
      out += unit;
    }
  }
  return `${out}"`;
}
