/**
 * P1b: the ingress's cost for hostile bodies. Anyone can POST to the webhook URL, so
 * every body up to the size limit must be verified or refused quickly. Each body is
 * run through the ingress decision itself (size, UTF-8, then JSON syntax and signature
 * in one canonical rendering), with a valid-looking signature so the whole rendering
 * is paid for, and offered to a quarantine whose caps are reached, as in a flood (the
 * bot the body names is read to file it; the caps' own table call is not counted).
 */
import { randomBytes } from 'node:crypto';
import { acceptWebhook } from '../lambdas/core/ingress/accept-webhook';
import { parseSigningSecrets } from '../lambdas/core/signature/verify';
import { silentTelemetry } from '../lambdas/core/telemetry';
import { DEFAULT_MAX_WEBHOOK_BODY_BYTES } from '../lib/config';
import { GOALS } from './goals';
import { median } from './stats';

const GOAL_MS = GOALS.hostileBodyMs;

/** A deterministic stream of key suffixes, so a run shuffles keys the same way each time. */
function suffixes(): () => string {
  let state = 0x2545f491;
  return () => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return state.toString(36);
  };
}

/** Comma-joins `make(i)` parts inside `open`/`close` until the body would pass `size` bytes. */
function filled(size: number, open: string, close: string, make: (i: number) => string): Buffer {
  const parts: string[] = [];
  let length = open.length + close.length;
  for (let i = 0; ; i++) {
    const part = make(i);
    if (length + part.length + 1 > size) break;
    parts.push(part);
    length += part.length + 1;
  }
  return Buffer.from(`${open}${parts.join(',')}${close}`);
}

/** Bodies built to be slow to check, each as close to `size` bytes as it gets. */
export function adversarialBodies(size: number): Record<string, Buffer> {
  const next = suffixes();
  const run = (unit: string, wrapper = 10) => unit.repeat(Math.floor((size - wrapper) / unit.length));
  return {
    'shuffled keys with short escapes': filled(size, '{', '}', (i) => `"\\n${next()}${i}":0`),
    'shuffled keys with \\u escapes': filled(size, '{', '}', (i) => `"\\u00e9${next()}${i}":0`),
    'shuffled plain keys': filled(size, '{', '}', (i) => `"k${next()}${i}":1`),
    'keys alike but for the end': filled(size, '{', '}', (i) => `"${'a'.repeat(40)}\\t${next()}${i}":1`),
    'many small objects to sort': filled(size, '[', ']', (i) => `{"b${i % 7}":1,"a":2}`),
    'empty arrays': filled(size, '[', ']', () => '[]'),
    'deepest allowed nesting, repeated': filled(size, '[', ']', () => `${'['.repeat(998)}${']'.repeat(998)}`),
    'one long run of escapes': Buffer.from(`{"a":"${run('\\u00e9')}"}`),
    'one long run of surrogate pairs': Buffer.from(`{"a":"${run('\\ud83d\\ude00')}"}`),
    'one long run of short escapes': Buffer.from(`{"a":"${run('\\n\\"')}"}`),
    'numbers with long spellings': filled(size, '[', ']', () => `1.${'0'.repeat(60)}e-300`),
  };
}

export async function benchAdversarial(): Promise<string[]> {
  const size = DEFAULT_MAX_WEBHOOK_BODY_BYTES;
  const keys = parseSigningSecrets(randomBytes(32).toString('base64'));
  const signature = `${'A'.repeat(43)}=`;
  const deps = {
    signingKeys: async () => keys,
    queue: {
      enqueue: async () => {
        throw new Error('an unsigned body reached the queue');
      },
    },
    maxBodyBytes: size,
    quarantine: { keep: async () => ({ kept: false as const, why: 'capped' as const, cap: 'per-minute' as const }) },
    telemetry: silentTelemetry,
    now: () => new Date(),
  };
  const rows: Array<{ name: string; bytes: number; ms: number; outcome: string }> = [];
  for (const [name, body] of Object.entries(adversarialBodies(size))) {
    const times: number[] = [];
    let outcome = '';
    for (let round = 0; round < 5; round++) {
      const start = process.hrtime.bigint();
      const result = await acceptWebhook({ body, signature }, deps);
      times.push(Number(process.hrtime.bigint() - start) / 1e6);
      outcome = `${result.status} ${'reason' in result ? result.reason : result.kind}`;
    }
    rows.push({ name, bytes: body.length, ms: median(times), outcome });
  }
  const worst = rows.reduce((a, b) => (b.ms > a.ms ? b : a));
  return [
    `hostile bodies (P1b): the ingress decision on ${rows.length} bodies of up to ${size} bytes (the default limit), median of 5`,
    ...rows.map(
      (row) =>
        `  ${row.name.padEnd(36)} ${String(row.bytes).padStart(8)} B  ${row.ms.toFixed(1).padStart(7)} ms  ${row.outcome}`,
    ),
    `  worst case: ${worst.ms.toFixed(1)} ms (${worst.name}) — ${worst.ms <= GOAL_MS ? 'meets' : 'MISSES'} goal ≤ ${GOAL_MS} ms`,
  ];
}
