/**
 * The buckets in memory, with S3's versioning rules and nothing about HTTP: each key holds its
 * versions and delete markers newest first; a bucket whose versioning was never enabled (or is
 * suspended) writes the "null" version, replacing the one before; an enabled bucket only ever
 * adds, and only a delete naming a version id removes anything for good.
 */
import type { ChecksumAlgorithm } from './checksums';
import { noSuchBucket, S3Error } from './errors';
import { NULL_VERSION, newVersionId, sequenceOf } from './version-ids';

export type Versioning = 'Unversioned' | 'Enabled' | 'Suspended';

export interface ObjectContent {
  body: Buffer;
  /** Quoted, as S3 sends it: `"<md5 hex>"`, or `"<md5 of part md5s>-<parts>"` for a multipart upload. */
  etag: string;
  contentType: string;
  metadata: Record<string, string>;
  checksum?: { algorithm: ChecksumAlgorithm; value: string };
}

export interface StoredVersion {
  key: string;
  versionId: string;
  /** Order of writes across the emulator: newest first within a key, and where a version-id-marker stands. */
  sequence: number;
  lastModified: Date;
  deleteMarker: boolean;
  content?: ObjectContent;
}

export interface Part {
  etag: string;
  bytes: Buffer;
  lastModified: Date;
  checksum?: { algorithm: ChecksumAlgorithm; value: string };
}

export interface MultipartUpload {
  uploadId: string;
  key: string;
  initiated: Date;
  contentType: string;
  metadata: Record<string, string>;
  checksumAlgorithm?: ChecksumAlgorithm;
  parts: Map<number, Part>;
}

export interface Bucket {
  name: string;
  created: Date;
  versioning: Versioning;
  /** Key → versions and delete markers, newest first. */
  objects: Map<string, StoredVersion[]>;
  uploads: Map<string, MultipartUpload>;
}

/** S3 orders keys by their UTF-8 bytes, not by UTF-16 code units as String comparison does. */
export const compareKeys = (a: string, b: string): number => Buffer.compare(Buffer.from(a), Buffer.from(b));

export class Store {
  private readonly buckets = new Map<string, Bucket>();
  private sequence = 0;

  /** Monotonic, so "newest" is well defined even for writes in the same millisecond. */
  nextSequence(): number {
    this.sequence += 1;
    return this.sequence;
  }

  bucket(name: string): Bucket {
    const bucket = this.buckets.get(name);
    if (bucket === undefined) throw noSuchBucket(name);
    return bucket;
  }

  hasBucket(name: string): boolean {
    return this.buckets.has(name);
  }

  allBuckets(): Bucket[] {
    return [...this.buckets.values()].sort((a, b) => compareKeys(a.name, b.name));
  }

  createBucket(name: string): void {
    this.buckets.set(name, {
      name,
      created: new Date(),
      versioning: 'Unversioned',
      objects: new Map(),
      uploads: new Map(),
    });
  }

  deleteBucket(name: string): void {
    const bucket = this.bucket(name);
    if (bucket.objects.size > 0) {
      throw new S3Error('BucketNotEmpty', 409, 'The bucket you tried to delete is not empty', { BucketName: name });
    }
    this.buckets.delete(name);
  }

  /** Writes a new version: a fresh id when versioning is enabled, else the "null" version, replaced. */
  put(bucket: Bucket, key: string, content: ObjectContent): StoredVersion {
    return this.add(bucket, key, { deleteMarker: false, content });
  }

  /**
   * A delete that names no version: a delete marker in a versioned bucket (even for a key that has
   * no versions, as S3 does), the null version removed in an unversioned one. Returns the marker.
   */
  deleteLatest(bucket: Bucket, key: string): StoredVersion | undefined {
    if (bucket.versioning === 'Unversioned') {
      bucket.objects.delete(key);
      return undefined;
    }
    return this.add(bucket, key, { deleteMarker: true });
  }

  /** Removes one version or delete marker for good; undefined when there was none (S3 answers success). */
  deleteVersion(bucket: Bucket, key: string, versionId: string): StoredVersion | undefined {
    if (versionId !== NULL_VERSION) sequenceOf(versionId);
    const versions = bucket.objects.get(key) ?? [];
    const index = versions.findIndex((version) => version.versionId === versionId);
    if (index < 0) return undefined;
    const [removed] = versions.splice(index, 1);
    if (versions.length === 0) bucket.objects.delete(key);
    return removed;
  }

  latest(bucket: Bucket, key: string): StoredVersion | undefined {
    return bucket.objects.get(key)?.[0];
  }

  /** The named version or marker; throws InvalidArgument for a malformed id, returns undefined for a missing one. */
  version(bucket: Bucket, key: string, versionId: string): StoredVersion | undefined {
    if (versionId !== NULL_VERSION) sequenceOf(versionId);
    return bucket.objects.get(key)?.find((version) => version.versionId === versionId);
  }

  private add(bucket: Bucket, key: string, entry: Pick<StoredVersion, 'deleteMarker' | 'content'>): StoredVersion {
    const sequence = this.nextSequence();
    const versioned = bucket.versioning === 'Enabled';
    const version: StoredVersion = {
      key,
      versionId: versioned ? newVersionId(sequence) : NULL_VERSION,
      sequence,
      lastModified: new Date(),
      ...entry,
    };
    const older = (bucket.objects.get(key) ?? []).filter((old) => versioned || old.versionId !== NULL_VERSION);
    bucket.objects.set(key, [version, ...older]);
    return version;
  }
}
