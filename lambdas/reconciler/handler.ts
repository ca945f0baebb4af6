/** Lambda entry point for the scheduled reconciler. */
import { processEventsDependencies } from '../process-events/adapter';
import { sqsClient } from '../shared/aws-clients';
import { documentClient } from '../shared/dynamo-client';
import { telemetry, withPowertools } from '../shared/powertools';
import { s3Client } from '../shared/s3-client';
import { upstreamClient } from '../shared/upstream';
import { reconciler } from './adapter';
import { reconcilerEnvironmentSchema } from './environment';

const env = reconcilerEnvironmentSchema.parse(process.env);
const processing = processEventsDependencies(
  env,
  { db: documentClient(), sqs: sqsClient(), s3: s3Client() },
  telemetry,
);
const run = reconciler(processing, upstreamClient(env, telemetry), telemetry, {
  staleAfterMs: env.STALE_AFTER_MINUTES * 60_000,
  maxMeetings: env.MAX_MEETINGS_PER_RUN,
});

export const handler = withPowertools(() => run());
