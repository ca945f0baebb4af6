/** Where bodies too big for a queue message are kept (S3 in AWS and local mode). */
export interface PayloadStore {
  readonly bucket: string;
  /** Stores the bytes under `key`; resolves once they are durable. */
  put(key: string, bytes: Buffer, sha256: Buffer): Promise<void>;
}
