/** Lambda entry point for the events queue. */

import { sqsClient } from '../shared/aws-clients';
import { documentClient } from '../shared/dynamo-client';
import { telemetry, withPowertools } from '../shared/powertools';
import { s3Client } from '../shared/s3-client';
import { createProcessEventsHandler, processEventsDependencies } from './adapter';
import { processEventsEnvironmentSchema } from './environment';

const env = processEventsEnvironmentSchema.parse(process.env);
const handle = createProcessEventsHandler(
  processEventsDependencies(env, { db: documentClient(), sqs: sqsClient(), s3: s3Client() }, telemetry),
);

export const handler = withPowertools(handle);
