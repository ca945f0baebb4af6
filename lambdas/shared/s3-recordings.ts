import type { Readable } from 'node:stream';
import { PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import type { RecordingStore } from '../core/archive/recording-store';
import type { ClientTimeouts } from './aws-clients';

/** Completing a multipart upload of a large object can take S3 a while; 3 s is for small calls. */
export const RECORDING_S3_TIMEOUTS: ClientTimeouts = {
  connectionTimeoutMs: 2_000,
  requestTimeoutMs: 120_000,
  maxAttempts: 3,
};

export interface UploadSettings {
  partSize: number;
  queueSize: number;
}

/**
 * Memory for one upload stays near partSize × queueSize, whatever the recording's
 * size. 8 MiB parts fit S3's 10,000-part limit up to 78 GiB, and the local S3
 * emulator's 11 MiB request limit.
 */
export const RECORDING_UPLOAD: UploadSettings = { partSize: 8 * 1024 * 1024, queueSize: 4 };

export function s3Recordings(
  client: S3Client,
  bucket: string,
  upload: UploadSettings = RECORDING_UPLOAD,
): RecordingStore {
  return {
    bucket,
    async upload(key: string, body: Readable, contentType: string) {
      const transfer = new Upload({
        client,
        params: { Bucket: bucket, Key: key, Body: body, ContentType: contentType },
        partSize: upload.partSize,
        queueSize: upload.queueSize,
        // On failure the multipart upload is aborted; the bucket's lifecycle rule is the backstop.
        leavePartsOnError: false,
      });
      await transfer.done();
    },
    async putJson(key: string, value: unknown) {
      const bytes = Buffer.from(JSON.stringify(value), 'utf8');
      await client.send(
        new PutObjectCommand({ Bucket: bucket, Key: key, Body: bytes, ContentType: 'application/json' }),
      );
      return { bytes: bytes.length };
    },
  };
}
