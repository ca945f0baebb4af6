/** Lambda entry point of the lake's daily compaction (its schedule and grants: the lake's construct). */
import { documentClient } from '../shared/dynamo-client';
import { telemetry, withPowertools } from '../shared/powertools';
import { s3Client } from '../shared/s3-client';
import { createLakeCompactionHandler, lakeCompactionDependencies } from './adapter';
import { lakeCompactionEnvironmentSchema } from './environment';

const env = lakeCompactionEnvironmentSchema.parse(process.env);
const run = createLakeCompactionHandler(
  env,
  lakeCompactionDependencies(env, { db: documentClient(), s3: s3Client() }, telemetry),
);

export const handler = withPowertools(() => run());
