/**
 * A server that drips bytes, or answers fast but never finishes, is cut off by the
 * download guard's deadline and minimum rate: recordings and calendar feeds alike,
 * through the production fetch code with short limits configured.
 */

import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CreateBucketCommand } from '@aws-sdk/client-s3';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { lakeWriterDependencies } from '../../lambdas/archive/adapter';
import { archiveMeeting } from '../../lambdas/core/archive/archive-meeting';
import { DownloadCutOffError, openDownload, type TransferLimits } from '../../lambdas/core/archive/download-guard';
import { guardedFeedFetcher } from '../../lambdas/core/calendar/feed-fetch';
import { METRICS } from '../../lambdas/core/telemetry';
import { UpstreamClient } from '../../lambdas/core/upstream/client';
import { documentClient } from '../../lambdas/shared/dynamo-client';
import { s3Client } from '../../lambdas/shared/s3-client';
import { s3Recordings } from '../../lambdas/shared/s3-recordings';
import { SimulatedServiceApi } from '../../local/simulator/api-server';
import { calendarHarness } from '../fixtures/calendar-harness';
import { endedBot } from '../fixtures/ended-meeting';
import { testEventLog } from '../fixtures/event-log';
import {
  createResources,
  type LocalPipeline,
  recordingTelemetry,
  startLocalPipeline,
} from '../fixtures/local-pipeline';
import { meetingItem } from '../fixtures/store-reader';

/** How each path on the server answers: drip, stream forever, stay silent, or answer whole. */
type Behaviour = (response: ServerResponse) => void;

const timers = new Set<NodeJS.Timeout>();
function every(ms: number, tick: () => void): void {
  const timer = setInterval(tick, ms);
  timers.add(timer);
}

const BEHAVIOURS: Record<string, Behaviour> = {
  // One byte every 100 ms for 10 s: far below any minimum rate, and it does end.
  '/drip': (response) => {
    response.writeHead(200, { 'content-type': 'text/calendar' });
    let sent = 0;
    every(100, () => (sent++ < 100 ? response.write('x') : response.end()));
  },
  // 16 KiB every 20 ms (~800 KiB/s, well above the rate) without an end in sight.
  '/endless': (response) => {
    response.writeHead(200, { 'content-type': 'video/mp4' });
    every(20, () => response.write(Buffer.alloc(16 * 1024, 1)));
  },
  // Accepts the connection, never answers: the deadline covers the wait for headers too.
  '/silent': () => undefined,
  '/whole': (response) => {
    response.writeHead(200, { 'content-type': 'text/calendar' });
    response.end('BEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n');
  },
};

const server = createServer((request, response) => BEHAVIOURS[request.url ?? '']?.(response));
let base: string;
let pipeline: LocalPipeline;
const service = new SimulatedServiceApi();
const BUCKET = 'cut-off-test-recordings';

beforeAll(async () => {
  pipeline = await startLocalPipeline();
  await service.start();
  service.apiKeys.set('k', 'all');
  await s3Client().send(new CreateBucketCommand({ Bucket: BUCKET }));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterEach(() => {
  for (const timer of timers) clearInterval(timer);
  timers.clear();
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await service.stop();
  await pipeline?.stop();
});

/** Short limits through the same code: a 300 ms rate window at 1 KiB/s, a 1.5 s deadline. */
const SHORT: TransferLimits = { deadlineMs: 1_500, minBytesPerSecond: 1024, rateWindowMs: 300 };
const policy = { allowLoopback: true, maxBytes: 1 << 30, transfer: SHORT };

/** Opens the link and reads the body to its end, as the archive and the feed fetch do. */
async function readAll(path: string, limits: TransferLimits = SHORT): Promise<number> {
  const opened = await openDownload(`${base}${path}`, { ...policy, transfer: limits });
  let bytes = 0;
  for await (const chunk of opened.stream) bytes += (chunk as Buffer).length;
  return bytes;
}

async function cutOffReason(read: Promise<unknown>): Promise<string> {
  const error = await read.then(
    () => new Error('the download was not cut off'),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DownloadCutOffError);
  return (error as DownloadCutOffError).reason;
}

describe('a recording download that will not finish', () => {
  it('is cut off when it drips below the minimum rate', async () => {
    expect(await cutOffReason(readAll('/drip'))).toBe('too-slow');
  });

  it('is cut off at the deadline when it streams fast but never ends', async () => {
    expect(await cutOffReason(readAll('/endless'))).toBe('deadline');
  });

  it('is cut off before any answer when the server stays silent', async () => {
    // A rate window longer than the deadline: only the deadline can end the wait for headers.
    expect(await cutOffReason(readAll('/silent', { ...SHORT, rateWindowMs: 60_000 }))).toBe('deadline');
  });

  it('is not cut off when it arrives whole in time', async () => {
    expect(await readAll('/whole')).toBeGreaterThan(0);
  });
});

describe('archiving a meeting whose recording never finishes', () => {
  it('fails the job with the cut-off, counted, without spending the run on fresh links', async () => {
    const resources = await createResources();
    const bot = endedBot(service, { size: 1024, seed: 3 });
    const { telemetry, metrics } = recordingTelemetry();
    const opened: string[] = [];
    const archiving = archiveMeeting(bot.id, {
      table: { db: documentClient(), tableName: resources.tableName },
      upstream: new UpstreamClient({ baseUrl: service.baseUrl, apiKey: async () => 'k', sleep: async () => undefined }),
      recordings: s3Recordings(s3Client(), BUCKET),
      events: testEventLog().publisher,
      // The service's link is fetched as usual; the bytes come from the endless storage host.
      openDownload: (url) => {
        opened.push(url);
        return openDownload(`${base}/endless`, policy);
      },
      maxRecordingBytes: policy.maxBytes,
      downloadAttempts: 3,
      lake: lakeWriterDependencies(
        s3Client(),
        BUCKET,
        { db: documentClient(), tableName: resources.tableName },
        telemetry,
      ),
      telemetry,
      now: () => new Date('2026-11-20T12:00:00Z'),
    });
    expect(await cutOffReason(archiving)).toBe('deadline');
    expect(opened).toHaveLength(1);
    expect(metrics).toContainEqual({ name: METRICS.downloadCutOff.name, dimensions: { reason: 'deadline' } });
    expect((await meetingItem(resources.tableName, bot.id))?.archive).toBeUndefined();
  });
});

describe('a calendar feed that drips', () => {
  it('is cut off by the feed fetcher, answered 502 with the reason, and counted', async () => {
    const fetchFeed = guardedFeedFetcher({ allowLoopback: true, transfer: SHORT });
    expect(await cutOffReason(fetchFeed(`${base}/drip`, undefined))).toBe('too-slow');

    const { telemetry, metrics } = recordingTelemetry();
    const calendars = await calendarHarness(() => Date.parse('2027-03-01T00:00:00Z'), { fetchFeed, telemetry });
    expect((await calendars.call('PUT', '/calendars/drip', { ics_url: `${base}/drip` })).status).toBe(201);
    const sync = await calendars.call('POST', '/calendars/drip/sync');
    expect(sync.status).toBe(502);
    expect(JSON.stringify(sync.body)).toMatch(/bytes\/s over \d+ ms; the minimum is 1024/);
    expect(metrics).toContainEqual({ name: METRICS.downloadCutOff.name, dimensions: { reason: 'too-slow' } });
  });
});
