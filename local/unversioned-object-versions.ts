/**
 * Erasure's object store for local mode, whose S3 emulator (fauxqs) keeps one copy of an
 * object and cannot list versions: every object is its own only version (`null`, as S3
 * names the version of an unversioned object), deleted by key.
 */
import { DeleteObjectCommand, ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import type { ObjectVersion, ObjectVersionStore } from '../lambdas/core/store/object-versions';

export function unversionedObjects(client: S3Client): ObjectVersionStore {
  return {
    async listVersions(bucket, prefix) {
      const found: ObjectVersion[] = [];
      let token: string | undefined;
      do {
        const page = await client.send(
          new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }),
        );
        for (const object of page.Contents ?? [])
          if (object.Key !== undefined) found.push({ key: object.Key, versionId: 'null' });
        token = page.IsTruncated === true ? page.NextContinuationToken : undefined;
      } while (token !== undefined);
      return found;
    },
    async deleteVersions(bucket, versions) {
      for (const { key } of versions) await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
    },
  };
}
