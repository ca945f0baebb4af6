/** Lambda entry point for the launcher state machine's tasks. */
import { documentClient } from '../shared/dynamo-client';
import { metrics, telemetry } from '../shared/powertools';
import { upstreamClient } from '../shared/upstream';
import { createLaunchTaskHandler } from './adapter';
import { launchBotEnvironmentSchema } from './environment';

const env = launchBotEnvironmentSchema.parse(process.env);
const handle = createLaunchTaskHandler({
  table: { db: documentClient(), tableName: env.TABLE_NAME },
  upstream: upstreamClient(env, telemetry),
  telemetry,
});

export const handler: typeof handle = async (event) => {
  try {
    return await handle(event);
  } finally {
    metrics.publishStoredMetrics();
  }
};
