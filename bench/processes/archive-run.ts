/** Benchmark helper process: archives the meeting once and reports time, bytes, checksum and peak RSS. */
import { lakeWriterDependencies } from '../../lambdas/archive/adapter';
import { archiveMeeting } from '../../lambdas/core/archive/archive-meeting';
import { openDownload } from '../../lambdas/core/archive/download-guard';
import { DEFAULT_RECORDING_TRANSFER } from '../../lambdas/core/archive/recording-transfer';
import { silentTelemetry } from '../../lambdas/core/telemetry';
import { UpstreamClient } from '../../lambdas/core/upstream/client';
import { documentClient } from '../../lambdas/shared/dynamo-client';
import { s3Client } from '../../lambdas/shared/s3-client';
import { RECORDING_S3_TIMEOUTS, s3Recordings } from '../../lambdas/shared/s3-recordings';
import { eventLogPublisher, scratchEventsFile } from '../../local/event-log-publisher';

const setup = JSON.parse(process.env.BENCH_SETUP ?? '{}') as {
  tableName: string;
  bucket: string;
  baseUrl: string;
  botId: string;
};
const rssBefore = process.memoryUsage().rss;
const start = process.hrtime.bigint();
const outcome = await archiveMeeting(setup.botId, {
  table: { db: documentClient(), tableName: setup.tableName },
  upstream: new UpstreamClient({ baseUrl: setup.baseUrl, apiKey: async () => 'bench' }),
  recordings: s3Recordings(s3Client(RECORDING_S3_TIMEOUTS), setup.bucket),
  events: eventLogPublisher({ file: scratchEventsFile() }),
  openDownload: (url) =>
    openDownload(url, { allowLoopback: true, maxBytes: 16 * 1024 ** 3, transfer: DEFAULT_RECORDING_TRANSFER }),
  maxRecordingBytes: 16 * 1024 ** 3,
  downloadAttempts: 1,
  lake: lakeWriterDependencies(
    s3Client(),
    setup.bucket,
    { db: documentClient(), tableName: setup.tableName },
    silentTelemetry,
  ),
  telemetry: silentTelemetry,
  now: () => new Date(),
});
const seconds = Number(process.hrtime.bigint() - start) / 1e9;
console.log(
  JSON.stringify({
    seconds,
    bytes: outcome.record.recording?.bytes,
    sha256: outcome.record.recording?.sha256,
    maxRssBytes: process.resourceUsage().maxRSS * 1024,
    rssBefore,
  }),
);
