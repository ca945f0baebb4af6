import type { ClaimCheckPointer } from './queued-event';

/** Where bodies too big for a queue message (or a table item) are kept: S3 in AWS and local mode. */
export interface PayloadStore {
  readonly bucket: string;
  /** Stores the bytes under `key`; resolves once they are durable. */
  put(key: string, bytes: Buffer, sha256: Buffer): Promise<void>;
}

/** Reads a claim-checked body back, checking it against the pointer's digest. */
export interface PayloadReader {
  read(pointer: ClaimCheckPointer): Promise<Buffer>;
}
