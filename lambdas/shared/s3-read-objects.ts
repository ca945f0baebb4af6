/** The read API's S3 access: a stored text back, and presigned GET links signed with the function's role. */
import { GetObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { ReadObjects } from '../core/read/read-dependencies';
import { required } from '../core/required';

export function s3ReadObjects(client: S3Client): ReadObjects {
  return {
    async readText(bucket, key) {
      const object = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
      return required(object.Body, `s3://${bucket}/${key} body`).transformToString('utf8');
    },
    presignGet: (bucket, key, seconds) =>
      getSignedUrl(client, new GetObjectCommand({ Bucket: bucket, Key: key }), { expiresIn: seconds }),
  };
}
