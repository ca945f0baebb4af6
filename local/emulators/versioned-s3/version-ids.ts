/**
 * Version ids. S3's are opaque 32-character strings; here each one also carries the sequence
 * number of the write that made it, so a version-id-marker still has a place in the listing
 * order after its version was deleted (S3 continues from where it was, it does not fail).
 * A string that is not a version id at all is S3's 400 "Invalid version id specified".
 */
import { randomBytes } from 'node:crypto';
import { invalidArgument } from './errors';

/** The id of versions written while versioning was never enabled, or suspended. */
export const NULL_VERSION = 'null';

export function newVersionId(sequence: number): string {
  const bytes = Buffer.alloc(24);
  bytes.writeBigUInt64BE(BigInt(sequence), 0);
  randomBytes(16).copy(bytes, 8);
  return bytes.toString('base64url');
}

/** The write sequence a version id was made at; throws InvalidArgument for a malformed id. */
export function sequenceOf(versionId: string): number {
  const bytes = /^[A-Za-z0-9_-]{32}$/.test(versionId) ? Buffer.from(versionId, 'base64url') : undefined;
  if (bytes?.length !== 24) throw invalidArgument('Invalid version id specified', 'versionId', versionId);
  return Number(bytes.readBigUInt64BE(0));
}
