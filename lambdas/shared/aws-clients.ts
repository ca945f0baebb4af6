/**
 * AWS SDK clients as every function builds them. Endpoints come from the standard
 * AWS_ENDPOINT_URL_<SERVICE> variables, so local mode only sets environment.
 */
import type { S3ClientConfig } from '@aws-sdk/client-s3';
import { SQSClient } from '@aws-sdk/client-sqs';

export interface ClientTimeouts {
  /** Time to open a connection. */
  connectionTimeoutMs: number;
  /** Time for one attempt to answer. */
  requestTimeoutMs: number;
  /** Attempts including the first. */
  maxAttempts: number;
}

export const DEFAULT_CLIENT_TIMEOUTS: ClientTimeouts = {
  connectionTimeoutMs: 1_000,
  requestTimeoutMs: 3_000,
  maxAttempts: 3,
};

function commonConfig(timeouts: ClientTimeouts) {
  return {
    maxAttempts: timeouts.maxAttempts,
    requestHandler: { connectionTimeout: timeouts.connectionTimeoutMs, requestTimeout: timeouts.requestTimeoutMs },
  };
}

const hasLocalEndpoint = (env: NodeJS.ProcessEnv, service: string): boolean =>
  env[`AWS_ENDPOINT_URL_${service}`] !== undefined || env.AWS_ENDPOINT_URL !== undefined;

export function sqsClient(
  timeouts: ClientTimeouts = DEFAULT_CLIENT_TIMEOUTS,
  env: NodeJS.ProcessEnv = process.env,
): SQSClient {
  // With an explicit (local) endpoint, send there rather than to the host named in a queue URL.
  return new SQSClient({ ...commonConfig(timeouts), useQueueUrlAsEndpoint: !hasLocalEndpoint(env, 'SQS') });
}

export function s3ClientConfig(
  timeouts: ClientTimeouts = DEFAULT_CLIENT_TIMEOUTS,
  env: NodeJS.ProcessEnv = process.env,
): S3ClientConfig {
  // A local S3 endpoint serves buckets by path, not by host name.
  return { ...commonConfig(timeouts), forcePathStyle: hasLocalEndpoint(env, 'S3') };
}
