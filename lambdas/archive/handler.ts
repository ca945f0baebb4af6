/** Lambda entry point for the archive queue. */
import { sqsClient } from '../shared/aws-clients';
import { documentClient } from '../shared/dynamo-client';
import { telemetry, withPowertools } from '../shared/powertools';
import { s3Client } from '../shared/s3-client';
import { RECORDING_S3_TIMEOUTS } from '../shared/s3-recordings';
import { upstreamClient } from '../shared/upstream';
import { archiveDependencies, archiveHandlerOptions, createArchiveHandler } from './adapter';
import { archiveEnvironmentSchema } from './environment';

const env = archiveEnvironmentSchema.parse(process.env);
const handle = createArchiveHandler(
  archiveDependencies(
    env,
    { db: documentClient(), s3: s3Client(RECORDING_S3_TIMEOUTS), upstream: upstreamClient(env, telemetry) },
    telemetry,
  ),
  archiveHandlerOptions(env, sqsClient()),
);

export const handler = withPowertools(handle);
