/**
 * The ingress checks JSON syntax by rendering the canonical form, and parses a body
 * only once its signature holds. These properties hold that decision to the one made
 * by parsing first (JSON.parse, then the previous renderer, then the HMAC): the same
 * bodies accepted, the same answer for every other body.
 */
import { createHmac, randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  acceptWebhook,
  type IngressDependencies,
  type WebhookOutcome,
} from '../../lambdas/core/ingress/accept-webhook';
import { canonicalJson, rawControlInString } from '../../lambdas/core/signature/canonical-json';
import { parseSigningSecrets } from '../../lambdas/core/signature/verify';
import { silentTelemetry } from '../../lambdas/core/telemetry';
import { signWebhook } from '../../local/simulator/webhook-signer';
import { canonicalJson as referenceCanonicalJson } from '../fixtures/canonical-json-reference';

const secret = randomBytes(32).toString('base64');
const keys = parseSigningSecrets(secret);

function ingressDependencies(): IngressDependencies {
  return {
    signingKeys: async () => keys,
    queue: { enqueue: async () => ({ messageId: 'm1', bodyLocation: 'inline' }) },
    maxBodyBytes: 1 << 20,
    telemetry: silentTelemetry,
    now: () => new Date('2026-11-20T10:00:00Z'),
  };
}

/** The decision as it was made before: UTF-8, JSON.parse, then the previous renderer and the HMAC. */
function decisionByParsingFirst(body: Buffer, signature: string): { status: number; reason: string } {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(body);
  } catch {
    return { status: 400, reason: 'invalid-utf8' };
  }
  try {
    JSON.parse(text);
  } catch {
    return { status: 400, reason: 'invalid-json' };
  }
  let canonical: Buffer;
  try {
    canonical = referenceCanonicalJson(body);
  } catch (error) {
    return {
      status: 400,
      reason: (error as Error).name === 'DuplicateKeyError' ? 'duplicate-key' : 'too-deeply-nested',
    };
  }
  const expected = createHmac('sha256', keys[0] as Buffer)
    .update(canonical)
    .digest('base64');
  return expected === signature ? { status: 202, reason: 'accepted' } : { status: 401, reason: 'signature-mismatch' };
}

const answer = (outcome: WebhookOutcome) => ({
  status: outcome.status,
  reason: outcome.kind === 'accepted' ? 'accepted' : outcome.reason,
});

/** Bytes an edit puts in: JSON's punctuation, number and literal spellings, escapes, controls, multi-byte text. */
const EDIT_TEXT = [
  ...'{}[]:,"\\ \t\n\r0123456789-+.eEtrufalsn/bx',
  '\u0000',
  '\u0001',
  '\u001f',
  'é',
  '😀',
  '\\u00e9',
  '\\ud83d',
  '\\u00',
  'true',
  'null',
  '01',
  '1.',
  '-0',
  '1e+',
  '"a":1',
  ',"a":2',
];

/** A signed webhook, then a few random edits (insert, delete or replace at a random place) to its body. */
const editedWebhook = fc
  .tuple(
    fc.jsonValue({ maxDepth: 3 }),
    fc.array(fc.tuple(fc.nat(), fc.constantFrom('insert', 'delete', 'replace'), fc.constantFrom(...EDIT_TEXT)), {
      maxLength: 3,
    }),
  )
  .map(([data, edits]) => {
    const signed = signWebhook(
      { bot_id: 'bot_1', trigger: 'transcript.update', data: JSON.parse(JSON.stringify(data) ?? 'null') },
      secret,
    );
    let text = signed.body.toString('utf8');
    for (const [at, kind, piece] of edits) {
      const where = at % (text.length + 1);
      const cut = kind === 'insert' ? 0 : 1;
      text = text.slice(0, where) + (kind === 'delete' ? '' : piece) + text.slice(where + cut);
    }
    return { body: Buffer.from(text, 'utf8'), signature: signed.signature };
  });

describe('the ingress decision, rendering before parsing', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('answers every signed or edited body as parsing first did', async () => {
    await fc.assert(
      fc.asyncProperty(editedWebhook, async ({ body, signature }) => {
        const expected = decisionByParsingFirst(body, signature);
        const actual = answer(await acceptWebhook({ body, signature }, ingressDependencies()));
        if (expected.reason === 'invalid-json' && ['duplicate-key', 'too-deeply-nested'].includes(actual.reason)) {
          // Malformed and ambiguous at once: the rendering names what it meets first; refused either way.
          expect(actual.status).toBe(400);
        } else {
          expect(actual).toEqual(expected);
        }
      }),
      { numRuns: 1500 },
    );
  });

  it('refuses with a SyntaxError only what JSON.parse refuses, and renders nothing JSON.parse refuses but raw controls', () => {
    const text = fc.oneof(
      editedWebhook.map(({ body }) => body.toString('utf8')),
      fc.array(fc.constantFrom(...EDIT_TEXT), { maxLength: 12 }).map((pieces) => pieces.join('')),
      // A scalar spelled at random, alone and as a value in an array and an object.
      fc
        .tuple(fc.array(fc.constantFrom(...'-+.eE0123456789truefalsn'), { minLength: 1, maxLength: 7 }), fc.nat(2))
        .map(([token, place]) => [token.join(''), `[${token.join('')}]`, `{"a":${token.join('')}}`][place] as string),
    );
    fc.assert(
      fc.property(text, (json) => {
        const body = Buffer.from(json, 'utf8');
        let parses = true;
        try {
          JSON.parse(json);
        } catch {
          parses = false;
        }
        let refusal: unknown;
        try {
          canonicalJson(body);
        } catch (error) {
          refusal = error;
        }
        if (refusal === undefined) expect(parses).toBe(!rawControlInString(body));
        if (refusal instanceof SyntaxError) expect(parses).toBe(false);
      }),
      { numRuns: 3000 },
    );
  });

  it('never parses a body whose signature fails, and files it in quarantine under the bot it names', async () => {
    const kept: Array<string | undefined> = [];
    const deps: IngressDependencies = {
      ...ingressDependencies(),
      quarantine: {
        keep: async ({ owner }) => {
          kept.push(owner);
          return { kept: true, key: 'k' };
        },
      },
    };
    const parse = vi.spyOn(JSON, 'parse');
    const { body } = signWebhook({ bot_id: 'bot_1', trigger: 'transcript.update', data: { a: [1, 2.5, 'é'] } }, secret);
    const outcome = await acceptWebhook({ body, signature: `${'A'.repeat(43)}=` }, deps);
    expect(answer(outcome)).toEqual({ status: 401, reason: 'signature-mismatch' });
    expect(parse).not.toHaveBeenCalledWith(body.toString('utf8'));
    expect(kept).toEqual(['bot_1']);
  });
});
