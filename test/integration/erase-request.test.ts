/**
 * `DELETE /meetings/{bot_id}` without `force`: a bot is "never seen" only when the erasure's own
 * stock-take finds nothing of it. A bot whose only trace is a webhook refused for its signature
 * (quarantined, still holding its text) is erased, not answered 404.
 */
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ErasureReceipt } from '../../lambdas/core/erase/receipt';
import { quarantineKey } from '../../lambdas/core/ingress/quarantine';
import { createEraseApiHandler } from '../../lambdas/erase/adapter';
import { s3Client } from '../../lambdas/shared/s3-client';
import { type EraseWorld, eraseDeps, startEraseWorld } from '../fixtures/erase-harness';
import { httpApiEvent } from '../fixtures/webhooks';

let world: EraseWorld;
beforeAll(async () => {
  world = await startEraseWorld();
}, 60_000);
afterAll(async () => {
  await world?.stop();
});

const deleteRequest = (botId: string) => ({
  ...httpApiEvent(Buffer.alloc(0), {}),
  routeKey: 'DELETE /meetings/{bot_id}',
  pathParameters: { bot_id: botId },
});

describe('erasing on request without force', () => {
  it('answers 404 for a bot of which nothing is held', async () => {
    const answer = await createEraseApiHandler(eraseDeps(world))(deleteRequest('bot_nothing_held'));
    expect(answer.statusCode).toBe(404);
    expect(JSON.parse(String(answer.body)).error.code).toBe('not-found');
  });

  it('erases a bot whose only trace is a quarantined webhook', async () => {
    const botId = 'bot_only_quarantined';
    const key = quarantineKey(new Date(), 'a'.repeat(64), 'v1=forged', botId);
    await s3Client().send(
      new PutObjectCommand({
        Bucket: world.resources.payloadBucket,
        Key: key,
        Body: JSON.stringify({ body: `{"bot_id":"${botId}","data":{"transcription":"private words"}}` }),
      }),
    );
    const answer = await createEraseApiHandler(eraseDeps(world))(deleteRequest(botId));
    expect(answer.statusCode).toBe(200);
    const receipt = JSON.parse(String(answer.body)) as ErasureReceipt;
    expect(receipt.counts.payload_objects).toBe(1);
    expect(receipt.never_seen).toBeUndefined();
  });
});
