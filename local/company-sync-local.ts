/**
 * Company calendars in local mode: the same per-user sync the deployed consumer
 * runs, fed by the template's user-sync queue on the local SQS emulator and its
 * consumer (the deployed handler, polled at the event source's batch size and
 * concurrency), and the scheduled run (groups resolved, every user queued) on a
 * timer instead of EventBridge. The providers are the real Google and Microsoft
 * clients, pointed at the configured endpoints (the simulators with
 * `--calendar-simulators`).
 */
import { randomBytes } from 'node:crypto';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { type CalendarPushHandler, createCalendarPushHandler } from '../lambdas/calendar-push/adapter';
import { calendarPushDependencies, pushRenewalDependencies } from '../lambdas/calendar-push/dependencies';
import { createUserSyncHandler } from '../lambdas/calendars/user-sync-adapter';
import type { CalendarApiDependencies } from '../lambdas/core/calendar/calendar-api';
import { planCompanySyncs } from '../lambdas/core/calendar/company/company-run';
import { companyStore } from '../lambdas/core/calendar/company/company-store';
import type { CompanySyncDependencies, UserSyncOutcome } from '../lambdas/core/calendar/company/company-sync';
import type { CredentialsReader } from '../lambdas/core/calendar/company/credentials';
import { createGoogleProvider } from '../lambdas/core/calendar/company/google/google-provider';
import { createMicrosoftProvider } from '../lambdas/core/calendar/company/microsoft/microsoft-provider';
import type { ProviderEndpoints, UserSyncQueue } from '../lambdas/core/calendar/company/provider-contract';
import { providerSource } from '../lambdas/core/calendar/company/providers';
import { DEFAULT_PUSH_LIMITS, DEFAULT_PUSH_TIMING } from '../lambdas/core/calendar/company/push/push-settings';
import { reconcileSubscriptions } from '../lambdas/core/calendar/company/push/reconcile-subscriptions';
import { consumeUserSyncRequest } from '../lambdas/core/calendar/company/user-sync-consumer';
import { companyCalendarApi } from '../lambdas/core/calendar/company-calendar-api';
import type { DomainEventPublisher } from '../lambdas/core/domain-events/publisher';
import { staticSecret } from '../lambdas/core/secrets';
import { SERVICES } from '../lambdas/core/telemetry';
import { sqsClient } from '../lambdas/shared/aws-clients';
import { sqsUserSyncQueue } from '../lambdas/shared/sqs-user-sync-queue';
import { queueEmpty } from './queue-empty';
import { QueuePoller } from './queue-poller';
import type { LocalDeployment } from './template/local-deployment';

/** How often local mode runs the company plan (the deployed run follows `calendarSyncEveryMinutes`). */
export const LOCAL_COMPANY_RUN_EVERY_MS = 60_000;

export interface LocalCompanySyncOptions {
  calendars: CalendarApiDependencies;
  /** The local HTTP API's base: the push routes the providers are given are under it. */
  publicBaseUrl: string;
  endpoints: ProviderEndpoints;
  credentials: CredentialsReader;
  publisher: DomainEventPublisher;
  print(line: string): void;
  everyMs?: number;
  /** The user-sync queue (the template's, on the SQS emulator) and the client to send to it. */
  userSyncQueueUrl: string;
  sqs: SQSClient;
  /** Receives long-poll: a client whose timeout allows the wait. */
  pollerSqs: SQSClient;
  /** The deployed event source's: messages per invocation and invocations at once. */
  consumer: { batchSize: number; concurrency: number };
  /** The consumer's wait before a request that found its user's sync running runs again (the deployed one's unless given). */
  requeueDelaySeconds?: number;
}

export interface LocalCompanySync {
  deps: CompanySyncDependencies;
  queue: UserSyncQueue;
  /** User syncs the consumer finished (whatever the outcome) and those that threw. */
  stats: { completed: number; failed: number };
  /** True once the user-sync queue holds no message: none waiting, delayed or being handled. */
  drained(): Promise<boolean>;
  /** The push notification routes, as the deployed push function answers them. */
  pushHandler: CalendarPushHandler;
  /** One scheduled run now: groups resolved, every user not backing off queued. */
  runOnce(): Promise<void>;
  stop(): Promise<void>;
}

/** One line of the timeline per user sync: what it did, or why it did nothing. */
export function describeOutcome(outcome: UserSyncOutcome): string {
  const who = `calendar ${outcome.calendar_id} ${outcome.user}`;
  if (outcome.outcome !== 'synced') {
    const why = 'reason' in outcome && typeof outcome.reason === 'string' ? `: ${outcome.reason}` : '';
    return `${who}: ${outcome.outcome}${why}`;
  }
  const r = outcome.result;
  return `${who}: synced (${outcome.full ? 'full' : 'incremental'}): created ${r.created}, moved ${r.moved}, cancelled ${r.cancelled}, unchanged ${r.unchanged}, skipped ${r.skipped}${r.failed.length > 0 ? `, failed ${r.failed.length}` : ''}`;
}

/** A sync that changed nothing, or skipped a user another sync holds, would only repeat the timeline every run. */
function worthPrinting(outcome: UserSyncOutcome): boolean {
  if (outcome.outcome === 'skipped') return outcome.reason !== 'in-progress';
  if (outcome.outcome !== 'synced') return true;
  const r = outcome.result;
  return outcome.full || r.created + r.moved + r.cancelled + r.failed.length > 0;
}

/**
 * The user-sync queue and its consumer's polling as the template deploys them: the
 * queue its function is given (USER_SYNC_QUEUE_URL) and its event source's batch
 * size and maximum concurrency.
 */
export function templateUserSyncConsumer(
  deployment: LocalDeployment,
  pollerSqs: SQSClient,
): Pick<LocalCompanySyncOptions, 'userSyncQueueUrl' | 'sqs' | 'pollerSqs' | 'consumer'> {
  const source = deployment.resources.eventSourceOf(deployment.functionNamed(SERVICES.calendarUserSync));
  return {
    userSyncQueueUrl: deployment.parsedEnvironmentOf(SERVICES.calendarUserSync).USER_SYNC_QUEUE_URL,
    sqs: sqsClient(),
    pollerSqs,
    consumer: { batchSize: source.batchSize, concurrency: source.maxConcurrency },
  };
}

/** Wires the company sync into the local calendar routes (they take company sources from then on). */
export function startLocalCompanySync(options: LocalCompanySyncOptions): LocalCompanySync {
  const { calendars, print } = options;
  const deps: CompanySyncDependencies = {
    ...calendars,
    company: companyStore(calendars.schedules.table),
    providerFor: providerSource({
      credentials: options.credentials,
      factories: { google: createGoogleProvider, microsoft: createMicrosoftProvider },
      options: { endpoints: options.endpoints, now: calendars.now },
    }),
    publisher: options.publisher,
    telemetry: calendars.telemetry,
  };
  const queue = sqsUserSyncQueue(options.sqs, options.userSyncQueueUrl);
  const stats = { completed: 0, failed: 0 };
  const consumer = new QueuePoller({
    sqs: options.pollerSqs,
    queueUrl: options.userSyncQueueUrl,
    batchSize: options.consumer.batchSize,
    concurrency: options.consumer.concurrency,
    handler: createUserSyncHandler(async (request) => {
      try {
        const outcome = await consumeUserSyncRequest(
          request,
          { ...deps, queue },
          options.requeueDelaySeconds === undefined ? {} : { requeueDelaySeconds: options.requeueDelaySeconds },
        );
        stats.completed += 1;
        if (worthPrinting(outcome)) print(describeOutcome(outcome));
      } catch (error) {
        stats.failed += 1;
        print(
          `calendar ${request.calendar_id} ${request.user}: sync failed, left on the queue: ${error instanceof Error ? error.message : String(error)}`,
        );
        throw error;
      }
    }, calendars.telemetry),
  });
  consumer.start();
  calendars.companyCalendars = companyCalendarApi(deps);
  calendars.userSyncQueue = queue;
  // Push as deployed: a key of this run's own; the routes on the local HTTP API; renewal in the run.
  const pushKey = staticSecret(randomBytes(32).toString('base64url'));
  const push = { PUSH_KEY_SECRET_ID: 'local', PUSH_RENEW_MARGIN_MINUTES: DEFAULT_PUSH_TIMING.renewMarginMs / 60_000 };
  const { db, tableName } = calendars.schedules.table;
  const pushHandler = createCalendarPushHandler(
    calendarPushDependencies(
      {
        ...push,
        TABLE_NAME: tableName,
        SECRET_CACHE_SECONDS: 0,
        USER_SYNC_QUEUE_URL: options.userSyncQueueUrl,
        PUSH_MAX_BODY_BYTES: DEFAULT_PUSH_LIMITS.maxBodyBytes,
      },
      { db, queue, pushKey },
      calendars.telemetry,
      calendars.now,
    ),
  );
  const renewal = pushRenewalDependencies(
    { ...push, PUBLIC_BASE_URL: options.publicBaseUrl },
    { db, tableName, pushKey, endpoints: options.endpoints, providerFor: deps.providerFor },
    calendars.telemetry,
    calendars.now,
  );
  const runOnce = async () => {
    try {
      const plan = await planCompanySyncs({ ...deps, queue });
      if (plan.sources > 0 && (plan.added > 0 || plan.removed > 0 || plan.unresolved.length > 0))
        print(
          `company calendars: ${plan.sources} source(s), ${plan.users} user(s): added ${plan.added}, removed ${plan.removed}${plan.unresolved.map((u) => `; ${u.calendar_id}: group not resolved: ${u.reason}`).join('')}`,
        );
    } catch (error) {
      print(`company calendars: run failed: ${error instanceof Error ? error.message : String(error)}`);
    }
    // After the plan, as the deployed run: users it added get their channel in the same run.
    try {
      const channels = await reconcileSubscriptions(renewal);
      if (channels.opened + channels.recreated + channels.failed > 0)
        print(
          `company calendars: push channels opened ${channels.opened}, renewed ${channels.renewed}, replaced ${channels.replaced}, recreated ${channels.recreated}, failed ${channels.failed}`,
        );
    } catch (error) {
      print(
        `company calendars: push channels not reconciled: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  };
  const timer = setInterval(() => void runOnce(), options.everyMs ?? LOCAL_COMPANY_RUN_EVERY_MS);
  timer.unref();
  return {
    deps,
    queue,
    stats,
    drained: () => queueEmpty(options.sqs, options.userSyncQueueUrl),
    pushHandler,
    runOnce,
    async stop() {
      clearInterval(timer);
      await consumer.stop();
    },
  };
}
