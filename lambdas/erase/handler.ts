/**
 * Lambda entry point of the erase function: the `DELETE /meetings/{bot_id}` route, the
 * erasure queue (erasure and second-sweep jobs) and the daily retention run.
 */
import type { APIGatewayProxyEventV2, SQSEvent } from 'aws-lambda';
import { sqsClient } from '../shared/aws-clients';
import { documentClient } from '../shared/dynamo-client';
import { telemetry, withPowertools } from '../shared/powertools';
import { s3Client } from '../shared/s3-client';
import { sqsErasureQueue } from '../shared/sqs-erasure-queue';
import { upstreamClient } from '../shared/upstream';
import { createEraseApiHandler, createErasureQueueHandler, eraseDependencies } from './adapter';
import { eraseEnvironmentSchema } from './environment';
import { createRetentionHandler, isRetentionRun } from './retention-adapter';

const env = eraseEnvironmentSchema.parse(process.env);
const sqs = sqsClient();
const queue = sqsErasureQueue(sqs, env.ERASURE_QUEUE_URL);
const deps = eraseDependencies(
  env,
  { db: documentClient(), s3: s3Client(), sqs, queue, upstream: upstreamClient(env, telemetry) },
  telemetry,
);
const api = createEraseApiHandler(deps);
const jobs = createErasureQueueHandler(deps);
const retention = createRetentionHandler(env, {
  table: deps.table,
  queue,
  telemetry,
  now: () => new Date(),
  lake: deps.lake,
});

/** One function, three triggers: each event is told apart by its shape. */
export const handler = withPowertools(async (event: APIGatewayProxyEventV2 | SQSEvent | unknown) => {
  if (isRetentionRun(event)) return retention();
  if (typeof event === 'object' && event !== null && 'Records' in event) return jobs(event as SQSEvent);
  return api(event as APIGatewayProxyEventV2);
});
