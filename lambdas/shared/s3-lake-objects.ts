/**
 * The lake's objects in the stack's bucket (LakeObjects over an S3 client). Versions are listed and
 * deleted by the same store erasure uses (s3-object-versions.ts); local mode, whose S3 emulator keeps
 * one copy per key, passes its unversioned store instead.
 */
import {
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  type S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import type { LakeObjects } from '../core/lake/lake-contract';
import type { ObjectVersionStore } from '../core/store/object-versions';
import { s3ObjectVersions } from './s3-object-versions';
import { s3Recordings } from './s3-recordings';

/** The media type Parquet files are stored under. */
export const PARQUET_CONTENT_TYPE = 'application/vnd.apache.parquet';

const notFound = (error: unknown): boolean =>
  error instanceof S3ServiceException &&
  (error.name === 'NotFound' || error.name === 'NoSuchKey' || error.$metadata.httpStatusCode === 404);

export function s3LakeObjects(
  client: S3Client,
  bucket: string,
  versions: ObjectVersionStore = s3ObjectVersions(client),
): LakeObjects {
  return {
    bucket,
    listVersions: (listBucket, prefix) => versions.listVersions(listBucket, prefix),
    deleteVersions: (deleteBucket, list) => versions.deleteVersions(deleteBucket, list),
    async get(key, versionId) {
      try {
        const object = await client.send(
          new GetObjectCommand({ Bucket: bucket, Key: key, ...(versionId !== undefined && { VersionId: versionId }) }),
        );
        if (object.Body === undefined) throw new Error(`s3://${bucket}/${key} has no body`);
        return { body: await object.Body.transformToByteArray(), etag: object.ETag ?? '' };
      } catch (error) {
        if (notFound(error)) return null;
        throw error;
      }
    },
    async put(key, body, metadata) {
      await client.send(
        new PutObjectCommand({
          Bucket: bucket,
          Key: key,
          Body: body,
          ContentType: PARQUET_CONTENT_TYPE,
          ...(metadata && { Metadata: metadata }),
        }),
      );
    },
    async head(key) {
      try {
        const head = await client.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
        return { bytes: head.ContentLength ?? 0, etag: head.ETag ?? '', metadata: head.Metadata ?? {} };
      } catch (error) {
        if (notFound(error)) return null;
        throw error;
      }
    },
    // Every page: the recordings store already lists the bucket this way.
    list: (prefix) => s3Recordings(client, bucket).list(prefix),
  };
}
