/**
 * The read API's recording link against the local S3 emulators: the SDK's presigner hoists the
 * `x-amz-checksum-mode` header it adds to a GetObject into the query, in lower case, and S3 takes
 * it there as that header. A plain `fetch` of the link (and of a byte range) gets the object from
 * fauxqs (local mode's S3) and from the versioned emulator (the erasure and lake tests' S3). The
 * versioned emulator reads a hoisted header under its lower-case name only, as S3 does.
 */
import { CreateBucketCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, describe, expect, it } from 'vitest';
import { s3ReadObjects } from '../../lambdas/shared/s3-read-objects';
import { LOCAL_REGION, startSqsS3Emulator } from '../../local/emulators/fauxqs';
import { startVersionedS3Emulator } from '../../local/emulators/versioned-s3';

const BUCKET = 'recordings-link-test';
const KEY = 'meetings/bot_link/recording.mp4';
const RECORDING = Buffer.from('the recording of bot_link, byte for byte');

const stops: Array<() => Promise<void>> = [];
afterAll(async () => {
  await Promise.all(stops.map((stop) => stop()));
});

/** The emulator with the recording archived in it, and the link the read API would answer with. */
async function recordingLink(start: () => Promise<{ endpoint: string; stop(): Promise<void> }>) {
  const emulator = await start();
  stops.push(() => emulator.stop());
  const s3 = new S3Client({
    endpoint: emulator.endpoint,
    region: LOCAL_REGION,
    forcePathStyle: true,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 1,
  });
  await s3.send(new CreateBucketCommand({ Bucket: BUCKET }));
  await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: KEY, Body: RECORDING, ContentType: 'video/mp4' }));
  return s3ReadObjects(s3).presignGet(BUCKET, KEY, 900);
}

describe.each([
  ['fauxqs (local mode)', startSqsS3Emulator],
  ['the versioned emulator', startVersionedS3Emulator],
])('a recording link on %s', (_name, start) => {
  it('downloads the recording with a plain fetch, whole and by range', async () => {
    const url = await recordingLink(start);
    // What S3 is given: the header the presigner hoisted, under its lower-case name.
    expect(new URL(url).searchParams.get('x-amz-checksum-mode')).toBe('ENABLED');

    const whole = await fetch(url);
    expect(whole.status, await whole.clone().text()).toBe(200);
    expect(Buffer.from(await whole.arrayBuffer())).toEqual(RECORDING);

    const part = await fetch(url, { headers: { range: 'bytes=4-12' } });
    expect(part.status, await part.clone().text()).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 4-12/${RECORDING.length}`);
    expect(Buffer.from(await part.arrayBuffer())).toEqual(RECORDING.subarray(4, 13));
  });
});

describe('hoisted headers on the versioned emulator', () => {
  it('are the headers under their lower-case names only; a header it refuses is refused hoisted too', async () => {
    const url = new URL(await recordingLink(startVersionedS3Emulator));
    // Read as the header: the object's checksum comes back, as S3 sends it with checksum mode on.
    const enabled = await fetch(url);
    expect(enabled.status).toBe(200);
    expect(enabled.headers.get('x-amz-checksum-crc32')).toEqual(expect.any(String));

    // S3 would not read these as the header, so the emulator refuses them rather than ignore them.
    for (const name of ['X-Amz-Checksum-Mode', 'X-AMZ-CHECKSUM-MODE']) {
      const other = new URL(url);
      other.searchParams.delete('x-amz-checksum-mode');
      other.searchParams.set(name, 'ENABLED');
      const answer = await fetch(other);
      expect(answer.status, name).toBe(501);
      expect(await answer.text()).toContain('<Code>NotImplemented</Code>');
    }

    // Customer-provided keys are refused as headers on a GET, and so hoisted.
    const encrypted = new URL(url);
    encrypted.searchParams.set('x-amz-server-side-encryption-customer-algorithm', 'AES256');
    expect((await fetch(encrypted)).status).toBe(501);
  });
});
