/**
 * The deployed layout of an on-demand module: index.mjs and a sibling file built
 * by the function's afterBundling command. Bundled code must find and load it.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateBucketCommand, GetObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PayloadStore } from '../../lambdas/core/queue/payload-store';
import { s3Client } from '../../lambdas/shared/s3-client';
import { S3_PAYLOAD_PUT_MODULE } from '../../lambdas/shared/s3-payloads-on-demand';
import { onDemandBundleCommand, PROJECT_ROOT } from '../../lib/function';
import { bundleLikeDeployed } from '../../local/bundle-like-deployed';
import { type SqsS3Emulator, startSqsS3Emulator } from '../../local/emulators/fauxqs';

const outdir = mkdtempSync(join(tmpdir(), 'on-demand-'));
let emulator: SqsS3Emulator;

beforeAll(async () => {
  emulator = await startSqsS3Emulator();
  Object.assign(process.env, emulator.env);
  await s3Client().send(new CreateBucketCommand({ Bucket: 'bundled' }));
  await bundleLikeDeployed(join(PROJECT_ROOT, 'lambdas/shared/s3-payloads-on-demand.ts'), join(outdir, 'index.mjs'));
  execFileSync('bash', ['-c', onDemandBundleCommand(PROJECT_ROOT, outdir, S3_PAYLOAD_PUT_MODULE)], {
    cwd: PROJECT_ROOT,
  });
});

afterAll(async () => {
  await emulator?.stop();
  rmSync(outdir, { recursive: true, force: true });
});

describe('on-demand S3 module', () => {
  it('keeps the S3 client out of the main bundle', () => {
    const main = readFileSync(join(outdir, 'index.mjs'), 'utf8');
    expect(main).not.toContain('PutObjectCommand');
    expect(readFileSync(join(outdir, 's3-payload-put.mjs'), 'utf8')).toContain('PutObject');
  });

  it('is loaded from beside the bundle and stores the bytes', async () => {
    const { s3PayloadStore } = (await import(join(outdir, 'index.mjs'))) as {
      s3PayloadStore: (bucket: string) => PayloadStore;
    };
    const bytes = Buffer.from('{"claim":"check"}');
    const sha256 = createHash('sha256').update(bytes).digest();
    await s3PayloadStore('bundled').put('claim-check/x.json', bytes, sha256);
    const object = await s3Client().send(new GetObjectCommand({ Bucket: 'bundled', Key: 'claim-check/x.json' }));
    expect(Buffer.from(await object.Body!.transformToByteArray()).equals(bytes)).toBe(true);
  });
});
