/** Lambda entry point for POST /webhooks. */
import { sqsClient } from '../shared/aws-clients';
import { dynamoClient } from '../shared/dynamo-plain-client';
import { logger, telemetry, withPowertools } from '../shared/powertools';
import { s3PayloadStore } from '../shared/s3-payloads-on-demand';
import { secretsManagerSource } from '../shared/secrets-manager';
import { createIngressHandler, ingressDependencies } from './adapter';
import { ingressEnvironmentSchema } from './environment';

const env = ingressEnvironmentSchema.parse(process.env);
const handle = createIngressHandler(
  ingressDependencies(
    env,
    {
      sqs: sqsClient(),
      payloads: s3PayloadStore(env.PAYLOAD_BUCKET),
      signingSecret: secretsManagerSource(env.SIGNING_SECRET_ID, env.SECRET_CACHE_SECONDS),
      db: dynamoClient(),
    },
    telemetry,
  ),
);

export const handler = withPowertools(async (event: Parameters<typeof handle>[0]): ReturnType<typeof handle> => {
  try {
    return await handle(event);
  } catch (error) {
    // A bug, not bad input: answer 500 so the service retries, and leave a trace.
    logger.error('unexpected ingress failure', error as Error);
    return { statusCode: 500, headers: { 'content-type': 'application/json' }, body: '{"status":"error"}' };
  }
});
