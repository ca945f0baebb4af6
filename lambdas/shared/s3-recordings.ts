import type { Readable } from 'node:stream';
import {
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  type S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
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

const MiB = 1024 * 1024;

/**
 * Memory for one upload stays near partSize × queueSize, whatever the recording's
 * size. 8 MiB parts fit S3's 10,000-part limit up to 78 GiB, and the local S3
 * emulator's 11 MiB request limit; in AWS the stack sets larger parts (fewer requests).
 */
export const RECORDING_UPLOAD: UploadSettings = { partSize: 8 * MiB, queueSize: 4 };

/** The upload settings for a part size in MiB, or the default when none is given. */
export function uploadSettings(partMiB: number | undefined): UploadSettings {
  return partMiB === undefined ? RECORDING_UPLOAD : { ...RECORDING_UPLOAD, partSize: partMiB * MiB };
}

const notFound = (error: unknown): boolean =>
  error instanceof S3ServiceException && (error.name === 'NotFound' || error.$metadata.httpStatusCode === 404);

export function s3Recordings(
  client: S3Client,
  bucket: string,
  upload: UploadSettings = RECORDING_UPLOAD,
): RecordingStore {
  return {
    bucket,
    async upload(key, body, contentType, metadata) {
      const transfer = new Upload({
        client,
        params: { Bucket: bucket, Key: key, Body: body, ContentType: contentType, Metadata: metadata },
        partSize: upload.partSize,
        queueSize: upload.queueSize,
        // On failure the multipart upload is aborted; the bucket's lifecycle rule is the backstop.
        leavePartsOnError: false,
      });
      await transfer.done();
    },
    async put(key, body, contentType, metadata) {
      await client.send(
        new PutObjectCommand({ Bucket: bucket, Key: key, Body: body, ContentType: contentType, Metadata: metadata }),
      );
    },
    async head(key) {
      try {
        const head = await client.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
        return {
          key,
          bytes: head.ContentLength ?? 0,
          contentType: head.ContentType ?? 'application/octet-stream',
          metadata: head.Metadata ?? {},
        };
      } catch (error) {
        if (notFound(error)) return null;
        throw error;
      }
    },
    async list(prefix) {
      const found: Array<{ key: string; bytes: number }> = [];
      let token: string | undefined;
      do {
        const page = await client.send(
          new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }),
        );
        for (const object of page.Contents ?? []) {
          if (object.Key !== undefined) found.push({ key: object.Key, bytes: object.Size ?? 0 });
        }
        token = page.IsTruncated === true ? page.NextContinuationToken : undefined;
      } while (token !== undefined);
      return found;
    },
    async read(key) {
      const { Body } = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
      if (Body === undefined) throw new Error(`s3://${bucket}/${key} has no body`);
      return Body as Readable;
    },
  };
}
