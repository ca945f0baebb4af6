/**
 * The calendar push function's clients and settings, from its environment. The
 * provider for a company source (made with its credentials) comes in as `company`.
 */
import { SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { type CompanyCalendarSource, isCompanySource } from '../core/calendar/calendar-source';
import { calendarStore } from '../core/calendar/calendar-store';
import { companyStore } from '../core/calendar/company/company-store';
import {
  type CalendarProvider,
  DEFAULT_PROVIDER_ENDPOINTS,
  type UserSyncQueue,
} from '../core/calendar/company/provider-contract';
import { channelApis } from '../core/calendar/company/push/channel-api';
import {
  type ChannelLifecycleDependencies,
  recreateChannel,
  renewChannel,
} from '../core/calendar/company/push/channel-lifecycle';
import type { LifecycleDependencies } from '../core/calendar/company/push/push-receiver';
import { DEFAULT_PUSH_LIMITS, DEFAULT_PUSH_TIMING } from '../core/calendar/company/push/push-settings';
import { pushChannelStore } from '../core/calendar/company/push/push-store';
import type { ReconcileDependencies } from '../core/calendar/company/push/reconcile-subscriptions';
import type { SecretSource } from '../core/secrets';
import type { Telemetry } from '../core/telemetry';
import type { CalendarPushEnvironment } from './environment';

/** SQS takes ten messages per batch. */
const SQS_BATCH = 10;

/** The user-sync queue in AWS: one message per request. */
export function sqsUserSyncQueue(sqs: SQSClient, queueUrl: string): UserSyncQueue {
  return {
    async send(requests) {
      for (let i = 0; i < requests.length; i += SQS_BATCH) {
        const batch = requests.slice(i, i + SQS_BATCH);
        const answer = await sqs.send(
          new SendMessageBatchCommand({
            QueueUrl: queueUrl,
            Entries: batch.map((request, index) => ({ Id: String(index), MessageBody: JSON.stringify(request) })),
          }),
        );
        // A notification not queued must fail the request: the provider sends it again.
        if ((answer.Failed ?? []).length > 0)
          throw new Error(`user-sync queue refused ${answer.Failed?.length} messages`);
      }
    },
  };
}

export interface CompanyParts {
  providerFor(source: CompanyCalendarSource): Promise<CalendarProvider>;
}

export function calendarPushDependencies(
  env: CalendarPushEnvironment,
  clients: { db: DynamoDBDocumentClient; sqs: SQSClient; pushKey: SecretSource },
  company: CompanyParts,
  telemetry: Telemetry,
  now: () => number = Date.now,
): LifecycleDependencies & ReconcileDependencies {
  const table = { db: clients.db, tableName: env.TABLE_NAME };
  const calendars = calendarStore(table);
  const users = companyStore(table);
  const lifecycle: ChannelLifecycleDependencies = {
    channels: pushChannelStore(table),
    apis: channelApis({
      endpoints: {
        ...DEFAULT_PROVIDER_ENDPOINTS,
        googleCalendarApi: env.GOOGLE_CALENDAR_API,
        microsoftGraph: env.MICROSOFT_GRAPH,
      },
      settings: { publicBaseUrl: env.PUBLIC_BASE_URL.replace(/\/$/, ''), ...DEFAULT_PUSH_TIMING },
      now,
    }),
    providerFor: company.providerFor,
    pushKey: clients.pushKey,
    now,
  };
  return {
    ...lifecycle,
    queue: sqsUserSyncQueue(clients.sqs, env.USER_SYNC_QUEUE_URL),
    telemetry,
    limits: { ...DEFAULT_PUSH_LIMITS, maxBodyBytes: env.PUSH_MAX_BODY_BYTES },
    async sourceFor(calendarId) {
      const source = await calendars.getSource(calendarId);
      return source !== undefined && isCompanySource(source) ? source : undefined;
    },
    renew: (source, record) => renewChannel(source, record, lifecycle),
    recreate: (source, record) => recreateChannel(source, record, lifecycle),
    async listCompanySources() {
      return (await calendars.listSources()).filter(isCompanySource);
    },
    // A disconnected user's grant is gone: no channel can be opened or renewed for them until it is back.
    async listUsers(calendarId) {
      return (await users.listUsers(calendarId))
        .filter((user) => user.state !== 'disconnected')
        .map((user) => user.user);
    },
    renewMarginMs: env.PUSH_RENEW_MARGIN_MINUTES * 60_000,
  };
}
