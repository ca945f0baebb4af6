/**
 * Lambda entry point of calendar push: the three notification routes (HTTP API
 * events) and the hourly renewal run (an EventBridge schedule), one function.
 */
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { reconcileSubscriptions } from '../core/calendar/company/push/reconcile-subscriptions';
import { sqsClient } from '../shared/aws-clients';
import { documentClient } from '../shared/dynamo-client';
import { logger, telemetry, withPowertools } from '../shared/powertools';
import { secretsManagerSource } from '../shared/secrets-manager';
import { createCalendarPushHandler } from './adapter';
import { companyParts } from './company-parts';
import { calendarPushDependencies } from './dependencies';
import { calendarPushEnvironmentSchema } from './environment';

const env = calendarPushEnvironmentSchema.parse(process.env);
const deps = calendarPushDependencies(
  env,
  {
    db: documentClient(),
    sqs: sqsClient(),
    pushKey: secretsManagerSource(env.PUSH_KEY_SECRET_ID, env.SECRET_CACHE_SECONDS),
  },
  companyParts(),
  telemetry,
);
const handle = createCalendarPushHandler(deps);

export const handler = withPowertools(async (event: APIGatewayProxyEventV2 | { source?: string }) => {
  if ('routeKey' in event) {
    try {
      return await handle(event);
    } catch (error) {
      // A bug or an outage, not bad input: 500, so the provider sends the notification again.
      logger.error('unexpected calendar push failure', error as Error);
      return { statusCode: 500, headers: { 'content-type': 'application/json' }, body: '{"error":"internal"}' };
    }
  }
  const outcome = await reconcileSubscriptions(deps);
  logger.info('calendar push channels reconciled', { ...outcome });
  return outcome;
});
