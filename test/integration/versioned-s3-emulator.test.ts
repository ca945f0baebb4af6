/**
 * The versioned S3 emulator (local/emulators/versioned-s3.ts) driven by the real AWS SDK: versions
 * accumulate, delete markers hide keys, versions are read back by id, listings page, DeleteObjects
 * of every version and marker leaves nothing, errors carry S3's statuses, and what it does not
 * implement is 501. Where moto_server is installed (not in CI), the same scenario also runs
 * against moto, an independent implementation of S3, and what the client saw must be the same.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  DeleteBucketCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetBucketVersioningCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  ListObjectVersionsCommand,
  PutBucketVersioningCommand,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startVersionedS3Emulator, type VersionedS3Emulator } from '../../local/emulators/versioned-s3';

const MiB = 1024 * 1024;

function client(endpoint: string): S3Client {
  return new S3Client({
    endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 1,
  });
}

/** What an S3 call answered, without what differs between correct implementations (ids, dates, request ids). */
type Outcome = { ok: unknown } | { status: number | undefined; code: string; deleteMarker?: string };

async function attempt(call: () => Promise<unknown>): Promise<Outcome> {
  try {
    return { ok: await call() };
  } catch (error) {
    if (!(error instanceof S3ServiceException)) throw error;
    const headers = (error.$response as { headers?: Record<string, string> } | undefined)?.headers ?? {};
    const marker = headers['x-amz-delete-marker'];
    return {
      status: error.$metadata.httpStatusCode,
      code: error.name,
      ...(marker === undefined ? {} : { deleteMarker: marker }),
    };
  }
}

const sha = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** 12 MiB that is not one byte repeated, so a misplaced or lost part changes its hash. */
const bigBody = Buffer.alloc(12 * MiB);
for (let i = 0; i < bigBody.length; i++) bigBody[i] = (i * 7 + (i >> 13)) & 0xff;

/**
 * The scenario, recorded step by step as the client saw it. Version ids become v1, v2… in order of
 * first appearance, so two implementations' runs compare version by version.
 */
async function scenario(endpoint: string, bucket: string): Promise<Record<string, unknown>> {
  const s3 = client(endpoint);
  const ids = new Map<string, string>();
  const label = (id: string | undefined): string | undefined => {
    if (id === undefined || id === 'null') return id;
    if (!ids.has(id)) ids.set(id, `v${ids.size + 1}`);
    return ids.get(id);
  };
  const idOf = (name: string): string => {
    for (const [id, known] of ids) if (known === name) return id;
    throw new Error(`no version ${name}`);
  };
  const seen: Record<string, unknown> = {};

  const read = async (Key: string, version?: string) => {
    const object = await s3.send(
      new GetObjectCommand({ Bucket: bucket, Key, VersionId: version === undefined ? undefined : idOf(version) }),
    );
    const bytes = (await object.Body?.transformToByteArray()) ?? new Uint8Array();
    return {
      body: bytes.length > 1024 ? `sha256:${sha(bytes)}` : Buffer.from(bytes).toString('utf8'),
      bytes: object.ContentLength,
      etag: object.ETag,
      contentType: object.ContentType,
      metadata: object.Metadata,
      version: label(object.VersionId),
    };
  };
  const head = async (Key: string, version?: string) => {
    const object = await s3.send(
      new HeadObjectCommand({ Bucket: bucket, Key, VersionId: version === undefined ? undefined : idOf(version) }),
    );
    return {
      bytes: object.ContentLength,
      etag: object.ETag,
      metadata: object.Metadata,
      version: label(object.VersionId),
    };
  };
  const put = async (
    Key: string,
    Body: string | Buffer,
    extra: { ContentType?: string; Metadata?: Record<string, string> } = {},
  ) => {
    const out = await s3.send(new PutObjectCommand({ Bucket: bucket, Key, Body, ...extra }));
    return { etag: out.ETag, version: label(out.VersionId) };
  };
  const remove = async (Key: string, version?: string) => {
    const out = await s3.send(
      new DeleteObjectCommand({ Bucket: bucket, Key, VersionId: version === undefined ? undefined : idOf(version) }),
    );
    return { deleteMarker: out.DeleteMarker, version: label(out.VersionId) };
  };
  const listVersions = async (MaxKeys?: number) => {
    const entries: Array<{ key: string; kind: string; version: string; latest: boolean }> = [];
    let pages = 0;
    let KeyMarker: string | undefined;
    let VersionIdMarker: string | undefined;
    for (;;) {
      const page = await s3.send(
        new ListObjectVersionsCommand({ Bucket: bucket, MaxKeys, KeyMarker, VersionIdMarker }),
      );
      pages += 1;
      // The SDK splits S3's one ordered list into Versions and DeleteMarkers: merged back by key, then newest first.
      const all = [
        ...(page.Versions ?? []).map((v) => ({ ...v, kind: 'version' })),
        ...(page.DeleteMarkers ?? []).map((m) => ({ ...m, kind: 'marker' })),
      ];
      for (const entry of all) {
        entries.push({
          key: String(entry.Key),
          kind: entry.kind,
          version: String(label(entry.VersionId)),
          latest: entry.IsLatest === true,
        });
      }
      if (page.IsTruncated !== true) break;
      KeyMarker = page.NextKeyMarker;
      VersionIdMarker = page.NextVersionIdMarker;
    }
    // Within a page S3 interleaves versions and markers by age; labels grow with age, so sort by key then label.
    const age = (version: string) => (version === 'null' ? 0 : Number(version.slice(1)));
    entries.sort((a, b) =>
      a.key === b.key ? age(b.version) - age(a.version) : Buffer.compare(Buffer.from(a.key), Buffer.from(b.key)),
    );
    return { pages, entries: entries.map((e) => `${e.key} ${e.kind} ${e.version}${e.latest ? ' latest' : ''}`) };
  };
  const listKeys = async (input: { MaxKeys?: number; Prefix?: string; Delimiter?: string }) => {
    const keys: string[] = [];
    const prefixes: string[] = [];
    let pages = 0;
    let ContinuationToken: string | undefined;
    do {
      const page = await s3.send(new ListObjectsV2Command({ Bucket: bucket, ContinuationToken, ...input }));
      pages += 1;
      keys.push(...(page.Contents ?? []).map((object) => `${object.Key} ${object.Size} ${object.ETag}`));
      prefixes.push(...(page.CommonPrefixes ?? []).map((prefix) => String(prefix.Prefix)));
      ContinuationToken = page.IsTruncated === true ? page.NextContinuationToken : undefined;
    } while (ContinuationToken !== undefined);
    return { pages, keys, prefixes };
  };
  const deleteMany = async (objects: Array<{ Key: string; VersionId?: string }>, Quiet: boolean) => {
    const out = await s3.send(new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: objects, Quiet } }));
    return {
      deleted: (out.Deleted ?? [])
        .map(
          (d) =>
            `${d.Key} ${label(d.VersionId)} ${d.DeleteMarker === true ? `marker ${label(d.DeleteMarkerVersionId)}` : ''}`,
        )
        .sort(),
      errors: (out.Errors ?? []).map((e) => `${e.Key} ${e.Code}`),
    };
  };

  // A bucket before versioning: its versions are "null".
  await s3.send(new CreateBucketCommand({ Bucket: bucket }));
  seen.versioningBefore = (await s3.send(new GetBucketVersioningCommand({ Bucket: bucket }))).Status ?? 'never';
  seen.unversionedPut = await put('plain.txt', 'before versioning');
  await s3.send(new PutBucketVersioningCommand({ Bucket: bucket, VersioningConfiguration: { Status: 'Enabled' } }));
  seen.versioningAfter = (await s3.send(new GetBucketVersioningCommand({ Bucket: bucket }))).Status;

  // Versions accumulate; each is readable by its id.
  const meta = { ContentType: 'text/plain', Metadata: { owner: 'ada', 'meeting-id': 'm-1' } };
  seen.puts = [
    await put('docs/a.txt', 'one', meta),
    await put('docs/a.txt', 'two', meta),
    await put('docs/a.txt', 'three'),
  ];
  seen.latest = await read('docs/a.txt');
  seen.byVersion = [await read('docs/a.txt', 'v1'), await read('docs/a.txt', 'v2')];
  seen.head = await head('docs/a.txt', 'v2');

  // A delete marker hides the key; its versions stay; naming the marker is 405.
  seen.deleteMarker = await remove('docs/a.txt');
  seen.afterMarker = {
    get: await attempt(() => read('docs/a.txt')),
    head: await attempt(() => head('docs/a.txt')),
    getMarker: await attempt(() => read('docs/a.txt', 'v4')),
    headMarker: await attempt(() => head('docs/a.txt', 'v4')),
    oldVersion: await read('docs/a.txt', 'v2'),
  };

  // More keys, some in UTF-8 order unlike UTF-16 order (U+FF01 sorts before U+1F600 in UTF-8 only).
  await put('docs/b.txt', 'b1');
  await put('docs/b.txt', 'b2');
  await put('img/c.bin', Buffer.from([0, 1, 2, 255]), { ContentType: 'application/octet-stream' });
  await put('u/\u{1F600}', 'smile');
  await put('u/\uFF01', 'bang');
  await put('z', 'last');
  seen.copy = await attempt(async () => {
    const out = await s3.send(
      new CopyObjectCommand({
        Bucket: bucket,
        Key: 'docs/copy.txt',
        CopySource: `${bucket}/docs/a.txt?versionId=${idOf('v1')}`,
      }),
    );
    return { etag: out.CopyObjectResult?.ETag, version: label(out.VersionId), source: label(out.CopySourceVersionId) };
  });
  seen.copied = await read('docs/copy.txt');

  // A 12 MiB upload in 5 MiB parts, as the archive uploads recordings.
  await new Upload({
    client: s3,
    params: { Bucket: bucket, Key: 'big.bin', Body: bigBody, ContentType: 'video/mp4', Metadata: { parts: 'three' } },
    partSize: 5 * MiB,
    queueSize: 2,
  }).done();
  seen.big = await read('big.bin');
  seen.bigHash = sha(bigBody);

  // Multipart uploads listed, refused when too small, aborted.
  const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: 'pending.bin' }));
  const uploads = await s3.send(new ListMultipartUploadsCommand({ Bucket: bucket }));
  seen.uploads = (uploads.Uploads ?? []).map((u) => `${u.Key} ${u.UploadId === UploadId}`);
  const parts: Array<{ PartNumber: number; ETag: string | undefined }> = [];
  for (const PartNumber of [1, 2]) {
    const { ETag } = await s3.send(
      new UploadPartCommand({
        Bucket: bucket,
        Key: 'pending.bin',
        UploadId,
        PartNumber,
        Body: Buffer.alloc(1024, PartNumber),
      }),
    );
    parts.push({ PartNumber, ETag });
  }
  seen.tooSmall = await attempt(() =>
    s3.send(
      new CompleteMultipartUploadCommand({
        Bucket: bucket,
        Key: 'pending.bin',
        UploadId,
        MultipartUpload: { Parts: parts },
      }),
    ),
  );
  await s3.send(new AbortMultipartUploadCommand({ Bucket: bucket, Key: 'pending.bin', UploadId }));
  seen.afterAbort = (await s3.send(new ListMultipartUploadsCommand({ Bucket: bucket }))).Uploads ?? [];
  // An aborted upload takes no more parts: S3 answers 404 NoSuchUpload (moto fails with a 500 here, so it is
  // left out of the comparison: see the emulator-only test below).
  if (endpoint === emulator?.endpoint) {
    seen.partAfterAbort = await attempt(() =>
      s3.send(new UploadPartCommand({ Bucket: bucket, Key: 'pending.bin', UploadId, PartNumber: 3, Body: 'x' })),
    );
  }

  // Listings: every version and marker over several pages; only live keys in ListObjectsV2.
  seen.versions = await listVersions(3);
  seen.versionsOnePage = (await listVersions()).entries;
  seen.keys = await listKeys({ MaxKeys: 2 });
  seen.prefixed = await listKeys({ Prefix: 'docs/' });
  seen.delimited = await listKeys({ Delimiter: '/' });

  // Removing one version for good.
  seen.removeVersion = await remove('docs/a.txt', 'v1');
  seen.removedVersion = await attempt(() => read('docs/a.txt', 'v1'));
  seen.missing = {
    key: await attempt(() => read('no/such/key')),
    headKey: await attempt(() => head('no/such/key')),
    bucket: await attempt(() => s3.send(new GetObjectCommand({ Bucket: `${bucket}-none`, Key: 'x' }))),
  };
  seen.notEmpty = await attempt(() => s3.send(new DeleteBucketCommand({ Bucket: bucket })));

  // DeleteObjects without version ids adds markers; with them, removes versions and markers for good.
  seen.batchMarkers = await deleteMany([{ Key: 'z' }, { Key: 'docs/b.txt' }], false);
  const everything = await s3.send(new ListObjectVersionsCommand({ Bucket: bucket }));
  const all = [...(everything.Versions ?? []), ...(everything.DeleteMarkers ?? [])].map((v) => ({
    Key: String(v.Key),
    VersionId: v.VersionId,
  }));
  const markers = new Set((everything.DeleteMarkers ?? []).map((m) => m.VersionId));
  seen.batchVerbose = await deleteMany(
    all.filter((v) => markers.has(v.VersionId)),
    false,
  );
  seen.batchQuiet = await deleteMany(
    all.filter((v) => !markers.has(v.VersionId)),
    true,
  );
  seen.afterAll = {
    versions: await listVersions(),
    keys: await listKeys({}),
    deletedAgain: await deleteMany([{ Key: 'z', VersionId: all.find((v) => v.Key === 'z')?.VersionId }], false),
  };
  await s3.send(new DeleteBucketCommand({ Bucket: bucket }));
  seen.bucketGone = await attempt(() => s3.send(new ListObjectVersionsCommand({ Bucket: bucket })));
  s3.destroy();
  return seen;
}

let emulator: VersionedS3Emulator;
let ours: Record<string, unknown>;

beforeAll(async () => {
  emulator = await startVersionedS3Emulator();
  ours = await scenario(emulator.endpoint, `scenario-${randomUUID()}`);
});
afterAll(async () => {
  await emulator?.stop();
});

describe('the versioned S3 emulator', () => {
  it('keeps every version, readable by id, with its metadata', () => {
    expect(ours.versioningBefore).toBe('never');
    expect(ours.unversionedPut).toEqual({ etag: `"${createHash('md5').update('before versioning').digest('hex')}"` });
    expect(ours.versioningAfter).toBe('Enabled');
    expect(ours.puts).toMatchObject([{ version: 'v1' }, { version: 'v2' }, { version: 'v3' }]);
    expect(ours.latest).toEqual({
      body: 'three',
      bytes: 5,
      etag: `"${createHash('md5').update('three').digest('hex')}"`,
      contentType: expect.any(String),
      metadata: {},
      version: 'v3',
    });
    expect(ours.byVersion).toEqual([
      expect.objectContaining({
        body: 'one',
        contentType: 'text/plain',
        metadata: { owner: 'ada', 'meeting-id': 'm-1' },
        version: 'v1',
      }),
      expect.objectContaining({ body: 'two', version: 'v2' }),
    ]);
    expect(ours.head).toMatchObject({ bytes: 3, metadata: { owner: 'ada', 'meeting-id': 'm-1' }, version: 'v2' });
  });

  it('hides a key behind a delete marker: 404 NoSuchKey, 405 for the marker itself, old versions kept', () => {
    expect(ours.deleteMarker).toEqual({ deleteMarker: true, version: 'v4' });
    expect(ours.afterMarker).toEqual({
      get: { status: 404, code: 'NoSuchKey', deleteMarker: 'true' },
      head: { status: 404, code: 'NotFound', deleteMarker: 'true' },
      getMarker: { status: 405, code: 'MethodNotAllowed', deleteMarker: 'true' },
      headMarker: { status: 405, code: 'Unknown', deleteMarker: 'true' },
      oldVersion: expect.objectContaining({ body: 'two', version: 'v2' }),
    });
  });

  it('copies a named version and uploads 12 MiB in parts as one version', () => {
    expect(ours.copy).toMatchObject({ ok: { source: 'v1' } });
    expect(ours.copied).toMatchObject({ body: 'one', metadata: { owner: 'ada', 'meeting-id': 'm-1' } });
    expect(ours.big).toMatchObject({
      body: `sha256:${ours.bigHash}`,
      bytes: 12 * MiB,
      contentType: 'video/mp4',
      metadata: { parts: 'three' },
      etag: expect.stringMatching(/^"[0-9a-f]{32}-3"$/),
    });
    expect(ours.uploads).toEqual(['pending.bin true']);
    expect(ours.tooSmall).toEqual({ status: 400, code: 'EntityTooSmall' });
    expect(ours.afterAbort).toEqual([]);
    expect(ours.partAfterAbort).toEqual({ status: 404, code: 'NoSuchUpload' });
  });

  it('lists versions and markers newest first, in UTF-8 key order, over pages', () => {
    const versions = ours.versions as { pages: number; entries: string[] };
    expect(versions.entries).toEqual(ours.versionsOnePage);
    expect(versions.pages).toBe(Math.ceil(versions.entries.length / 3));
    expect(versions.entries).toEqual([
      'big.bin version v12 latest',
      'docs/a.txt marker v4 latest',
      'docs/a.txt version v3',
      'docs/a.txt version v2',
      'docs/a.txt version v1',
      'docs/b.txt version v6 latest',
      'docs/b.txt version v5',
      'docs/copy.txt version v11 latest',
      'img/c.bin version v7 latest',
      'plain.txt version null latest',
      'u/\uFF01 version v9 latest',
      'u/\u{1F600} version v8 latest',
      'z version v10 latest',
    ]);
    expect(ours.keys).toMatchObject({
      pages: 4,
      keys: [
        expect.stringMatching(/^big\.bin 12582912 /),
        `docs/b.txt 2 "${createHash('md5').update('b2').digest('hex')}"`,
        expect.stringMatching(/^docs\/copy\.txt 3 /),
        expect.stringMatching(/^img\/c\.bin 4 /),
        expect.stringMatching(/^plain\.txt /),
        expect.stringMatching(/^u\/\uFF01 /),
        expect.stringMatching(/^u\/\u{1F600} /u),
        expect.stringMatching(/^z /),
      ],
    });
    expect(ours.prefixed).toMatchObject({
      keys: [expect.stringMatching(/^docs\/b/), expect.stringMatching(/^docs\/copy/)],
    });
    expect(ours.delimited).toMatchObject({
      keys: [expect.stringMatching(/^big\.bin/), expect.stringMatching(/^plain\.txt/), expect.stringMatching(/^z /)],
      prefixes: ['docs/', 'img/', 'u/'],
    });
  });

  it('removes versions for good, and answers S3 statuses for what is missing', () => {
    expect(ours.removeVersion).toEqual({ version: 'v1' });
    expect(ours.removedVersion).toEqual({ status: 404, code: 'NoSuchVersion' });
    expect(ours.missing).toEqual({
      key: { status: 404, code: 'NoSuchKey' },
      headKey: { status: 404, code: 'NotFound' },
      bucket: { status: 404, code: 'NoSuchBucket' },
    });
    expect(ours.notEmpty).toEqual({ status: 409, code: 'BucketNotEmpty' });
  });

  it('DeleteObjects adds markers without version ids, and with them leaves nothing at all', () => {
    expect(ours.batchMarkers).toEqual({
      deleted: ['docs/b.txt undefined marker v14', 'z undefined marker v13'],
      errors: [],
    });
    expect(ours.batchVerbose).toEqual({
      deleted: ['docs/a.txt v4 marker v4', 'docs/b.txt v14 marker v14', 'z v13 marker v13'],
      errors: [],
    });
    expect(ours.batchQuiet).toEqual({ deleted: [], errors: [] });
    expect(ours.afterAll).toEqual({
      versions: { pages: 1, entries: [] },
      keys: { pages: 1, keys: [], prefixes: [] },
      deletedAgain: { deleted: ['z v10 '], errors: [] },
    });
    expect(ours.bucketGone).toEqual({ status: 404, code: 'NoSuchBucket' });
  });

  it('resumes a version listing after a deleted marker version, refuses malformed ids, suspends to null versions', async () => {
    const s3 = client(emulator.endpoint);
    const Bucket = 'paging';
    await s3.send(new CreateBucketCommand({ Bucket }));
    await s3.send(new PutBucketVersioningCommand({ Bucket, VersioningConfiguration: { Status: 'Enabled' } }));
    for (const body of ['1', '2', '3', '4']) await s3.send(new PutObjectCommand({ Bucket, Key: 'k', Body: body }));
    const first = await s3.send(new ListObjectVersionsCommand({ Bucket, MaxKeys: 2 }));
    expect(first.IsTruncated).toBe(true);
    await s3.send(new DeleteObjectCommand({ Bucket, Key: 'k', VersionId: first.NextVersionIdMarker }));
    const rest = await s3.send(
      new ListObjectVersionsCommand({
        Bucket,
        KeyMarker: first.NextKeyMarker,
        VersionIdMarker: first.NextVersionIdMarker,
      }),
    );
    expect(rest.Versions?.map((v) => v.Size)).toEqual([1, 1]);
    expect(
      await attempt(() =>
        s3.send(new ListObjectVersionsCommand({ Bucket, KeyMarker: 'k', VersionIdMarker: 'not-a-version' })),
      ),
    ).toEqual({ status: 400, code: 'InvalidArgument' });
    expect(await attempt(() => s3.send(new GetObjectCommand({ Bucket, Key: 'k', VersionId: 'nope' })))).toEqual({
      status: 400,
      code: 'InvalidArgument',
    });

    await s3.send(new PutBucketVersioningCommand({ Bucket, VersioningConfiguration: { Status: 'Suspended' } }));
    expect((await s3.send(new PutObjectCommand({ Bucket, Key: 'k', Body: 'a' }))).VersionId).toBe('null');
    expect((await s3.send(new PutObjectCommand({ Bucket, Key: 'k', Body: 'bb' }))).VersionId).toBe('null');
    const listed = await s3.send(new ListObjectVersionsCommand({ Bucket }));
    expect(listed.Versions?.map((v) => [v.VersionId === 'null', v.Size, v.IsLatest])).toEqual([
      [true, 2, true],
      [false, 1, false],
      [false, 1, false],
      [false, 1, false],
    ]);
    s3.destroy();
  });

  it('answers 501 NotImplemented for what it does not implement', async () => {
    const s3 = client(emulator.endpoint);
    await s3.send(new CreateBucketCommand({ Bucket: 'unsupported' }));
    const { GetBucketPolicyCommand, PutObjectTaggingCommand, ListObjectsCommand } = await import('@aws-sdk/client-s3');
    expect(await attempt(() => s3.send(new GetBucketPolicyCommand({ Bucket: 'unsupported' })))).toEqual({
      status: 501,
      code: 'NotImplemented',
    });
    expect(await attempt(() => s3.send(new ListObjectsCommand({ Bucket: 'unsupported' })))).toEqual({
      status: 501,
      code: 'NotImplemented',
    });
    expect(
      await attempt(() =>
        s3.send(new PutObjectTaggingCommand({ Bucket: 'unsupported', Key: 'k', Tagging: { TagSet: [] } })),
      ),
    ).toEqual({ status: 501, code: 'NotImplemented' });
    expect(
      await attempt(() =>
        s3.send(new PutObjectCommand({ Bucket: 'unsupported', Key: 'k', Body: 'x', ServerSideEncryption: 'aws:kms' })),
      ),
    ).toEqual({ status: 501, code: 'NotImplemented' });
    s3.destroy();
  });

  it('refuses requests without AWS authentication, and bodies that do not match their checksum', async () => {
    const anonymous = await fetch(`${emulator.endpoint}/unsupported?list-type=2`);
    expect(anonymous.status).toBe(403);
    expect(await anonymous.text()).toContain('<Code>AccessDenied</Code>');
    const s3 = client(emulator.endpoint);
    const wrong = await attempt(() =>
      s3.send(
        new PutObjectCommand({
          Bucket: 'unsupported',
          Key: 'k',
          Body: 'x',
          ChecksumSHA256: createHash('sha256').update('y').digest('base64'),
        }),
      ),
    );
    expect(wrong).toEqual({ status: 400, code: 'BadDigest' });
    s3.destroy();
  });
});

/** moto_server runs when it is on PATH (a development machine; CI has no moto). */
const hasMoto = spawnSync('moto_server', ['--help'], { stdio: 'ignore', timeout: 30_000 }).status === 0;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (address === null || typeof address === 'string') throw new Error('no TCP port');
  return address.port;
}

/**
 * Where moto (5.x) departs from the S3 API reference, the emulator follows the reference; the
 * comparison maps the emulator's answers to moto's for exactly these points, and nothing else:
 *  - GetObject whose latest is a delete marker: S3 adds x-amz-delete-marker: true (GetObject,
 *    DeleteMarker response header); moto leaves it out on GET (it sends it on HEAD).
 *  - GetObject naming a delete marker's version id: S3 answers 405 Method Not Allowed (same page);
 *    moto answers 404 NoSuchVersion (its HeadObject answers 405, as S3).
 *  - DeleteObjects in Quiet mode: S3 answers only the failures (DeleteObjects, Quiet); moto lists all.
 *  - DeleteObjects removing a delete marker by version id: S3 says DeleteMarker true and
 *    DeleteMarkerVersionId (DeletedObject); moto leaves both out.
 *  - UploadPart to an aborted upload: S3 answers 404 NoSuchUpload; moto fails with a 500 HTML page,
 *    so that step runs against the emulator only.
 */
function asMotoAnswers(seen: Record<string, unknown>): Record<string, unknown> {
  const { partAfterAbort: _emulatorOnly, ...comparable } = structuredClone(seen);
  const afterMarker = comparable.afterMarker as Record<string, Record<string, unknown>>;
  delete afterMarker.get?.deleteMarker;
  afterMarker.getMarker = { status: 404, code: 'NoSuchVersion' };
  const verbose = comparable.batchVerbose as { deleted: string[] };
  verbose.deleted = verbose.deleted.map((line) => line.replace(/ marker v\d+$/, ' '));
  const quiet = comparable.batchQuiet as { deleted: string[] };
  const versions = comparable.versionsOnePage as string[];
  quiet.deleted = versions
    .filter((line) => line.includes(' version '))
    .filter((line) => !line.startsWith('docs/a.txt version v1'))
    .map((line) => {
      const [key, , version] = line.split(' ');
      return `${key} ${version} `;
    })
    .sort();
  return comparable;
}

// Conformance: an independent implementation of S3, where one is available, must answer the same scenario alike.
describe.runIf(hasMoto)('the emulator against moto', () => {
  let moto: ChildProcess | undefined;
  let motoEndpoint = '';
  beforeAll(async () => {
    const port = await freePort();
    moto = spawn('moto_server', ['-H', '127.0.0.1', '-p', String(port)], { stdio: 'ignore' });
    motoEndpoint = `http://127.0.0.1:${port}`;
    const deadline = Date.now() + 30_000;
    for (;;) {
      try {
        if ((await fetch(`${motoEndpoint}/moto-api/`)).ok) break;
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline) throw new Error('moto_server did not start');
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  });
  afterAll(() => {
    moto?.kill();
  });

  it('answers the scenario as moto does', async () => {
    const theirs = await scenario(motoEndpoint, `scenario-${randomUUID()}`);
    expect(asMotoAnswers(ours)).toEqual(theirs);
  });
});
