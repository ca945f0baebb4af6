/**
 * Writing one payload object to S3 with its checksum: used by s3-payloads.ts with
 * the caller's client, and bundled on its own as the ingress's on-demand module.
 */
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { type ClientTimeouts, s3ClientConfig } from './aws-clients';

export interface PayloadObject {
  bucket: string;
  key: string;
  bytes: Buffer;
  sha256: Buffer;
  contentType: string;
}

/** Writes one object with its SHA-256: S3 refuses the upload if the bytes it received do not match. */
export async function putPayloadObject(client: S3Client, object: PayloadObject): Promise<void> {
  await client.send(
    new PutObjectCommand({
      Bucket: object.bucket,
      Key: object.key,
      Body: object.bytes,
      ContentType: object.contentType,
      ChecksumSHA256: object.sha256.toString('base64'),
    }),
  );
}

let client: S3Client | undefined;

/** Entry point of the on-demand module (see s3-payloads-on-demand.ts): creates its client on first use. */
export async function putObject(request: PayloadObject & { timeouts: ClientTimeouts }): Promise<void> {
  client ??= new S3Client(s3ClientConfig(request.timeouts));
  await putPayloadObject(client, request);
}
