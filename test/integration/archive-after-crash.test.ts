/**
 * After a crash the service sends `fatal_error` first and uploads the recording
 * afterwards; until then it answers 404. The archive job, run by the real handler
 * from the FIFO archive queue, waits for the file (the queue makes it visible again
 * after a growing delay) instead of recording that there is none.
 */
import { HeadObjectCommand } from '@aws-sdk/client-s3';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { archiveHandlerOptions, createArchiveHandler } from '../../lambdas/archive/adapter';
import type { ArchiveRecord } from '../../lambdas/core/archive/archive-meeting';
import { UpstreamClient } from '../../lambdas/core/upstream/client';
import { sqsClient } from '../../lambdas/shared/aws-clients';
import { s3Client } from '../../lambdas/shared/s3-client';
import { QueuePoller } from '../../local/queue-poller';
import type { LocalResources } from '../../local/resources';
import { recordingSha256, type SimulatedBot, SimulatedServiceApi } from '../../local/simulator/api-server';
import { localArchive } from '../fixtures/local-archive';
import { createResources, type LocalPipeline, startLocalPipeline } from '../fixtures/local-pipeline';
import { meetingItem } from '../fixtures/store-reader';

const service = new SimulatedServiceApi();
let pipeline: LocalPipeline;
let resources: LocalResources;

beforeAll(async () => {
  pipeline = await startLocalPipeline();
  resources = await createResources({ visibilityTimeoutSeconds: 30 });
  await service.start();
  service.apiKeys.set('k', 'all');
});
afterAll(async () => {
  await service.stop();
  await pipeline?.stop();
});

/** The archive function as deployed, with a wait and delays in seconds instead of minutes. */
function archivePoller(recordingWaitMs: number) {
  const { env, deps } = localArchive(resources, {
    upstream: new UpstreamClient({ baseUrl: service.baseUrl, apiKey: async () => 'k', sleep: async () => undefined }),
    overrides: { UPSTREAM_BASE_URL: service.baseUrl, ALLOW_LOOPBACK_DOWNLOADS: 'true' },
  });
  const handler = createArchiveHandler(deps, {
    ...archiveHandlerOptions(env, sqsClient()),
    retry: { recordingWaitMs, pendingDelaySeconds: 1, failureDelaySeconds: 1, maxDelaySeconds: 2 },
  });
  let receives = 0;
  const poller = new QueuePoller({
    sqs: sqsClient(),
    queueUrl: resources.archiveQueueUrl,
    batchSize: 1,
    handler: async (event) => {
      receives += event.Records.length;
      return handler(event);
    },
  });
  return { poller, receives: () => receives };
}

async function queueJob(bot: SimulatedBot, reason: string): Promise<void> {
  await sqsClient().send(
    new SendMessageCommand({
      QueueUrl: resources.archiveQueueUrl,
      MessageBody: JSON.stringify({ bot_id: bot.id, reason }),
      MessageGroupId: bot.id,
      MessageDeduplicationId: `${bot.id}:${reason}`,
    }),
  );
}

async function archiveOf(bot: SimulatedBot, poller: QueuePoller, limitMs: number): Promise<ArchiveRecord | undefined> {
  for (const deadline = Date.now() + limitMs; Date.now() < deadline; ) {
    const archive = (await meetingItem(resources.tableName, bot.id))?.archive as ArchiveRecord | undefined;
    if (archive !== undefined) return archive;
    if ((await poller.pollOnce(0)) === 0) await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return undefined;
}

const RECORDING = { size: 3 * 1024 * 1024, seed: 41, contentType: 'video/mp4' };

describe('archive after fatal_error', () => {
  it('waits for a recording the service uploads after the crash, then archives it', async () => {
    const bot = service.addBot({ state: 'fatal_error', recording: null });
    const { poller, receives } = archivePoller(60_000);
    await queueJob(bot, 'fatal_error');
    expect(await archiveOf(bot, poller, 2_500)).toBeUndefined();
    expect(receives()).toBeGreaterThanOrEqual(2);

    bot.recording = RECORDING; // the service finished its upload
    const archive = await archiveOf(bot, poller, 10_000);
    expect(archive).toMatchObject({
      recordingStatus: 'archived',
      recording: { bytes: RECORDING.size, sha256: recordingSha256(RECORDING.seed, RECORDING.size) },
    });
    const head = await s3Client().send(
      new HeadObjectCommand({ Bucket: resources.recordingsBucket, Key: archive?.recording?.key }),
    );
    expect(head.ContentLength).toBe(RECORDING.size);
  });

  it('records that there is none once the wait is over', async () => {
    const bot = service.addBot({ state: 'fatal_error', recording: null });
    const { poller, receives } = archivePoller(3_000);
    const queuedAt = Date.now();
    await queueJob(bot, 'fatal_error');
    const archive = await archiveOf(bot, poller, 15_000);
    expect(archive).toMatchObject({ recordingStatus: 'none', recording: null });
    expect(Date.now() - queuedAt).toBeGreaterThanOrEqual(3_000);
    expect(receives()).toBeGreaterThanOrEqual(2);
  });

  it('does not wait after a meeting that ended normally', async () => {
    const bot = service.addBot({ state: 'ended', recording: null });
    const { poller, receives } = archivePoller(60_000);
    await queueJob(bot, 'ended');
    expect(await archiveOf(bot, poller, 5_000)).toMatchObject({ recordingStatus: 'none' });
    expect(receives()).toBe(1);
  });
});
