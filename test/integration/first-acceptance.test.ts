/**
 * Every delivery of an event carries the time the ingress first accepted it, so
 * re-sends are ordered the same whichever delivery is processed first. That time
 * is the event's ledger record, which the ingress writes on the first delivery.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventLedger } from '../../lambdas/core/events/event-ledger';
import { acceptWebhook, type IngressDependencies } from '../../lambdas/core/ingress/accept-webhook';
import type { EventQueue, QueuedEventMeta } from '../../lambdas/core/ingress/event-queue';
import { acceptanceClock, tableAcceptanceLog } from '../../lambdas/core/ingress/first-acceptance';
import { parseSigningSecrets } from '../../lambdas/core/signature/verify';
import { silentTelemetry } from '../../lambdas/core/telemetry';
import { documentClient } from '../../lambdas/shared/dynamo-client';
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

/** The ledger's records of one bot (or related object), as the consumer and replay read them. */
const ledgerOf = (owner: string) =>
  new EventLedger(
    { db: documentClient(), tableName },
    { leaseMs: 60_000, retentionSeconds: 86_400, now: Date.now },
  ).eventsOfBot(owner);

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
    // The record is the event's ledger record: written once, by the first delivery, with the raw body.
    expect(queued.map((meta) => meta.recorded)).toEqual([true, true, true]);
    const recorded = (await ledgerOf('bot_7Gh2kLm9Qa')).filter((e) => e.idempotencyKey === queued[0]?.idempotencyKey);
    expect(recorded).toEqual([
      {
        idempotencyKey: queued[0]?.idempotencyKey,
        botId: 'bot_7Gh2kLm9Qa',
        trigger: 'transcript.update',
        receivedAt: '2026-11-22T10:00:00.000000Z',
        status: 'recorded',
        body: { inline: body.toString('utf8') },
      },
    ]);
  });

  it('records a webhook without a bot under the object it is about', async () => {
    const envelope = { idempotency_key: `cal-${randomUUID()}`, trigger: 'calendar.update', calendar_id: 'cal_42' };
    const { body, signature } = signWebhook(envelope, secret);
    const queued: QueuedEventMeta[] = [];
    const t0 = Date.parse('2026-11-22T12:00:00.000Z');
    for (const at of [t0, t0 + 5_000]) await acceptWebhook({ body, signature }, ingressAt([at], queued));
    expect(queued.map((meta) => [meta.botId, meta.receivedAt, meta.recorded])).toEqual([
      ['', '2026-11-22T12:00:00.000000Z', true],
      ['', '2026-11-22T12:00:00.000000Z', true],
    ]);
    expect(await ledgerOf('calendar:cal_42')).toEqual([
      expect.objectContaining({
        idempotencyKey: envelope.idempotency_key,
        trigger: 'calendar.update',
        status: 'recorded',
        body: { inline: body.toString('utf8') },
      }),
    ]);
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
    // Not in the ledger: the message says so, and the consumer records it.
    expect(queued.map((meta) => meta.recorded)).toEqual([false]);
  });
});
