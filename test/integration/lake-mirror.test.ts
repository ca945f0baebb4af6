/**
 * The local lake mirror (local/lake/lake-mirror.ts) against the versioned S3 emulator through the
 * real AWS SDK: the directory ends up holding exactly the bucket's `lake/` objects, byte for byte;
 * a second run downloads nothing; changed objects (new ETag) are fetched again, deleted ones go
 * (with their empty folders), a file removed locally comes back; and DuckDB reads the mirror.
 */
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import {
  CreateBucketCommand,
  DeleteObjectCommand,
  ListObjectsV2Command,
  type ListObjectsV2CommandOutput,
  PutBucketVersioningCommand,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lakeKeys } from '../../lambdas/core/lake/lake-layout';
import { encodeLakeRows } from '../../lambdas/core/lake/parquet-codec';
import { startVersionedS3Emulator, type VersionedS3Emulator } from '../../local/emulators/versioned-s3';
import { createDuckDbLakeEngine } from '../../local/lake/duckdb-lake-engine';
import { mirrorLake } from '../../local/lake/lake-mirror';
import { scratchDir } from '../fixtures/scratch';

const BUCKET = 'mirror-bucket';
let emulator: VersionedS3Emulator;
let s3: S3Client;

beforeAll(async () => {
  emulator = await startVersionedS3Emulator();
  s3 = new S3Client({
    endpoint: emulator.endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 1,
  });
  await s3.send(new CreateBucketCommand({ Bucket: BUCKET }));
  await s3.send(new PutBucketVersioningCommand({ Bucket: BUCKET, VersioningConfiguration: { Status: 'Enabled' } }));
});
afterAll(async () => {
  s3?.destroy();
  await emulator?.stop();
});

const put = (key: string, body: Uint8Array | string) =>
  s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: key, Body: body }));
const remove = (key: string) => s3.send(new DeleteObjectCommand({ Bucket: BUCKET, Key: key }));

const utterances = (bot: string, texts: string[]) =>
  encodeLakeRows(
    'utterances',
    texts.map((text, seq) => ({
      bot_id: bot,
      seq,
      offset_ms: seq * 1000,
      duration_ms: 500,
      speaker: 'Alice',
      speaker_id: 's1',
      text,
      language: null,
    })),
  );

/** Every file under the mirror's lake/ folder, as keys, with its bytes. */
function mirrored(dir: string): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  const lake = join(dir, 'lake');
  if (!existsSync(lake)) return files;
  for (const entry of readdirSync(lake, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    files.set(path.slice(dir.length + 1), readFileSync(path));
  }
  return files;
}

describe('mirrorLake', () => {
  const dir = scratchDir('lake-mirror-');
  const keyA = lakeKeys.recentFile('utterances', '2026-11-20', 'bot_a');
  const keyB = lakeKeys.recentFile('utterances', '2026-11-21', 'bot_b');
  const keyC = lakeKeys.recentFile('utterances', '2026-11-21', 'bot_c');
  const bodies = new Map<string, Uint8Array>();

  it('copies exactly the lake/ objects, byte for byte, and nothing else in the bucket', async () => {
    bodies.set(keyA, utterances('bot_a', ['we discussed pricing', 'fine']));
    bodies.set(keyB, utterances('bot_b', ['pricing again']));
    for (const [key, body] of bodies) await put(key, body);
    await put('recordings/bot_a.mp4', 'not lake');
    await put('lake-results/q1.csv', 'not lake either');

    const counts = await mirrorLake(s3, BUCKET, dir);
    expect(counts).toEqual({
      copied: 2,
      unchanged: 0,
      deleted: 0,
      bytes: [...bodies.values()].reduce((sum, body) => sum + body.byteLength, 0),
      refused: [],
    });
    expect(mirrored(dir)).toEqual(new Map([...bodies].map(([key, body]) => [key, Buffer.from(body)])));
  });

  it('downloads nothing when nothing changed', async () => {
    expect(await mirrorLake(s3, BUCKET, dir)).toEqual({ copied: 0, unchanged: 2, deleted: 0, bytes: 0, refused: [] });
  });

  it('follows the bucket: changed objects again, new ones added, deleted ones and their empty folders gone', async () => {
    const changed = utterances('bot_a', ['we discussed pricing', 'fine', 'a corrected line']);
    bodies.set(keyA, changed);
    await put(keyA, changed);
    bodies.delete(keyB);
    await remove(keyB);
    const added = utterances('bot_c', ['new meeting']);
    bodies.set(keyC, added);
    await put(keyC, added);

    const counts = await mirrorLake(s3, BUCKET, dir);
    expect(counts).toMatchObject({ copied: 2, unchanged: 0, deleted: 1, refused: [] });
    expect(mirrored(dir)).toEqual(new Map([...bodies].map(([key, body]) => [key, Buffer.from(body)])));

    await remove(keyC);
    bodies.delete(keyC);
    expect(await mirrorLake(s3, BUCKET, dir)).toMatchObject({ copied: 0, unchanged: 1, deleted: 1 });
    expect(existsSync(join(dir, lakeKeys.dayPrefix('recent', 'utterances', '2026-11-21')))).toBe(false);
    expect(existsSync(join(dir, lakeKeys.dayPrefix('recent', 'utterances', '2026-11-20')))).toBe(true);
  });

  it('brings back a file removed locally, and removes a stray local file', async () => {
    rmSync(join(dir, keyA));
    const stray = join(dir, lakeKeys.recentFile('utterances', '2026-11-20', 'stray'));
    await import('node:fs/promises').then((fs) => fs.writeFile(stray, 'left by someone'));
    expect(await mirrorLake(s3, BUCKET, dir)).toMatchObject({ copied: 1, unchanged: 0, deleted: 1 });
    expect(mirrored(dir)).toEqual(new Map([...bodies].map(([key, body]) => [key, Buffer.from(body)])));
  });

  it('does not write outside the directory for a key with `..` (a listing that names one, injected)', async () => {
    // S3 keys are any text; the emulator's URL handling cannot store this one, so the listing says it.
    const escaping = 'lake/../../escaped.parquet';
    const hostile = {
      send: async (command: unknown) => {
        const answer = await s3.send(command as ListObjectsV2Command);
        if (!(command instanceof ListObjectsV2Command)) return answer;
        const listing = answer as ListObjectsV2CommandOutput;
        return { ...listing, Contents: [...(listing.Contents ?? []), { Key: escaping, ETag: '"x"', Size: 7 }] };
      },
    } as unknown as S3Client;
    const counts = await mirrorLake(hostile, BUCKET, dir);
    expect(counts).toMatchObject({ copied: 0, deleted: 0, refused: [escaping] });
    expect(existsSync(join(dir, '..', 'escaped.parquet'))).toBe(false);
    expect(existsSync(join(dir, 'escaped.parquet'))).toBe(false);
  });

  it('two runs at once on one directory take turns and agree', async () => {
    const [first, second] = await Promise.all([mirrorLake(s3, BUCKET, dir), mirrorLake(s3, BUCKET, dir)]);
    expect(first).toMatchObject({ copied: 0, deleted: 0 });
    expect(second).toMatchObject({ copied: 0, deleted: 0 });
    expect(mirrored(dir)).toEqual(new Map([...bodies].map(([key, body]) => [key, Buffer.from(body)])));
  });

  it('is what the DuckDB engine reads', async () => {
    const engine = await createDuckDbLakeEngine({ root: dir });
    try {
      const result = await engine.run({
        sql: 'SELECT bot_id, count(*) AS lines FROM utterances WHERE strpos(lower(text), lower(?)) > 0 GROUP BY bot_id',
        params: ['PRICING'],
      });
      expect(result.rows).toEqual([['bot_a', 1]]);
    } finally {
      engine.close();
    }
  });
});
