/**
 * The reconciler at the scale users run: 300 meetings archived long ago (still in
 * the state index, as data written before the archive left it), 60 bots stale for
 * good (30 abandoned in `ready`, 30 the service no longer knows), 40 meetings
 * whose state webhooks were 30% dropped, and 20 bots our launcher created that
 * never sent a webhook at all. Within two runs (50 meetings each) every one of
 * the 60 is healed and archived, and nothing archived gets a job.
 */
import { CreateBucketCommand } from '@aws-sdk/client-s3';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createArchiveHandler, lakeWriterDependencies } from '../../lambdas/archive/adapter';
import { openDownload } from '../../lambdas/core/archive/download-guard';
import { DEFAULT_RECORDING_TRANSFER } from '../../lambdas/core/archive/recording-transfer';
import { type ProcessDependencies, processQueuedEvent } from '../../lambdas/core/events/process-event';
import { type ReconcileReport, reconcileMeetings } from '../../lambdas/core/reconcile/reconcile-meetings';
import { keys } from '../../lambdas/core/store/table-layout';
import { silentTelemetry } from '../../lambdas/core/telemetry';
import { UpstreamClient } from '../../lambdas/core/upstream/client';
import { sqsClient } from '../../lambdas/shared/aws-clients';
import { s3Client } from '../../lambdas/shared/s3-client';
import { s3Recordings } from '../../lambdas/shared/s3-recordings';
import { QueuePoller } from '../../local/queue-poller';
import type { LocalResources } from '../../local/resources';
import { seededRandom } from '../../local/seeded-random';
import { SimulatedServiceApi } from '../../local/simulator/api-server';
import { pythonIsoTime, stateChange } from '../../local/simulator/payloads';
import { launchedBot } from '../fixtures/launched-bots';
import {
  createResources,
  type LocalPipeline,
  processDependencies,
  queuedMessage,
  startLocalPipeline,
} from '../fixtures/local-pipeline';
import { meetingItem } from '../fixtures/store-reader';

const service = new SimulatedServiceApi();
const NOW = Date.parse('2026-11-20T15:00:00Z');
const MINUTE = 60_000;
let pipeline: LocalPipeline;
let resources: LocalResources;
let processing: ProcessDependencies;

beforeAll(async () => {
  pipeline = await startLocalPipeline();
  await service.start();
  service.apiKeys.set('k', 'all');
  resources = await createResources({ visibilityTimeoutSeconds: 5 });
  processing = processDependencies(resources);
});
afterAll(async () => {
  await service.stop();
  await pipeline?.stop();
});

const LIFECYCLE = ['joining', 'joined_recording', 'post_processing', 'ended'] as const;

async function deliver(botId: string, from: string, to: string, atMs: number): Promise<void> {
  const change = { oldState: from, newState: to, eventType: 'x', createdAtMicros: atMs * 1000 };
  await processQueuedEvent(queuedMessage(stateChange(botId, change), new Date(atMs)), processing);
}

describe('reconciler at scale', () => {
  it('heals and archives every meeting within two runs, whatever stays stale', { timeout: 240_000 }, async () => {
    const db = processing.table.db;
    // 300 meetings ended and archived days ago.
    for (let i = 0; i < 300; i++) {
      const botId = `bot_old${i}`;
      await deliver(botId, 'post_processing', 'ended', NOW - 3 * 86_400_000 + i * 1000);
      await db.send(
        new UpdateCommand({
          TableName: resources.tableName,
          Key: keys.meeting(botId),
          UpdateExpression: 'SET #archive = :archive',
          ExpressionAttributeNames: { '#archive': 'archive' },
          ExpressionAttributeValues: { ':archive': { recordingStatus: 'archived' } },
        }),
      );
    }
    // 60 stale for good, older than everything else: the service keeps them in `ready`, or knows them no more.
    for (let i = 0; i < 60; i++) {
      const bot = i < 30 ? service.addBot({ state: 'ready' }).id : `bot_gone${i}`;
      await deliver(bot, 'ready', 'ready', NOW - 5 * 3_600_000 + i * 1000);
    }
    // 40 meetings that ended an hour ago; 30% of their state webhooks never arrived.
    const random = seededRandom(2026);
    const meetings: string[] = [];
    for (let i = 0; i < 40; i++) {
      const endedAt = NOW - 60 * MINUTE + i * 1000;
      const bot = service.addBot({
        state: 'ended',
        events: [{ type: 'post_processing_completed', sub_type: null, created_at: pythonIsoTime(endedAt * 1000) }],
        recording: { size: 4096, seed: i, contentType: 'video/mp4' },
      });
      meetings.push(bot.id);
      let previous = 'ready';
      for (const [step, state] of LIFECYCLE.entries()) {
        if (step === 0 || random() >= 0.3) await deliver(bot.id, previous, state, endedAt - (3 - step) * 10 * MINUTE);
        previous = state;
      }
    }
    const endedByWebhook = (await Promise.all(meetings.map((id) => meetingItem(resources.tableName, id)))).filter(
      (meeting) => meeting?.state === 'ended',
    ).length;
    expect(endedByWebhook).toBeLessThan(40); // some did lose their `ended`
    // 20 launched for 90 minutes ago that ended (or crashed) at the service without one webhook reaching us.
    const silent: string[] = [];
    for (let i = 0; i < 20; i++) {
      const joinAt = NOW - 90 * MINUTE + i * 1000;
      const bot = await launchedBot(service, processing.table, `silent-${i}`, joinAt, NOW - 2 * 60 * MINUTE);
      Object.assign(bot, {
        state: i % 2 === 0 ? 'ended' : 'fatal_error',
        events: [{ type: 'x', sub_type: null, created_at: pythonIsoTime((joinAt + 40 * MINUTE) * 1000) }],
        recording: { size: 4096, seed: 100 + i, contentType: 'video/mp4' },
      });
      silent.push(bot.id);
    }

    const bucket = `${resources.tableName}-recordings`;
    await s3Client().send(new CreateBucketCommand({ Bucket: bucket }));
    const archiveJobs = new QueuePoller({
      sqs: sqsClient(),
      queueUrl: resources.archiveQueueUrl,
      batchSize: 10,
      handler: createArchiveHandler({
        table: processing.table,
        upstream: new UpstreamClient({ baseUrl: service.baseUrl, apiKey: async () => 'k' }),
        recordings: s3Recordings(s3Client(), bucket),
        events: processing.events,
        openDownload: (url) =>
          openDownload(url, { allowLoopback: true, maxBytes: 1 << 20, transfer: DEFAULT_RECORDING_TRANSFER }),
        maxRecordingBytes: 1 << 20,
        downloadAttempts: 3,
        lake: lakeWriterDependencies(s3Client(), bucket, processing.table, silentTelemetry),
        telemetry: silentTelemetry,
        now: () => new Date(NOW),
      }),
    });
    const drainArchiveJobs = async () => {
      while ((await archiveJobs.pollOnce(0)) > 0) {}
    };

    const runs: ReconcileReport[] = [];
    for (const at of [NOW, NOW + 5 * MINUTE]) {
      await drainArchiveJobs();
      runs.push(
        await reconcileMeetings({
          table: processing.table,
          upstream: new UpstreamClient({
            baseUrl: service.baseUrl,
            apiKey: async () => 'k',
            sleep: async () => undefined,
          }),
          processing,
          archive: processing.archive,
          telemetry: silentTelemetry,
          now: () => at,
          staleAfterMs: 15 * MINUTE,
          maxMeetings: 50,
        }),
      );
    }
    await drainArchiveJobs();

    const after = await Promise.all([...meetings, ...silent].map((id) => meetingItem(resources.tableName, id)));
    expect(after.map((meeting) => meeting?.state)).toEqual([
      ...Array(40).fill('ended'),
      ...silent.map((_, i) => (i % 2 === 0 ? 'ended' : 'fatal_error')),
    ]);
    expect(after.map((meeting) => (meeting?.archive as { recordingStatus?: string })?.recordingStatus)).toEqual(
      Array(60).fill('archived'),
    );
    // Run one took the 50 oldest (stale for good); run two the other 10, the meetings not ended by webhook and the silent bots.
    expect(runs.map((run) => run.checked)).toEqual([50, 10 + (40 - endedByWebhook) + 20]);
    expect(runs.flatMap((run) => run.healed).length).toBe(40 - endedByWebhook + 20);
    expect(runs.flatMap((run) => run.failures)).toEqual([]);
    // The backstop queued nothing for the 300 archived meetings.
    expect(runs.flatMap((run) => run.archiveJobs).filter((id) => id.startsWith('bot_old'))).toEqual([]);
  });
});
