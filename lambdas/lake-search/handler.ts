/** Lambda entry point for the read API's lake routes (search, stats, pending results). */
import { AthenaClient } from '@aws-sdk/client-athena';
import { DEFAULT_CLIENT_TIMEOUTS } from '../shared/aws-clients';
import { telemetry, withPowertools } from '../shared/powertools';
import { createLakeSearchHandler, lakeSearchDependencies } from './adapter';
import { lakeSearchEnvironmentSchema } from './environment';

const env = lakeSearchEnvironmentSchema.parse(process.env);
const athena = new AthenaClient({
  maxAttempts: DEFAULT_CLIENT_TIMEOUTS.maxAttempts,
  requestHandler: {
    connectionTimeout: DEFAULT_CLIENT_TIMEOUTS.connectionTimeoutMs,
    requestTimeout: DEFAULT_CLIENT_TIMEOUTS.requestTimeoutMs,
  },
});

export const handler = withPowertools(createLakeSearchHandler(lakeSearchDependencies(env, { athena }, telemetry)));
