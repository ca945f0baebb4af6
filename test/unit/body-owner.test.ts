import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bodyOwner } from '../../lambdas/core/ingress/body-owner';
import { quarantineOwner } from '../../lambdas/core/ingress/quarantine';

/** Member names spelled as JSON string literals: the one that counts (plain and escaped), near misses, escapes. */
const NAMES = [
  '"bot_id"',
  '"bot\\u005fid"',
  '"\\u0062ot_id"',
  '"bot\\u005Fid"',
  '"\\u0062\\u006f\\u0074\\u005f\\u0069\\u0064"',
  '"bot_i"',
  '"bot_id "',
  '"data"',
  '"\\""',
  '"a\\\\"',
  '""',
];
const SPACES = ['', ' ', '\n', '\t ', '\r\n'];

/** A top-level object of such members (some repeated), values of any JSON, with whitespace chosen at random. */
const object = fc
  .tuple(
    fc.array(
      fc.tuple(
        fc.constantFrom(...NAMES),
        fc.oneof(fc.string(), fc.constant(''), fc.jsonValue({ maxDepth: 3 })),
        fc.constantFrom(...SPACES),
      ),
      { maxLength: 6 },
    ),
    fc.constantFrom(...SPACES),
  )
  .map(
    ([members, space]) =>
      `${space}{${space}${members.map(([name, value, gap]) => `${name}${gap}:${gap}${JSON.stringify(value)}`).join(`${space},${space}`)}${space}}${space}`,
  );

describe('bodyOwner', () => {
  it('names the bot quarantineOwner finds in the parsed body, for any JSON text', () => {
    fc.assert(
      fc.property(fc.oneof(object, fc.json({ maxDepth: 4 })), (text) => {
        expect(bodyOwner(text)).toBe(quarantineOwner(JSON.parse(text)));
      }),
      { numRuns: 3000 },
    );
  });
});
