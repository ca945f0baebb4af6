import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { acceptWebhook, type IngressDependencies, outcomeResponse } from '../core/ingress/accept-webhook';
import { SqsEventQueue } from '../core/ingress/event-queue';
import { acceptanceClock, tableAcceptanceLog } from '../core/ingress/first-acceptance';
import { Quarantine, quarantineWriter } from '../core/ingress/quarantine';
import { tableQuarantineCap } from '../core/ingress/quarantine-cap';
import type { PayloadStore } from '../core/queue/payload-store';
import type { SecretSource } from '../core/secrets';
import { signingKeysFrom } from '../core/signature/verify';
import type { Telemetry } from '../core/telemetry';
import { WEBHOOK_SIGNATURE } from '../core/upstream/webhook-contract';
import type { IngressEnvironment } from './environment';

export type IngressHandler = (event: APIGatewayProxyEventV2) => Promise<APIGatewayProxyStructuredResultV2>;

/** Wires the ingress core to its clients; the Lambda, local mode and tests all build it this way. */
export function ingressDependencies(
  env: IngressEnvironment,
  clients: { sqs: SQSClient; payloads: PayloadStore; signingSecret: SecretSource; db: DynamoDBClient },
  telemetry: Telemetry,
): IngressDependencies {
  const now = () => new Date();
  return {
    signingKeys: signingKeysFrom(clients.signingSecret),
    queue: new SqsEventQueue(clients.sqs, clients.payloads, {
      queueUrl: env.EVENTS_QUEUE_URL,
      inlineLimitBytes: env.INLINE_MESSAGE_LIMIT_BYTES,
    }),
    maxBodyBytes: env.MAX_BODY_BYTES,
    quarantine: new Quarantine(
      quarantineWriter(clients.payloads),
      tableQuarantineCap(clients.db, env.TABLE_NAME, {
        maxEntriesPerMinute: env.QUARANTINE_MAX_PER_MINUTE,
        maxBytesPerMinute: env.QUARANTINE_MAX_BYTES_PER_MINUTE,
        maxEntriesPerBotPerDay: env.QUARANTINE_MAX_PER_BOT_PER_DAY,
      }),
      env.MAX_BODY_BYTES,
    ),
    telemetry,
    now,
    acceptedAt: acceptanceClock(now),
    acceptance: tableAcceptanceLog(clients.db, env.TABLE_NAME, {
      retentionSeconds: env.DEDUP_RETENTION_DAYS * 86_400,
      now: Date.now,
    }),
  };
}

/** HTTP API (payload format 2.0) event in, JSON answer out. */
export function createIngressHandler(deps: IngressDependencies): IngressHandler {
  return async (event) => {
    const body = Buffer.from(event.body ?? '', event.isBase64Encoded ? 'base64' : 'utf8');
    const outcome = await acceptWebhook({ body, signature: header(event, WEBHOOK_SIGNATURE.header) }, deps);
    const response = outcomeResponse(outcome);
    return { statusCode: response.status, headers: { 'content-type': 'application/json' }, body: response.body };
  };
}

function header(event: APIGatewayProxyEventV2, name: string): string | undefined {
  // HTTP APIs lower-case header names; look further only if a caller did not.
  const headers = event.headers ?? {};
  return headers[name] ?? Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1];
}
