/**
 * Company calendars in local mode: the same per-user sync the deployed consumer
 * runs, fed by an in-process user-sync queue instead of SQS, and the scheduled
 * run (groups resolved, every user queued) on a timer instead of EventBridge.
 * The providers are the real Google and Microsoft clients, pointed at the
 * configured endpoints (the simulators with `--calendar-simulators`).
 */
import type { CalendarApiDependencies } from '../lambdas/core/calendar/calendar-api';
import { planCompanySyncs } from '../lambdas/core/calendar/company/company-run';
import { companyStore } from '../lambdas/core/calendar/company/company-store';
import {
  type CompanySyncDependencies,
  syncCompanyUser,
  type UserSyncOutcome,
} from '../lambdas/core/calendar/company/company-sync';
import type { CredentialsReader } from '../lambdas/core/calendar/company/credentials';
import { createGoogleProvider } from '../lambdas/core/calendar/company/google/google-provider';
import { createMicrosoftProvider } from '../lambdas/core/calendar/company/microsoft/microsoft-provider';
import type { ProviderEndpoints } from '../lambdas/core/calendar/company/provider-contract';
import { providerSource } from '../lambdas/core/calendar/company/providers';
import { companyCalendarApi } from '../lambdas/core/calendar/company-calendar-api';
import type { DomainEventPublisher } from '../lambdas/core/domain-events/publisher';
import { InProcessUserSyncQueue } from './user-sync-queue';

/** How often local mode runs the company plan (the deployed run follows `calendarSyncEveryMinutes`). */
export const LOCAL_COMPANY_RUN_EVERY_MS = 60_000;

export interface LocalCompanySyncOptions {
  calendars: CalendarApiDependencies;
  endpoints: ProviderEndpoints;
  credentials: CredentialsReader;
  publisher: DomainEventPublisher;
  print(line: string): void;
  everyMs?: number;
}

export interface LocalCompanySync {
  deps: CompanySyncDependencies;
  queue: InProcessUserSyncQueue;
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
  const queue = new InProcessUserSyncQueue({
    sync: async (request) => {
      const outcome = await syncCompanyUser(request, deps);
      if (worthPrinting(outcome)) print(describeOutcome(outcome));
    },
    onFailure: (request, error) =>
      print(
        `calendar ${request.calendar_id} ${request.user}: sync failed: ${error instanceof Error ? error.message : String(error)}`,
      ),
  });
  calendars.companyCalendars = companyCalendarApi(deps);
  calendars.userSyncQueue = queue;
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
  };
  const timer = setInterval(() => void runOnce(), options.everyMs ?? LOCAL_COMPANY_RUN_EVERY_MS);
  timer.unref();
  return {
    deps,
    queue,
    runOnce,
    async stop() {
      clearInterval(timer);
      await queue.stop();
    },
  };
}
