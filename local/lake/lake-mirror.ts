/**
 * Local mode's copy of the bucket's `lake/` in a directory, for engines that read local files only
 * (DuckDB has no S3 access here; the Athena emulator runs DuckDB too). Each run brings the directory
 * to what the bucket holds now: objects whose ETag changed (or whose file is missing or of another
 * size) are downloaded, unchanged ones are left, files the bucket no longer has are deleted (a
 * compacted day's recent files, an erased meeting's rows) along with directories left empty.
 *
 * A file is written under a hidden temporary name and renamed into place, so an engine reading
 * meanwhile sees the old file or the new one, never half of one (both engines skip hidden names).
 * The ETags seen are kept in `<dir>/.lake-mirror.json`. Runs on one directory take turns.
 */
import { randomUUID } from 'node:crypto';
import type { Dirent } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, rmdir, stat, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { GetObjectCommand, ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import { LAKE_PREFIX } from '../../lambdas/core/lake/lake-layout';

export interface LakeMirrorCounts {
  /** Objects downloaded (new or changed). */
  copied: number;
  /** Objects whose file was already current. */
  unchanged: number;
  /** Local files deleted because the bucket no longer has them. */
  deleted: number;
  /** Bytes downloaded. */
  bytes: number;
  /** Keys not mirrored because they would land outside the directory (`..`, absolute parts). */
  refused: string[];
}

const INDEX_FILE = '.lake-mirror.json';
/** Downloads at once: enough to hide the emulator's latency, few enough for a 2-core machine. */
const PARALLEL_DOWNLOADS = 8;

type EtagIndex = Record<string, string>;

/** Runs in progress per directory: two runs on one directory would delete each other's temporary files. */
const running = new Map<string, Promise<unknown>>();

export async function mirrorLake(s3: S3Client, bucket: string, dir: string): Promise<LakeMirrorCounts> {
  const root = resolve(dir);
  const previous = running.get(root) ?? Promise.resolve();
  const run = previous.catch(() => undefined).then(() => mirrorOnce(s3, bucket, root));
  running.set(root, run);
  try {
    return await run;
  } finally {
    if (running.get(root) === run) running.delete(root);
  }
}

async function mirrorOnce(s3: S3Client, bucket: string, root: string): Promise<LakeMirrorCounts> {
  const lakeRoot = join(root, LAKE_PREFIX);
  const counts: LakeMirrorCounts = { copied: 0, unchanged: 0, deleted: 0, bytes: 0, refused: [] };
  const before = await readIndex(root);
  const after: EtagIndex = {};
  const wanted = new Set<string>();
  const toCopy: Array<{ key: string; path: string; etag: string }> = [];

  for (const object of await listLake(s3, bucket)) {
    // A folder marker is no file.
    if (object.key.endsWith('/')) continue;
    const path = resolve(root, object.key);
    // A key is a path under the directory's lake/ or it is not mirrored (S3 keys may hold `..`).
    if (!path.startsWith(lakeRoot) || isHidden(relative(lakeRoot, path))) {
      counts.refused.push(object.key);
      continue;
    }
    wanted.add(path);
    const current = before[object.key] === object.etag && (await sizeOf(path)) === object.size;
    if (current) {
      after[object.key] = object.etag;
      counts.unchanged++;
    } else {
      toCopy.push({ key: object.key, path, etag: object.etag });
    }
  }

  for (let i = 0; i < toCopy.length; i += PARALLEL_DOWNLOADS) {
    await Promise.all(
      toCopy.slice(i, i + PARALLEL_DOWNLOADS).map(async ({ key, path, etag }) => {
        const bytes = await download(s3, bucket, key);
        await mkdir(dirname(path), { recursive: true });
        const temporary = join(dirname(path), `.${randomUUID()}.part`);
        await writeFile(temporary, bytes);
        await rename(temporary, path);
        after[key] = etag;
        counts.copied++;
        counts.bytes += bytes.byteLength;
      }),
    );
  }

  for (const path of await filesUnder(lakeRoot)) {
    if (wanted.has(path)) continue;
    await rm(path, { force: true });
    counts.deleted++;
  }
  await removeEmptyDirs(lakeRoot);
  await writeIndex(root, after);
  return counts;
}

const isHidden = (relativePath: string) => relativePath.split(sep).some((part) => part.startsWith('.'));

async function listLake(s3: S3Client, bucket: string): Promise<Array<{ key: string; etag: string; size: number }>> {
  const objects: Array<{ key: string; etag: string; size: number }> = [];
  let token: string | undefined;
  do {
    const page = await s3.send(
      new ListObjectsV2Command({ Bucket: bucket, Prefix: LAKE_PREFIX, ...(token ? { ContinuationToken: token } : {}) }),
    );
    for (const item of page.Contents ?? []) {
      if (item.Key === undefined) continue;
      objects.push({ key: item.Key, etag: item.ETag ?? '', size: item.Size ?? -1 });
    }
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token !== undefined);
  return objects;
}

async function download(s3: S3Client, bucket: string, key: string): Promise<Uint8Array> {
  const object = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  if (object.Body === undefined) throw new Error(`s3://${bucket}/${key} has no body`);
  return object.Body.transformToByteArray();
}

async function sizeOf(path: string): Promise<number | undefined> {
  try {
    return (await stat(path)).size;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** Every file under `dir` (hidden temporary files of an interrupted run included), or none. */
async function filesUnder(dir: string): Promise<string[]> {
  try {
    const entries = await readdir(dir, { recursive: true, withFileTypes: true });
    return entries.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

/** Removes directories under `dir` (not `dir` itself) that hold nothing; answers whether `dir` is empty. */
async function removeEmptyDirs(dir: string): Promise<boolean> {
  let entries: Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return true;
    throw error;
  }
  let empty = true;
  for (const entry of entries) {
    if (entry.isDirectory() && (await removeEmptyDirs(join(dir, entry.name)))) {
      await rmdir(join(dir, entry.name));
    } else {
      empty = false;
    }
  }
  return empty;
}

async function readIndex(root: string): Promise<EtagIndex> {
  try {
    const parsed: unknown = JSON.parse(await readFile(join(root, INDEX_FILE), 'utf8'));
    if (typeof parsed !== 'object' || parsed === null) return {};
    return Object.fromEntries(
      Object.entries(parsed).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
    );
  } catch {
    // No index (first run) or an unreadable one: every object is downloaded again.
    return {};
  }
}

async function writeIndex(root: string, index: EtagIndex): Promise<void> {
  await mkdir(root, { recursive: true });
  const temporary = join(root, `.${randomUUID()}.part`);
  await writeFile(temporary, JSON.stringify(index));
  await rename(temporary, join(root, INDEX_FILE));
}
