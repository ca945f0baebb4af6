import { S3Client } from '@aws-sdk/client-s3';
import { type ClientTimeouts, DEFAULT_CLIENT_TIMEOUTS, s3ClientConfig } from './aws-clients';

export function s3Client(
  timeouts: ClientTimeouts = DEFAULT_CLIENT_TIMEOUTS,
  env: NodeJS.ProcessEnv = process.env,
): S3Client {
  return new S3Client(s3ClientConfig(timeouts, env));
}
