/** Lambda entry point for the read API's routes. */
import { documentClient } from '../shared/dynamo-client';
import { telemetry, withPowertools } from '../shared/powertools';
import { s3Client } from '../shared/s3-client';
import { createReadApiHandler, readApiDependencies } from './adapter';
import { readApiEnvironmentSchema } from './environment';

const env = readApiEnvironmentSchema.parse(process.env);
const handle = createReadApiHandler(readApiDependencies(env, { db: documentClient(), s3: s3Client() }), telemetry);

export const handler = withPowertools(handle);
