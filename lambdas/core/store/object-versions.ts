/** What erasure needs of S3: every version and delete marker under a prefix, and removing them for good. */
export interface ObjectVersion {
  key: string;
  /** `null` in an unversioned bucket, as S3 lists it. */
  versionId: string;
}

export interface ObjectVersionStore {
  /** Every object version and delete marker whose key starts with `prefix`. */
  listVersions(bucket: string, prefix: string): Promise<ObjectVersion[]>;
  /** Deletes these versions permanently (a delete with a version id leaves no delete marker). */
  deleteVersions(bucket: string, versions: readonly ObjectVersion[]): Promise<void>;
}

/** Every version of exactly `key` (a listing by prefix also returns longer keys). */
export async function versionsOfKey(store: ObjectVersionStore, bucket: string, key: string): Promise<ObjectVersion[]> {
  return (await store.listVersions(bucket, key)).filter((version) => version.key === key);
}
