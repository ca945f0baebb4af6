/**
 * An archive job cut off at any point resumes rather than repeats: a fault at each
 * call it makes (to DynamoDB, S3 and the service; before the call or after it took
 * effect), then a retry, leaves the record a clean run leaves, and every object is
 * written once: the recording is never copied again once its upload completed, nor
 * recorded as "none" when the service answers 404 by the retry.
 */

import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { CreateBucketCommand, HeadObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lakeWriterDependencies } from '../../lambdas/archive/adapter';
import {
  type ArchiveDependencies,
  type ArchiveRecord,
  archiveMeeting,
} from '../../lambdas/core/archive/archive-meeting';
import { DownloadFailedError, type DownloadPolicy, openDownload } from '../../lambdas/core/archive/download-guard';
import { DEFAULT_RECORDING_TRANSFER } from '../../lambdas/core/archive/recording-transfer';
import { keys } from '../../lambdas/core/store/table-layout';
import { silentTelemetry } from '../../lambdas/core/telemetry';
import { UpstreamClient } from '../../lambdas/core/upstream/client';
import { documentClient } from '../../lambdas/shared/dynamo-client';
import { s3Client } from '../../lambdas/shared/s3-client';
import { s3Recordings } from '../../lambdas/shared/s3-recordings';
import type { LocalResources } from '../../local/resources';
import { recordingSha256, type SimulatedBot, SimulatedServiceApi } from '../../local/simulator/api-server';
import { endedBot } from '../fixtures/ended-meeting';
import { testEventLog } from '../fixtures/event-log';
import { faultyClient, faultyMethods } from '../fixtures/faulty-client';
import { createResources, type LocalPipeline, startLocalPipeline } from '../fixtures/local-pipeline';
import { watchMultipart } from '../fixtures/multipart-ledger';
import { meetingItem } from '../fixtures/store-reader';

const MiB = 1024 * 1024;
const RECORDING_BYTES = 6 * MiB;
const BUCKET = 'archive-resume-recordings';
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

/** Objects the emulator really stored, by key: a put or a completed multipart upload each. */
function countWrites(client: ReturnType<typeof s3Client>) {
  const writes = new Map<string, number>();
  const names: string[] = [];
  const send = client.send.bind(client) as (command: unknown) => Promise<unknown>;
  const counted = Object.create(client) as typeof client;
  (counted as { send: unknown }).send = async (command: { constructor: { name: string }; input: { Key?: string } }) => {
    const name = command.constructor.name;
    names.push(name);
    const result = await send(command);
    if ((name === 'PutObjectCommand' || name === 'CompleteMultipartUploadCommand') && command.input.Key) {
      writes.set(command.input.Key, (writes.get(command.input.Key) ?? 0) + 1);
    }
    return result;
  };
  return { client: counted, writes, names };
}

function harness() {
  const multipart = watchMultipart(s3Client());
  const counted = countWrites(multipart.client);
  const s3 = faultyClient(counted.client);
  const db = faultyClient(documentClient());
  const upstream = faultyMethods(
    new UpstreamClient({ baseUrl: service.baseUrl, apiKey: async () => 'k', sleep: async () => undefined }),
    ['getRecording', 'getTranscript', 'listParticipants'],
  );
  const deps: ArchiveDependencies = {
    table: { db: db.client, tableName: resources.tableName },
    upstream: upstream.client,
    // 5 MiB parts (S3's minimum): the recording is a two-part multipart upload.
    recordings: s3Recordings(s3.client, BUCKET, { partSize: 5 * MiB, queueSize: 2 }),
    events: testEventLog().publisher,
    openDownload: (url) => openDownload(url, policy),
    maxRecordingBytes: policy.maxBytes,
    downloadAttempts: 3,
    // Its own clients: the faults and counts here are the archive's.
    lake: lakeWriterDependencies(
      s3Client(),
      BUCKET,
      { db: documentClient(), tableName: resources.tableName },
      silentTelemetry,
    ),
    telemetry: silentTelemetry,
    now: () => new Date('2026-11-20T12:00:00Z'),
  };
  return { deps, db, s3, upstream, multipart, writes: counted.writes, s3Calls: counted.names };
}

/** An ended meeting whose webhooks delivered one utterance (with other text) and one participant. */
async function endedMeeting(): Promise<SimulatedBot> {
  const bot = endedBot(service, { size: RECORDING_BYTES, seed: 31 });
  const db = documentClient();
  await db.send(
    new PutCommand({
      TableName: resources.tableName,
      Item: { ...keys.utterance(bot.id, 2000, 's1'), text: 'from webhook', version: '2026-11-20T10:00:00.000Z#k' },
    }),
  );
  await db.send(
    new PutCommand({ TableName: resources.tableName, Item: { ...keys.participant(bot.id, 'p1'), name: 'Ada L.' } }),
  );
  return bot;
}

const downloads = (bot: SimulatedBot) => service.requests.filter((r) => r.path === `/recordings/${bot.id}`).length;
const recordingLookups = (bot: SimulatedBot) =>
  service.requests.filter((r) => r.path === `/api/v1/bots/${bot.id}/recording`).length;

/** The record with the bot's id and the run's time taken out, to compare meetings with each other. */
const comparable = (record: ArchiveRecord, bot: SimulatedBot) =>
  JSON.parse(JSON.stringify({ ...record, archivedAt: 'T' }).replaceAll(bot.id, 'BOT'));

let cleanRun: { record: unknown; s3Calls: string[]; dbCalls: number; serviceCalls: number };

describe('archive resume', () => {
  beforeAll(async () => {
    const bot = await endedMeeting();
    const h = harness();
    const outcome = await archiveMeeting(bot.id, h.deps);
    expect(outcome.status).toBe('archived');
    expect(outcome.record).toMatchObject({
      recordingStatus: 'archived',
      recording: { bytes: RECORDING_BYTES, sha256: recordingSha256(31, RECORDING_BYTES) },
      filled: { utterances: 2, correctedUtterances: 1, participants: 1 },
    });
    cleanRun = {
      record: comparable(outcome.record, bot),
      s3Calls: [...h.s3Calls],
      dbCalls: h.db.calls(),
      serviceCalls: h.upstream.calls(),
    };
    expect(downloads(bot)).toBe(1);
    expect([...h.writes.values()]).toEqual([1, 1, 1]);
  });

  it('makes the calls this test breaks one by one', () => {
    expect(cleanRun.s3Calls).toEqual([
      'ListObjectsV2Command',
      'CreateMultipartUploadCommand',
      'UploadPartCommand',
      'UploadPartCommand',
      'CompleteMultipartUploadCommand',
      'HeadObjectCommand',
      'PutObjectCommand',
      'HeadObjectCommand',
      'PutObjectCommand',
    ]);
    // Get, progress, the transcript taken as final, query + 3 utterance puts, query + 1 participant put, record.
    expect(cleanRun.dbCalls).toBe(10);
    expect(cleanRun.serviceCalls).toBe(3);
  });

  const plans = (client: 'db' | 's3' | 'service', calls: () => number) =>
    (['before', 'after'] as const).flatMap((mode) =>
      Array.from({ length: calls() }, (_, i) => ({ client, mode, failAt: i + 1 })),
    );

  describe.each([...plans('db', () => 10), ...plans('s3', () => 9), ...plans('service', () => 3)])(
    'a fault at $client call $failAt ($mode), then a retry',
    ({ client, mode, failAt }) => {
      it('archives once: the clean record, each object written once, the recording copied again only if its upload never completed', async () => {
        const bot = await endedMeeting();
        const h = harness();
        const target = client === 'db' ? h.db : client === 's3' ? h.s3 : h.upstream;
        target.reset({ failAt, mode });
        const first = await archiveMeeting(bot.id, h.deps).then(
          () => 'archived',
          (error: Error) => error.name,
        );
        expect(first).toBe('InjectedFault');
        target.reset();
        const retry = await archiveMeeting(bot.id, h.deps);
        // Only the record's own write, lost after it took effect, leaves the retry nothing to do.
        const recordWritten = client === 'db' && failAt === cleanRun.dbCalls && mode === 'after';
        expect(retry.status).toBe(recordWritten ? 'already-archived' : 'archived');
        expect(comparable(retry.record, bot)).toEqual(cleanRun.record);
        expect(comparable((await meetingItem(resources.tableName, bot.id))?.archive as ArchiveRecord, bot)).toEqual(
          cleanRun.record,
        );
        expect((await meetingItem(resources.tableName, bot.id))?.archiveProgress).toBeUndefined();

        expect(Object.fromEntries(h.writes)).toEqual({
          [`meetings/${bot.id}/recording.mp4`]: 1,
          [`meetings/${bot.id}/transcript.json`]: 1,
          [`meetings/${bot.id}/participants.json`]: 1,
        });
        const brokeTheUpload =
          client === 's3' &&
          (['CreateMultipartUploadCommand', 'UploadPartCommand'].includes(cleanRun.s3Calls[failAt - 1]!) ||
            (cleanRun.s3Calls[failAt - 1] === 'CompleteMultipartUploadCommand' && mode === 'before'));
        // The service's link was read and the file downloaded in the run that failed; after the upload, never again.
        expect(downloads(bot)).toBe(brokeTheUpload ? 2 : 1);
        // An upload created but whose id never came back cannot be aborted: the bucket's lifecycle rule removes it.
        const lostUploadId = client === 's3' && failAt === 2 && mode === 'after';
        expect(h.multipart.open()).toHaveLength(lostUploadId ? 1 : 0);
      });
    },
  );

  it('adopts the uploaded recording when the service answers 404 by the retry', async () => {
    const bot = await endedMeeting();
    const h = harness();
    h.db.reset({ failAt: 2, mode: 'before' }); // the progress write right after the upload completed
    await expect(archiveMeeting(bot.id, h.deps)).rejects.toThrow(/injected fault/);
    bot.recording = null;
    h.db.reset();
    const { record } = await archiveMeeting(bot.id, h.deps);
    expect(record).toMatchObject({
      recordingStatus: 'archived',
      recording: { bytes: RECORDING_BYTES, sha256: recordingSha256(31, RECORDING_BYTES) },
    });
    expect(downloads(bot)).toBe(1);
    // The bucket is looked at before the service: the retry never asked for a link.
    expect(recordingLookups(bot)).toBe(1);
  });

  it('keeps the recording it recorded once when a later step failed and the service answers 404', async () => {
    const bot = await endedMeeting();
    const h = harness();
    h.db.reset({ failAt: 10, mode: 'before' }); // the archive record itself
    await expect(archiveMeeting(bot.id, h.deps)).rejects.toThrow(/injected fault/);
    expect((await meetingItem(resources.tableName, bot.id))?.archiveProgress).toMatchObject({
      recording: { sha256: recordingSha256(31, RECORDING_BYTES) },
    });
    bot.recording = null;
    h.db.reset();
    h.s3Calls.length = 0;
    const { record } = await archiveMeeting(bot.id, h.deps);
    expect(record.recordingStatus).toBe('archived');
    expect(record.recording?.sha256).toBe(recordingSha256(31, RECORDING_BYTES));
    expect(recordingLookups(bot)).toBe(1);
    // Not even read back from the bucket: the progress on the meeting says what was uploaded.
    expect(h.s3Calls.filter((name) => name.startsWith('ListObjects') || name.startsWith('GetObject'))).toEqual([]);
  });

  it('copies afresh over an object that is not the whole recording (no size of ours on it, or another size)', async () => {
    for (const metadata of [undefined, { 'source-bytes': String(RECORDING_BYTES) }]) {
      const bot = await endedMeeting();
      await s3Client().send(
        new PutObjectCommand({
          Bucket: BUCKET,
          Key: `meetings/${bot.id}/recording.mp4`,
          Body: Buffer.alloc(1024, 7),
          ContentType: 'video/mp4',
          Metadata: metadata,
        }),
      );
      const h = harness();
      const { record } = await archiveMeeting(bot.id, h.deps);
      expect(record.recording).toMatchObject({ bytes: RECORDING_BYTES, sha256: recordingSha256(31, RECORDING_BYTES) });
      expect(downloads(bot)).toBe(1);
    }
  });

  it('never completes an upload of a download shorter than announced', async () => {
    const bot = await endedMeeting();
    const h = harness();
    const short = {
      ...h.deps,
      downloadAttempts: 1,
      openDownload: async () => ({
        // A body that ends cleanly but short (what a proxy cutting a response could hand over).
        stream: Readable.from([Buffer.alloc(MiB, 1)]) as IncomingMessage,
        contentType: 'video/mp4',
        contentLength: 2 * MiB,
      }),
    };
    await expect(archiveMeeting(bot.id, short)).rejects.toBeInstanceOf(DownloadFailedError);
    await expect(
      s3Client().send(new HeadObjectCommand({ Bucket: BUCKET, Key: `meetings/${bot.id}/recording.mp4` })),
    ).rejects.toMatchObject({ name: 'NotFound' });
    expect(h.writes.size).toBe(0);
    expect(h.multipart.open()).toEqual([]);
  });
});
