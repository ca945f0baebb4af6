import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { s3ClientConfig, type ClientTimeouts } from './aws-clients';

let client: S3Client | undefined;

export async function putObject(request: {
  bucket: string;
  key: string;
  bytes: Buffer;
  sha256: Buffer;
  contentType: string;
  timeouts: ClientTimeouts;
}): Promise<void> {
  client ??= new S3Client(s3ClientConfig(request.timeouts));
  await client.send(
    new PutObjectCommand({
      Bucket: request.bucket,
      Key: request.key,
      Body: request.bytes,
      ContentType: request.contentType,
      // S3 refuses the upload if the bytes it received do not match.
      ChecksumSHA256: request.sha256.toString('base64'),
    }),
  );
}
