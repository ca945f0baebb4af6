/** Benchmark helper process: a plain lib-storage Upload of a local file, with the archive's part settings. */
import { createReadStream, statSync } from 'node:fs';
import { Upload } from '@aws-sdk/lib-storage';
import { s3Client } from '../../lambdas/shared/s3-client';
import { RECORDING_S3_TIMEOUTS, RECORDING_UPLOAD } from '../../lambdas/shared/s3-recordings';

const file = process.env.BENCH_FILE ?? '';
const bucket = process.env.BENCH_BUCKET ?? '';
const rssBefore = process.memoryUsage().rss;
const start = process.hrtime.bigint();
await new Upload({
  client: s3Client(RECORDING_S3_TIMEOUTS),
  params: { Bucket: bucket, Key: 'direct/recording.mp4', Body: createReadStream(file), ContentType: 'video/mp4' },
  partSize: RECORDING_UPLOAD.partSize,
  queueSize: RECORDING_UPLOAD.queueSize,
}).done();
const seconds = Number(process.hrtime.bigint() - start) / 1e9;
console.log(
  JSON.stringify({
    seconds,
    bytes: statSync(file).size,
    maxRssBytes: process.resourceUsage().maxRSS * 1024,
    rssBefore,
  }),
);
