/**
 * `DELETE /meetings/{bot_id}` without `force`: a bot is "never seen" only when the erasure's own
 * stock-take finds nothing of it. A bot whose only trace is a webhook refused for its signature
 * (quarantined, still holding its text) is erased, not answered 404. Athena results a search left
 * are no evidence of any bot: they keep a mistyped id a 404, and are deleted when a bot is erased.
 */
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import type { ErasureReceipt } from '../../lambdas/core/erase/receipt';
import { quarantineKey } from '../../lambdas/core/ingress/quarantine';
import { LAKE_RESULTS_PREFIX } from '../../lambdas/core/lake/lake-layout';
import { createEraseApiHandler } from '../../lambdas/erase/adapter';
import { s3Client } from '../../lambdas/shared/s3-client';
import { s3LakeObjects } from '../../lambdas/shared/s3-lake-objects';
import { eraseDeps, eraseWorldOfFile, seedMeeting } from '../fixtures/erase-harness';
import { meetingItem } from '../fixtures/store-reader';
import { httpApiEvent } from '../fixtures/webhooks';

const world = eraseWorldOfFile();

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

describe('erasing on request after a search', () => {
  it('answers 404 for an unknown bot, with no tombstone; a real bot’s erasure deletes the results', async () => {
    // What an Athena query leaves in the workgroup's result location: its rows and their metadata.
    const lake = s3LakeObjects(s3Client(), world.recordingsBucket);
    const results = [`${LAKE_RESULTS_PREFIX}search-1.csv`, `${LAKE_RESULTS_PREFIX}search-1.csv.metadata`];
    for (const key of results) await lake.put(key, Buffer.from('"text"\n"our pricing"\n'));

    const mistyped = 'bot_doesnotexist';
    const answer = await createEraseApiHandler(eraseDeps(world))(deleteRequest(mistyped));
    expect(answer.statusCode).toBe(404);
    expect(await meetingItem(world.resources.tableName, mistyped)).toBeUndefined();
    expect((await lake.list(LAKE_RESULTS_PREFIX)).map(({ key }) => key)).toEqual(results);

    const { botId } = await seedMeeting(world);
    const erased = await createEraseApiHandler(eraseDeps(world))(deleteRequest(botId));
    expect(erased.statusCode).toBe(200);
    expect((JSON.parse(String(erased.body)) as ErasureReceipt).counts.query_results).toBe(results.length);
    expect(await lake.listVersions(lake.bucket, LAKE_RESULTS_PREFIX)).toEqual([]);
  });
});
