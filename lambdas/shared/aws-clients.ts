/**
 * AWS SDK clients as every function builds them. Endpoints come from the standard
 * AWS_ENDPOINT_URL_<SERVICE> variables, so local mode only sets environment.
 */
import { S3Client } from '@aws-sdk/client-s3';
import { SQSClient } from '@aws-sdk/client-sqs';

export interface ClientTimeouts {
  /** Time to open a connection. */
  connectionTimeoutMs: number;
  /** Time for one attempt to answer. */
  requestTimeoutMs: number;
  /** Attempts including the first. */
  maxAttempts: number;
}

export const DEFAULT_CLIENT_TIMEOUTS: ClientTimeouts = { connectionTimeoutMs: 1_000, requestTimeoutMs: 3_000, maxAttempts: 3 };

function commonConfig(timeouts: ClientTimeouts) {
  return {
    maxAttempts: timeouts.maxAttempts,
    requestHandler: { connectionTimeout: timeouts.connectionTimeoutMs, requestTimeout: timeouts.requestTimeoutMs },
  };
}

export function sqsClient(timeouts: ClientTimeouts = DEFAULT_CLIENT_TIMEOUTS, env: NodeJS.ProcessEnv = process.env): SQSClient {
  // With an explicit (local) endpoint, send there rather than to the host named in a queue URL.
  const local = env.AWS_ENDPOINT_URL_SQS !== undefined || env.AWS_ENDPOINT_URL !== undefined;
  return new SQSClient({ ...commonConfig(timeouts), useQueueUrlAsEndpoint: !local });
}

export function s3Client(timeouts: ClientTimeouts = DEFAULT_CLIENT_TIMEOUTS, env: NodeJS.ProcessEnv = process.env): S3Client {
  // A local S3 endpoint serves buckets by path, not by host name.
  const local = env.AWS_ENDPOINT_URL_S3 !== undefined || env.AWS_ENDPOINT_URL !== undefined;
  return new S3Client({ ...commonConfig(timeouts), forcePathStyle: local });
}
