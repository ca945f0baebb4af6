/** Claim-checked bodies in the payload bucket, for event processing: read back and checked, or stored. */
import { createHash } from 'node:crypto';
import { GetObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { PoisonEventError } from '../core/events/process-event';
import type { PayloadReader, PayloadStore } from '../core/queue/payload-store';
import type { ClaimCheckPointer } from '../core/queue/queued-event';
import { required } from '../core/required';
import { putPayloadObject } from './s3-payload-put';

/** Claim-checked bodies in the payload bucket, read back and checked against their digest. */
export function s3Payloads(client: S3Client, bucket: string): PayloadReader & PayloadStore {
  return {
    bucket,
    put: (key, bytes, sha256) =>
      putPayloadObject(client, { bucket, key, bytes, sha256, contentType: 'application/json' }),
    async read(pointer: ClaimCheckPointer) {
      const { bucket: from, key, sha256 } = pointer.claimCheck;
      let bytes: Buffer;
      try {
        const object = await client.send(new GetObjectCommand({ Bucket: from, Key: key }));
        bytes = Buffer.from(await required(object.Body, `s3://${from}/${key} body`).transformToByteArray());
      } catch (error) {
        if (error instanceof Error && error.name === 'NoSuchKey') {
          throw new PoisonEventError(`claim-checked body s3://${from}/${key} is gone (expired or deleted)`);
        }
        throw error;
      }
      if (createHash('sha256').update(bytes).digest('hex') !== sha256) {
        throw new PoisonEventError(`claim-checked body s3://${from}/${key} does not match its SHA-256`);
      }
      return bytes;
    },
  };
}
