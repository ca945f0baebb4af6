/**
 * Calendar push's wiring, each part in one place: the notification routes' (the push
 * function: the table, the push key and the user-sync queue, never a credential) and
 * the renewal run's (the scheduled sync function, which alone reads the company
 * credentials: it gets `providerFor` from the sync's wiring).
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { CompanyCalendarSource } from '../core/calendar/calendar-source';
import { isCompanySource } from '../core/calendar/calendar-source';
import { calendarStore } from '../core/calendar/calendar-store';
import { companyStore } from '../core/calendar/company/company-store';
import type { CalendarProvider, ProviderEndpoints, UserSyncQueue } from '../core/calendar/company/provider-contract';
import { channelApis } from '../core/calendar/company/push/channel-api';
import type { LifecycleDependencies } from '../core/calendar/company/push/push-receiver';
import { DEFAULT_PUSH_LIMITS, DEFAULT_PUSH_TIMING } from '../core/calendar/company/push/push-settings';
import { pushChannelStore, pushRouteStore, routeDueMarks } from '../core/calendar/company/push/push-store';
import type { ReconcileDependencies } from '../core/calendar/company/push/reconcile-subscriptions';
import type { SecretSource } from '../core/secrets';
import type { Telemetry } from '../core/telemetry';
import type { CalendarPushEnvironment, PushRenewalEnvironment } from './environment';

const marginMs = (minutes: number) => minutes * 60_000;

/** The push function's: verify, look up the route, mark a channel due, ask for the user's sync. */
export function calendarPushDependencies(
  env: CalendarPushEnvironment,
  clients: { db: DynamoDBDocumentClient; queue: UserSyncQueue; pushKey: SecretSource },
  telemetry: Telemetry,
  now: () => number = Date.now,
): LifecycleDependencies {
  return {
    pushKey: clients.pushKey,
    channels: pushRouteStore({ db: clients.db, tableName: env.TABLE_NAME }),
    queue: clients.queue,
    telemetry,
    limits: { ...DEFAULT_PUSH_LIMITS, maxBodyBytes: env.PUSH_MAX_BODY_BYTES },
    renewMarginMs: marginMs(env.PUSH_RENEW_MARGIN_MINUTES),
    now,
  };
}

/** The renewal run's, inside the scheduled sync: the provider (and so the credentials) come from the sync. */
export function pushRenewalDependencies(
  env: PushRenewalEnvironment,
  parts: {
    db: DynamoDBDocumentClient;
    tableName: string;
    pushKey: SecretSource;
    endpoints: ProviderEndpoints;
    providerFor(source: CompanyCalendarSource): Promise<CalendarProvider>;
  },
  telemetry: Telemetry,
  now: () => number = Date.now,
): ReconcileDependencies {
  const table = { db: parts.db, tableName: parts.tableName };
  const calendars = calendarStore(table);
  const users = companyStore(table);
  const renewMarginMs = marginMs(env.PUSH_RENEW_MARGIN_MINUTES);
  return {
    channels: pushChannelStore(table),
    dueMarks: (records) => routeDueMarks(table, records),
    apis: channelApis({
      endpoints: parts.endpoints,
      settings: { ...DEFAULT_PUSH_TIMING, publicBaseUrl: env.PUBLIC_BASE_URL.replace(/\/$/, ''), renewMarginMs },
      now,
    }),
    providerFor: parts.providerFor,
    pushKey: parts.pushKey,
    now,
    telemetry,
    async listCompanySources() {
      return (await calendars.listSources()).filter(isCompanySource);
    },
    async currentSource(calendarId) {
      const source = await calendars.getSource(calendarId);
      return source !== undefined && isCompanySource(source) ? source : undefined;
    },
    // A disconnected user's grant is gone: no channel can be opened or renewed for them until it is back.
    async listUsers(calendarId) {
      return (await users.listUsers(calendarId))
        .filter((user) => user.state !== 'disconnected')
        .map((user) => user.user);
    },
    renewMarginMs,
  };
}
