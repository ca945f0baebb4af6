/**
 * Lambda entry point of calendar push: the three notification routes (HTTP API events).
 * It reads no credential and calls no provider; the channels are opened and renewed by
 * the scheduled calendar sync (lambdas/calendars/sync-handler.ts).
 */
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { sqsClient } from '../shared/aws-clients';
import { documentClient } from '../shared/dynamo-client';
import { logger, telemetry, withPowertools } from '../shared/powertools';
import { secretsManagerSource } from '../shared/secrets-manager';
import { sqsUserSyncQueue } from '../shared/sqs-user-sync-queue';
import { createCalendarPushHandler } from './adapter';
import { calendarPushDependencies } from './dependencies';
import { calendarPushEnvironmentSchema } from './environment';

const env = calendarPushEnvironmentSchema.parse(process.env);
const handle = createCalendarPushHandler(
  calendarPushDependencies(
    env,
    {
      db: documentClient(),
      queue: sqsUserSyncQueue(sqsClient(), env.USER_SYNC_QUEUE_URL),
      pushKey: secretsManagerSource(env.PUSH_KEY_SECRET_ID, env.SECRET_CACHE_SECONDS),
    },
    telemetry,
  ),
);

export const handler = withPowertools(async (event: APIGatewayProxyEventV2) => {
  try {
    return await handle(event);
  } catch (error) {
    // A bug or an outage, not bad input: 500, so the provider sends the notification again.
    logger.error('unexpected calendar push failure', error as Error);
    return { statusCode: 500, headers: { 'content-type': 'application/json' }, body: '{"error":"internal"}' };
  }
});
