/**
 * The archive function as deployed (its environment parsed by its own schema,
 * loopback not allowed) downloading from a storage host on the "internet": the
 * production address policy decides, on the addresses the name resolves to.
 * This is the path that once refused every public address in AWS while every
 * loopback-allowing test passed.
 */
import { HeadObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { downloadPolicyFrom } from '../../lambdas/archive/adapter';
import { type ArchiveRecord, archiveMeeting } from '../../lambdas/core/archive/archive-meeting';
import { DownloadRefusedError } from '../../lambdas/core/archive/download-guard';
import { UpstreamClient } from '../../lambdas/core/upstream/client';
import { s3Client } from '../../lambdas/shared/s3-client';
import { recordingSha256, type SimulatedBot, SimulatedServiceApi } from '../../local/simulator/api-server';
import { localArchive } from '../fixtures/local-archive';
import { meetingItem } from '../fixtures/store-reader';
import { STORAGE_TLS, type TestInternet, testInternet } from '../fixtures/test-internet';
import { startWorld, type World } from '../fixtures/world';

const service = new SimulatedServiceApi();
let world: World & { stop(): Promise<void> };

beforeAll(async () => {
  world = await startWorld();
  await service.start();
  service.apiKeys.set('k', 'all');
  await service.serveRecordingsOverTls({ hostname: 'recordings.storage.example', ...STORAGE_TLS });
});
afterAll(async () => {
  await service.stop();
  await world?.stop();
});

/** The function as the stack deploys it (ALLOW_LOOPBACK_DOWNLOADS false), but for the service's address. */
function deployed(internet?: TestInternet) {
  return localArchive(world.resources, {
    upstream: new UpstreamClient({ baseUrl: service.baseUrl, apiKey: async () => 'k', sleep: async () => undefined }),
    overrides: { UPSTREAM_BASE_URL: service.baseUrl },
    ...(internet !== undefined && { network: internet }),
  });
}

const archiveFunction = (internet: TestInternet) => deployed(internet).deps;

const RECORDING = { size: 2 * 1024 * 1024 + 17, seed: 5, contentType: 'video/mp4' };

function endedMeeting(): SimulatedBot {
  return service.addBot({ state: 'ended', recording: RECORDING });
}

describe('archive download under the production address policy', () => {
  it('is the policy the function deploys with: loopback refused', () => {
    expect(downloadPolicyFrom(deployed().env).allowLoopback).toBe(false);
  });

  it.each([
    ['a public IPv4 address', ['52.216.8.35']],
    ['a public IPv6 address', ['2600:1f18:4c00::1']],
    ['public IPv4 and IPv6 addresses', ['3.5.140.2', '2a05:d07a:a0ff::1']],
  ])('archives a recording whose storage host resolves to %s', async (_label, addresses) => {
    const internet = testInternet({ 'recordings.storage.example': addresses });
    const bot = endedMeeting();
    await archiveMeeting(bot.id, archiveFunction(internet));

    const archive = (await meetingItem(world.resources.tableName, bot.id))?.archive as ArchiveRecord | undefined;
    expect(archive).toMatchObject({
      recordingStatus: 'archived',
      recording: { bytes: RECORDING.size, sha256: recordingSha256(RECORDING.seed, RECORDING.size) },
    });
    const head = await s3Client().send(
      new HeadObjectCommand({ Bucket: world.resources.recordingsBucket, Key: archive?.recording?.key }),
    );
    expect(head.ContentLength).toBe(RECORDING.size);
    // The guard approved exactly the addresses the name resolved to; nothing else was connected to.
    expect(new Set(internet.approved)).toEqual(new Set(addresses));
  });

  it.each([
    ['a private address', ['10.0.4.7']],
    ['the instance metadata address', ['169.254.169.254']],
    ['loopback', ['127.0.0.1']],
    ['an IPv4-mapped private address', ['::ffff:192.168.1.20']],
    ['a NAT64 form of a private address', ['64:ff9b::a00:407']],
    ['a public and a private address (rebinding)', ['52.216.8.35', '172.31.0.9']],
  ])('refuses, before connecting, a storage host that resolves to %s', async (_label, addresses) => {
    const internet = testInternet({ 'recordings.storage.example': addresses });
    const bot = endedMeeting();
    const connectionsBefore = service.storageConnections;

    await expect(archiveMeeting(bot.id, archiveFunction(internet))).rejects.toBeInstanceOf(DownloadRefusedError);
    expect(internet.approved).toEqual([]);
    expect(service.storageConnections).toBe(connectionsBefore);
    expect((await meetingItem(world.resources.tableName, bot.id))?.archive).toBeUndefined();
  });
});
