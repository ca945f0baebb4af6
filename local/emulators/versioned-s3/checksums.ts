/**
 * The integrity checks S3 makes on what it receives: Content-MD5, x-amz-checksum-<algorithm>
 * (in a header or an aws-chunked trailer) and SigV4's x-amz-content-sha256. A mismatch is
 * refused as S3 refuses it, so a client that sends wrong bytes fails here as it would in AWS.
 */
import { createHash } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { S3Error } from './errors';

export const CHECKSUM_ALGORITHMS = ['crc32', 'crc32c', 'crc64nvme', 'sha1', 'sha256'] as const;
export type ChecksumAlgorithm = (typeof CHECKSUM_ALGORITHMS)[number];

export const isChecksumAlgorithm = (name: string): name is ChecksumAlgorithm =>
  (CHECKSUM_ALGORITHMS as readonly string[]).includes(name);

function reflectedTable(poly: bigint, width: number): bigint[] {
  const mask = (1n << BigInt(width)) - 1n;
  return Array.from({ length: 256 }, (_, n) => {
    let c = BigInt(n);
    for (let k = 0; k < 8; k++) c = c & 1n ? (c >> 1n) ^ poly : c >> 1n;
    return c & mask;
  });
}

// CRC-32C (Castagnoli) and CRC-64/NVME are not in node:zlib; both are reflected CRCs with all-ones init and xorout.
const CRC32C_TABLE = reflectedTable(0x82f63b78n, 32).map(Number);
const CRC64NVME_TABLE = reflectedTable(0x9a6c9329ac4bc9b5n, 64);

function crc32c(bytes: Buffer): Buffer {
  let c = 0xffffffff;
  for (const byte of bytes) c = (CRC32C_TABLE[(c ^ byte) & 0xff] ?? 0) ^ (c >>> 8);
  const out = Buffer.alloc(4);
  out.writeUInt32BE((c ^ 0xffffffff) >>> 0);
  return out;
}

function crc64nvme(bytes: Buffer): Buffer {
  const mask = (1n << 64n) - 1n;
  let c = mask;
  for (const byte of bytes) c = (CRC64NVME_TABLE[Number((c ^ BigInt(byte)) & 0xffn)] ?? 0n) ^ (c >> 8n);
  const out = Buffer.alloc(8);
  out.writeBigUInt64BE((c ^ mask) & mask);
  return out;
}

/** The base64 checksum of the bytes, as S3 writes it in x-amz-checksum-<algorithm>. */
export function checksum(algorithm: ChecksumAlgorithm, bytes: Buffer): string {
  switch (algorithm) {
    case 'crc32': {
      const out = Buffer.alloc(4);
      out.writeUInt32BE(crc32(bytes));
      return out.toString('base64');
    }
    case 'crc32c':
      return crc32c(bytes).toString('base64');
    case 'crc64nvme':
      return crc64nvme(bytes).toString('base64');
    case 'sha1':
    case 'sha256':
      return createHash(algorithm).update(bytes).digest('base64');
  }
}

export const md5Hex = (bytes: Buffer): string => createHash('md5').update(bytes).digest('hex');

export function verifyContentMd5(header: string, bytes: Buffer): void {
  if (Buffer.from(header, 'base64').length !== 16)
    throw new S3Error('InvalidDigest', 400, 'The Content-MD5 you specified was invalid.');
  if (createHash('md5').update(bytes).digest('base64') !== header) {
    throw new S3Error('BadDigest', 400, 'The Content-MD5 you specified did not match what we received.');
  }
}

export function verifyChecksum(algorithm: ChecksumAlgorithm, expected: string, bytes: Buffer): void {
  if (checksum(algorithm, bytes) !== expected) {
    throw new S3Error(
      'BadDigest',
      400,
      `The ${algorithm.toUpperCase()} you specified did not match the calculated checksum.`,
    );
  }
}

/** SigV4 names the payload's SHA-256 (hex) unless it says the payload is unsigned or streamed. */
export function verifyContentSha256(header: string | undefined, bytes: Buffer): void {
  if (header === undefined || !/^[0-9a-f]{64}$/.test(header)) return;
  if (createHash('sha256').update(bytes).digest('hex') !== header) {
    throw new S3Error(
      'XAmzContentSHA256Mismatch',
      400,
      "The provided 'x-amz-content-sha256' header does not match what was computed.",
    );
  }
}
