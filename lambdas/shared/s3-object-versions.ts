import { DeleteObjectsCommand, ListObjectVersionsCommand, type S3Client } from '@aws-sdk/client-s3';
import type { ObjectVersion, ObjectVersionStore } from '../core/store/object-versions';

/** DeleteObjects takes at most 1,000 keys a call. */
const DELETE_BATCH = 1000;

export function s3ObjectVersions(client: S3Client): ObjectVersionStore {
  return {
    async listVersions(bucket, prefix) {
      const versions: ObjectVersion[] = [];
      let keyMarker: string | undefined;
      let versionIdMarker: string | undefined;
      do {
        const page = await client.send(
          new ListObjectVersionsCommand({
            Bucket: bucket,
            Prefix: prefix,
            KeyMarker: keyMarker,
            VersionIdMarker: versionIdMarker,
          }),
        );
        for (const entry of [...(page.Versions ?? []), ...(page.DeleteMarkers ?? [])]) {
          if (entry.Key !== undefined) versions.push({ key: entry.Key, versionId: entry.VersionId ?? 'null' });
        }
        const more = page.IsTruncated === true;
        keyMarker = more ? page.NextKeyMarker : undefined;
        versionIdMarker = more ? page.NextVersionIdMarker : undefined;
      } while (keyMarker !== undefined);
      return versions;
    },
    async deleteVersions(bucket, versions) {
      for (let start = 0; start < versions.length; start += DELETE_BATCH) {
        const batch = versions.slice(start, start + DELETE_BATCH);
        const { Errors } = await client.send(
          new DeleteObjectsCommand({
            Bucket: bucket,
            Delete: { Objects: batch.map(({ key, versionId }) => ({ Key: key, VersionId: versionId })), Quiet: true },
          }),
        );
        // A version already gone is what was asked for; anything else fails the erasure, which is retried.
        const failed = (Errors ?? []).filter((error) => error.Code !== 'NoSuchVersion' && error.Code !== 'NoSuchKey');
        if (failed.length > 0) {
          throw new Error(`S3 kept ${failed.length} object versions: ${failed[0]?.Code} ${failed[0]?.Message}`);
        }
      }
    },
  };
}

/** A claim-checked body removed for good (every version), for the consumer dropping an erased meeting's webhook. */
export function forgetBodies(store: ObjectVersionStore) {
  return async (pointer: { claimCheck: { bucket: string; key: string } }): Promise<void> => {
    const { bucket, key } = pointer.claimCheck;
    const versions = (await store.listVersions(bucket, key)).filter((version) => version.key === key);
    if (versions.length > 0) await store.deleteVersions(bucket, versions);
  };
}
