/**
 * Every delivery of an event carries the time the ingress first accepted it, so
 * re-sends are ordered the same whichever delivery is processed first.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acceptWebhook, type IngressDependencies } from '../../lambdas/core/ingress/accept-webhook';
import type { EventQueue, QueuedEventMeta } from '../../lambdas/core/ingress/event-queue';
import { acceptanceClock, tableAcceptanceLog } from '../../lambdas/core/ingress/first-acceptance';
import { parseSigningSecrets } from '../../lambdas/core/signature/verify';
import { silentTelemetry } from '../../lambdas/core/telemetry';
import { dynamoClient } from '../../lambdas/shared/dynamo-plain-client';
import { signWebhook } from '../../local/simulator/webhook-signer';
import { createResources, type LocalPipeline, startLocalPipeline } from '../fixtures/local-pipeline';
import { newSigningSecret, transcriptEnvelope } from '../fixtures/webhooks';

let pipeline: LocalPipeline;
let tableName: string;
const secret = newSigningSecret();

beforeAll(async () => {
  pipeline = await startLocalPipeline();
  tableName = (await createResources()).tableName;
});
afterAll(async () => pipeline?.stop());

function ingressAt(times: number[], queued: QueuedEventMeta[], db = dynamoClient()): IngressDependencies {
  let call = 0;
  const now = () => new Date(times[Math.min(call++, times.length - 1)] as number);
  const queue: EventQueue = {
    enqueue: async (_body, meta) => {
      queued.push(meta);
      return { messageId: randomUUID(), bodyLocation: 'inline' };
    },
  };
  return {
    signingKeys: async () => parseSigningSecrets(secret),
    queue,
    maxBodyBytes: 1 << 20,
    telemetry: silentTelemetry,
    now,
    acceptedAt: acceptanceClock(now),
    acceptance: tableAcceptanceLog(db, tableName, { retentionSeconds: 86_400, now: Date.now }),
  };
}

describe('first acceptance', () => {
  it('gives a re-sent event the time it was first accepted', async () => {
    const { body, signature } = signWebhook(transcriptEnvelope(), secret);
    const queued: QueuedEventMeta[] = [];
    const t0 = Date.parse('2026-11-22T10:00:00.000Z');
    // Accepted, then re-sent 12 s later (our answer was slow), then once more after a minute.
    for (const at of [t0, t0 + 12_000, t0 + 60_000]) {
      const outcome = await acceptWebhook({ body, signature }, ingressAt([at], queued));
      expect(outcome.status).toBe(202);
    }
    expect(queued.map((meta) => meta.receivedAt)).toEqual(Array(3).fill('2026-11-22T10:00:00.000000Z'));
  });

  it('keeps acceptances in the same millisecond in order, and in string order', () => {
    const at = Date.parse('2026-11-22T10:00:00.005Z');
    const clock = acceptanceClock(() => new Date(at));
    const stamps = Array.from({ length: 5 }, () => clock());
    expect(stamps[0]).toBe('2026-11-22T10:00:00.005000Z');
    expect(stamps[4]).toBe('2026-11-22T10:00:00.005004Z');
    expect([...stamps].sort()).toEqual(stamps);
    // A clock stepping back does not reorder what this process accepts.
    let now = at;
    const stepping = acceptanceClock(() => new Date(now));
    const first = stepping();
    now = at - 3;
    expect(stepping() > first).toBe(true);
    now = at + 1;
    expect(stepping()).toBe('2026-11-22T10:00:00.006000Z');
  });

  it('still accepts, with its own time, when the record cannot be reached', async () => {
    const broken = dynamoClient();
    broken.send = async () => {
      throw Object.assign(new Error('connect ECONNREFUSED'), { name: 'TimeoutError' });
    };
    const { body, signature } = signWebhook(transcriptEnvelope(), secret);
    const queued: QueuedEventMeta[] = [];
    const outcome = await acceptWebhook(
      { body, signature },
      ingressAt([Date.parse('2026-11-22T11:00:00.000Z')], queued, broken),
    );
    expect(outcome.status).toBe(202);
    expect(queued.map((meta) => meta.receivedAt)).toEqual(['2026-11-22T11:00:00.000000Z']);
  });
});
