/**
 * Never a smaller or empty recording over the archived one (the service can upload an empty file over a
 * finished recording when its bot task runs again): the simulator serves the whole recording once, then
 * an empty or a halved one (`simulator_recording_refetch`); the archive, finding the earlier copy in the
 * bucket (one it cannot adopt: no size of ours on it), keeps it, counts RecordingShrankRefused, and its
 * record says what was refused and why. Told from the announced length before any byte is read, and
 * from the counted bytes when no length is announced, before the upload can complete.
 */
import { CreateBucketCommand, HeadObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lakeWriterDependencies } from '../../lambdas/archive/adapter';
import { type ArchiveDependencies, archiveMeeting } from '../../lambdas/core/archive/archive-meeting';
import { type DownloadPolicy, openDownload } from '../../lambdas/core/archive/download-guard';
import { DEFAULT_RECORDING_TRANSFER } from '../../lambdas/core/archive/recording-transfer';
import { METRICS, silentTelemetry } from '../../lambdas/core/telemetry';
import { UpstreamClient } from '../../lambdas/core/upstream/client';
import { documentClient } from '../../lambdas/shared/dynamo-client';
import { s3Client } from '../../lambdas/shared/s3-client';
import { s3Recordings } from '../../lambdas/shared/s3-recordings';
import type { LocalResources } from '../../local/resources';
import { recordingSha256, type SimulatedBot, SimulatedServiceApi } from '../../local/simulator/api-server';
import { RECORDING_REFETCH_METADATA_KEY, type RecordingRefetch } from '../../local/simulator/bot-scenarios';
import { endedBot } from '../fixtures/ended-meeting';
import { testEventLog } from '../fixtures/event-log';
import {
  createResources,
  type LocalPipeline,
  recordingTelemetry,
  startLocalPipeline,
} from '../fixtures/local-pipeline';
import { watchMultipart } from '../fixtures/multipart-ledger';
import { meetingItem } from '../fixtures/store-reader';

const MiB = 1024 * 1024;
/**
 * Under the S3 emulator's 11 MiB request (the earlier copy is one put), over two 5 MiB parts: the refused
 * download of half of it is a multipart upload, aborted.
 */
const RECORDING_BYTES = 10.5 * MiB;
const SEED = 47;
const BUCKET = 'archive-shrank-recordings';
const service = new SimulatedServiceApi();
const policy: DownloadPolicy = { allowLoopback: true, maxBytes: 64 * MiB, transfer: DEFAULT_RECORDING_TRANSFER };
let pipeline: LocalPipeline;
let resources: LocalResources;

beforeAll(async () => {
  pipeline = await startLocalPipeline();
  resources = await createResources();
  await s3Client().send(new CreateBucketCommand({ Bucket: BUCKET }));
  await service.start();
  service.apiKeys.set('k', 'all');
});
afterAll(async () => {
  await service.stop();
  await pipeline?.stop();
});

const upstream = () =>
  new UpstreamClient({ baseUrl: service.baseUrl, apiKey: async () => 'k', sleep: async () => undefined });

function harness(announceLength: boolean) {
  const multipart = watchMultipart(s3Client());
  const { telemetry, metrics } = recordingTelemetry();
  const deps: ArchiveDependencies = {
    table: { db: documentClient(), tableName: resources.tableName },
    upstream: upstream(),
    recordings: s3Recordings(multipart.client, BUCKET, { partSize: 5 * MiB, queueSize: 2 }),
    events: testEventLog().publisher,
    // A storage host that sends no Content-Length: the size is known only when the body ends.
    openDownload: async (url) => {
      const opened = await openDownload(url, policy);
      return announceLength ? opened : { ...opened, contentLength: undefined };
    },
    maxRecordingBytes: policy.maxBytes,
    downloadAttempts: 3,
    lake: lakeWriterDependencies(
      s3Client(),
      BUCKET,
      { db: documentClient(), tableName: resources.tableName },
      silentTelemetry,
    ),
    telemetry,
    now: () => new Date('2026-11-20T12:00:00Z'),
  };
  return { deps, metrics, multipart };
}

/**
 * A bot whose recording shrinks after its first download, and that first download stored at the
 * recording's key as an earlier release stored it (no size of ours on it, so a run does not adopt it).
 */
async function archivedOnceThenShrunk(refetch: RecordingRefetch): Promise<SimulatedBot> {
  const bot = endedBot(service, { size: RECORDING_BYTES, seed: SEED });
  bot.metadata = { [RECORDING_REFETCH_METADATA_KEY]: refetch };
  const link = await upstream().getRecording(bot.id);
  const download = await openDownload(link!.url, policy);
  const chunks: Buffer[] = [];
  for await (const chunk of download.stream) chunks.push(chunk as Buffer);
  await s3Client().send(
    new PutObjectCommand({
      Bucket: BUCKET,
      Key: `meetings/${bot.id}/recording.mp4`,
      Body: Buffer.concat(chunks),
      ContentType: 'video/mp4',
    }),
  );
  return bot;
}

const storedBytes = async (bot: SimulatedBot) =>
  (await s3Client().send(new HeadObjectCommand({ Bucket: BUCKET, Key: `meetings/${bot.id}/recording.mp4` })))
    .ContentLength;

describe('a recording smaller than the archived one', () => {
  it.each([
    { refetch: 'empty' as const, announceLength: true, bytes: 0 },
    { refetch: 'half' as const, announceLength: true, bytes: RECORDING_BYTES / 2 },
    { refetch: 'empty' as const, announceLength: false, bytes: 0 },
    { refetch: 'half' as const, announceLength: false, bytes: RECORDING_BYTES / 2 },
  ])(
    'is refused ($refetch, length announced: $announceLength): the archived copy kept, counted, and recorded why',
    async ({ refetch, announceLength, bytes }) => {
      const bot = await archivedOnceThenShrunk(refetch);
      const h = harness(announceLength);
      const { record } = await archiveMeeting(bot.id, h.deps);
      expect(record).toMatchObject({
        recordingStatus: 'archived',
        recording: {
          key: `meetings/${bot.id}/recording.mp4`,
          bytes: RECORDING_BYTES,
          sha256: recordingSha256(SEED, RECORDING_BYTES),
        },
        refusedRecording: { reason: refetch === 'empty' ? 'empty' : 'smaller', bytes, keptBytes: RECORDING_BYTES },
      });
      expect((await meetingItem(resources.tableName, bot.id))?.archive).toMatchObject({
        refusedRecording: { reason: refetch === 'empty' ? 'empty' : 'smaller' },
      });
      expect(await storedBytes(bot)).toBe(RECORDING_BYTES);
      expect(h.metrics.filter((metric) => metric.name === METRICS.recordingShrankRefused.name)).toHaveLength(1);
      expect(h.multipart.open()).toEqual([]);
    },
  );

  it('the simulator refuses a shrinking kind it does not know, naming the ones it does', async () => {
    await expect(
      upstream().createBot({
        meeting_url: 'https://meet.google.com/abc-defg-hij',
        bot_name: 'Notes',
        metadata: { [RECORDING_REFETCH_METADATA_KEY]: 'tiny' },
      }),
    ).rejects.toThrow(/400: .*simulator_recording_refetch .*tiny.* is not one of empty, half/);
  });

  it('still replaces a smaller object with a larger download, and counts nothing', async () => {
    const bot = endedBot(service, { size: RECORDING_BYTES, seed: SEED });
    await s3Client().send(
      new PutObjectCommand({
        Bucket: BUCKET,
        Key: `meetings/${bot.id}/recording.mp4`,
        Body: Buffer.alloc(1024, 7),
        ContentType: 'video/mp4',
      }),
    );
    const h = harness(true);
    const { record } = await archiveMeeting(bot.id, h.deps);
    expect(record.recording).toMatchObject({ bytes: RECORDING_BYTES, sha256: recordingSha256(SEED, RECORDING_BYTES) });
    expect(record.refusedRecording).toBeUndefined();
    expect(await storedBytes(bot)).toBe(RECORDING_BYTES);
    expect(h.metrics.filter((metric) => metric.name === METRICS.recordingShrankRefused.name)).toEqual([]);
  });
});
