import { DeleteObjectCommand, GetObjectCommand, ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import {
  QUARANTINE_PREFIX,
  type QuarantineStore,
  quarantineEntrySchema,
  quarantineKeyDay,
  quarantineWriter,
} from '../core/ingress/quarantine';
import { s3Payloads } from './s3-payloads';

/** Quarantined webhooks in the payload bucket, for the re-drive command and erasure. */
export function s3Quarantine(client: S3Client, bucket: string): QuarantineStore {
  return {
    // Written as the ingress writes it: through the payload bucket's checked put.
    put: quarantineWriter(s3Payloads(client, bucket)).put,
    async list(prefix = QUARANTINE_PREFIX) {
      const keys: string[] = [];
      let token: string | undefined;
      do {
        const page = await client.send(
          new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }),
        );
        for (const object of page.Contents ?? []) if (object.Key !== undefined) keys.push(object.Key);
        token = page.IsTruncated === true ? page.NextContinuationToken : undefined;
      } while (token !== undefined);
      // Every layout ends in the day received: by that day, the oldest come first.
      return keys
        .map((key) => ({ key, day: quarantineKeyDay(key) }))
        .sort((a, b) => a.day.localeCompare(b.day) || a.key.localeCompare(b.key))
        .map(({ key }) => key);
    },
    async read(key) {
      const object = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
      const text = (await object.Body?.transformToString('utf8')) ?? '';
      return quarantineEntrySchema.parse(JSON.parse(text));
    },
    async remove(key) {
      await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
    },
  };
}
