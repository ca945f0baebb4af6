/** Lambda entry point for the launcher state machine's tasks. */
import { documentClient } from '../shared/dynamo-client';
import { eventBridgeClient, eventBridgePublisher } from '../shared/eventbridge-publisher';
import { telemetry, withPowertools } from '../shared/powertools';
import { upstreamClient } from '../shared/upstream';
import { createLaunchTaskHandler } from './adapter';
import { launchBotEnvironmentSchema } from './environment';

const env = launchBotEnvironmentSchema.parse(process.env);
const handle = createLaunchTaskHandler({
  table: { db: documentClient(), tableName: env.TABLE_NAME },
  upstream: upstreamClient(env, telemetry),
  events: eventBridgePublisher(eventBridgeClient(), env.EVENT_BUS_NAME),
  telemetry,
});

export const handler = withPowertools(handle);
