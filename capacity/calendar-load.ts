/**
 * The company calendar load (Google Workspace, Microsoft 365): the requests each
 * provider receives per hour for N users with M events each in the window, checked
 * against the provider's published quota, and what the sync costs in AWS per month.
 * Pure arithmetic on the configuration and the assumptions below; each provider is
 * taken as if every user were on it (the worse case for its quota).
 *
 * Quotas used (as published when this was written; they change, check before quoting):
 *  - Google Calendar API, https://developers.google.com/workspace/calendar/api/guides/quota :
 *    10,000 requests per minute per project, 600 per minute per user per project.
 *  - Microsoft Graph, https://learn.microsoft.com/graph/throttling-limits : Outlook resources
 *    (calendars included) 10,000 requests per 10 minutes per app per mailbox, at most 4 at once;
 *    130,000 requests per 10 seconds per app across all tenants.
 */
import type { ProviderName } from '../lambdas/core/calendar/company/provider-contract';
import { PROVIDER_LIMITS } from '../lambdas/core/calendar/company/provider-contract';
import type { PipelineConfig } from '../lib/config';
import type { CostLine, LimitCheck } from './model';
import { PRICES } from './prices';

export const PROVIDER_QUOTAS = {
  google: { perMinutePerProject: 10_000, perMinutePerUser: 600 },
  microsoft: { perTenMinutesPerMailbox: 10_000, perTenSecondsPerApp: 130_000, concurrentPerMailbox: 4 },
} as const;

/** What cannot be read from the configuration. Each is a guess stated as one, and can be changed. */
export interface CalendarAssumptions {
  users: number;
  eventsPerUser: number;
  /** Changes a provider pushes per user per hour (a push is one incremental listing). Busy calendars move a few meetings a day. */
  pushesPerUserHour: number;
  /** A watch channel (Google) or subscription (Graph) is renewed this often; Graph allows 4,230 minutes at most. */
  renewEveryHours: number;
  /** One user's sync in AWS: a listing, a token now and then, a few table reads and writes. */
  syncSeconds: number;
  /** Company sources the users are spread over (each a secret, each group read once a run). */
  sources: number;
  /** DynamoDB per user sync with nothing changed, and extra when something did (the kept items and schedules). */
  readUnitsPerSync: number;
  writeUnitsPerSync: number;
  writeUnitsPerChange: number;
}

export const DEFAULT_CALENDAR_ASSUMPTIONS: CalendarAssumptions = {
  users: 1000,
  eventsPerUser: 20,
  pushesPerUserHour: 1,
  renewEveryHours: 24,
  syncSeconds: 0.5,
  sources: 1,
  readUnitsPerSync: 3,
  writeUnitsPerSync: 3,
  writeUnitsPerChange: 8,
};

/** Pages of a group's members: Directory members.list at most 200 a page, Graph transitiveMembers 999 (asked for). */
const GROUP_PAGE = { google: 200, microsoft: 999 } as const;
/** SQS requests per message: a tenth of a SendMessageBatch, a share of the ReceiveMessage and DeleteMessageBatch of its batch. */
const SQS_REQUESTS_PER_MESSAGE = 0.1 + 2 / 5;
const HOURS_PER_MONTH = 24 * 30;

export interface ProviderLoad {
  provider: ProviderName;
  /** Requests per hour by cause. */
  perHour: { polling: number; push: number; tokens: number; renewals: number; groups: number; total: number };
  /** The most the consumer can send in a minute at its maximum concurrency. */
  peakPerMinute: number;
  /** One user's requests per hour (their mailbox's or their own quota). */
  perUserPerHour: number;
}

export interface CalendarReport {
  assumptions: CalendarAssumptions;
  loads: ProviderLoad[];
  checks: LimitCheck[];
  holds: boolean;
  costPerMonth: CostLine[];
  totalPerMonth: number;
}

export function calendarReport(
  config: Pick<PipelineConfig, 'calendarSyncEveryMinutes' | 'calendarUserSyncConcurrency' | 'secretCacheSeconds'>,
  a: CalendarAssumptions = DEFAULT_CALENDAR_ASSUMPTIONS,
): CalendarReport {
  const runsPerHour = 60 / config.calendarSyncEveryMinutes;
  const concurrency = config.calendarUserSyncConcurrency;
  // A full listing of M events is ceil(M / page) pages; an incremental one with few changes is one.
  const listingCalls = Math.max(1, Math.ceil(a.eventsPerUser / PROVIDER_LIMITS.pageSize));
  const polledSyncsPerHour = a.users * runsPerHour;
  const pushSyncsPerHour = a.users * a.pushesPerUserHour;
  const syncsPerHour = polledSyncsPerHour + pushSyncsPerHour;
  const checks: LimitCheck[] = [];
  const check = (c: Omit<LimitCheck, 'holds'>) => checks.push({ ...c, holds: c.demand <= c.capacity });

  const loads = (['google', 'microsoft'] as const).map((provider): ProviderLoad => {
    // Google delegates a token to each user (an hour each); Microsoft has one per tenant in each instance.
    const tokens = provider === 'google' ? a.users : concurrency * a.sources;
    const groups = runsPerHour * a.sources * Math.ceil(a.users / a.sources / GROUP_PAGE[provider]);
    const perHour = {
      polling: polledSyncsPerHour * listingCalls,
      push: pushSyncsPerHour * listingCalls,
      tokens,
      renewals: a.users / a.renewEveryHours,
      groups,
      total: 0,
    };
    perHour.total = perHour.polling + perHour.push + perHour.tokens + perHour.renewals + perHour.groups;
    // At full tilt every instance syncs a user every syncSeconds, a listing plus a token at worst.
    const peakPerMinute = concurrency * (60 / a.syncSeconds) * (listingCalls + (provider === 'google' ? 1 : 0));
    const perUserPerHour = runsPerHour * listingCalls + a.pushesPerUserHour * listingCalls + 1 / a.renewEveryHours;
    return { provider, perHour, peakPerMinute, perUserPerHour };
  });

  const [google, microsoft] = loads as [ProviderLoad, ProviderLoad];
  check({
    limit: 'Google Calendar API, per project (all users, an hour)',
    demand: google.perHour.total / 60,
    capacity: PROVIDER_QUOTAS.google.perMinutePerProject,
    unit: 'requests/minute',
    fix: 'ask Google for a higher "Queries per minute" quota on the project, or raise calendarSyncEveryMinutes',
  });
  check({
    limit: 'Google Calendar API, per project (the consumer at full concurrency)',
    demand: google.peakPerMinute,
    capacity: PROVIDER_QUOTAS.google.perMinutePerProject,
    unit: 'requests/minute',
    fix: `-c calendarUserSyncConcurrency=${Math.max(2, Math.floor((concurrency * PROVIDER_QUOTAS.google.perMinutePerProject) / google.peakPerMinute / 1.5))}`,
  });
  check({
    limit: 'Google Calendar API, per user',
    demand: google.perUserPerHour / 60,
    capacity: PROVIDER_QUOTAS.google.perMinutePerUser,
    unit: 'requests/minute',
    fix: '-c calendarSyncEveryMinutes=15',
  });
  check({
    limit: 'Microsoft Graph, per mailbox (10 minutes)',
    demand: microsoft.perUserPerHour / 6,
    capacity: PROVIDER_QUOTAS.microsoft.perTenMinutesPerMailbox,
    unit: 'requests/10 min',
    fix: '-c calendarSyncEveryMinutes=15',
  });
  check({
    limit: 'Microsoft Graph, per app (the consumer at full concurrency)',
    demand: microsoft.peakPerMinute / 6,
    capacity: PROVIDER_QUOTAS.microsoft.perTenSecondsPerApp,
    unit: 'requests/10 s',
    fix: '-c calendarUserSyncConcurrency=10',
  });
  // Each run's users must be synced before the next run enqueues them again.
  const drainSeconds = (a.users * a.syncSeconds) / concurrency;
  check({
    limit: 'user syncs of one run (drained before the next)',
    demand: drainSeconds,
    capacity: config.calendarSyncEveryMinutes * 60,
    unit: 'seconds',
    fix: `-c calendarUserSyncConcurrency=${Math.ceil(((a.users * a.syncSeconds) / (config.calendarSyncEveryMinutes * 60)) * 1.5)}`,
  });

  const syncsPerMonth = syncsPerHour * HOURS_PER_MONTH;
  // The run's users arrive together (batches of 5 full); a push arrives alone (a batch of 1).
  const invocationsPerMonth = (polledSyncsPerHour / 5 + pushSyncsPerHour) * HOURS_PER_MONTH;
  const gbSeconds = syncsPerMonth * a.syncSeconds * (512 / 1024);
  const runsPerMonth = runsPerHour * HOURS_PER_MONTH;
  const lambda =
    ((invocationsPerMonth + runsPerMonth) * PRICES.lambdaPerMillionRequests) / 1e6 +
    (gbSeconds + runsPerMonth * 2 * (512 / 1024)) * PRICES.lambdaPerGbSecondArm;
  const changesPerMonth = pushSyncsPerHour * HOURS_PER_MONTH;
  // Each instance reads each source's secret again once its cache lapses (at most every second when 0).
  const secretReadsPerMonth =
    (concurrency + 1) * a.sources * (3600 / Math.max(1, config.secretCacheSeconds)) * HOURS_PER_MONTH;
  const costPerMonth: CostLine[] = [
    { service: 'Lambda (user syncs and runs)', dollars: lambda },
    {
      service: 'SQS (user-sync queue, idle polling included)',
      dollars:
        ((syncsPerMonth * SQS_REQUESTS_PER_MESSAGE + 5 * 3 * 60 * HOURS_PER_MONTH) *
          PRICES.sqsStandardPerMillionRequests) /
        1e6,
    },
    {
      service: 'DynamoDB (user state, kept items, schedules)',
      dollars:
        ((syncsPerMonth * a.writeUnitsPerSync + changesPerMonth * a.writeUnitsPerChange) *
          PRICES.dynamoPerMillionWriteUnits) /
          1e6 +
        (syncsPerMonth * a.readUnitsPerSync * PRICES.dynamoPerMillionReadUnits) / 1e6,
    },
    {
      service: `Secrets Manager (${a.sources} secret${a.sources === 1 ? '' : 's'} and reads)`,
      dollars:
        a.sources * PRICES.secretsManagerPerSecretMonth +
        (secretReadsPerMonth / 10_000) * PRICES.secretsManagerPer10000Calls,
    },
  ];
  return {
    assumptions: a,
    loads,
    checks,
    holds: checks.every((c) => c.holds),
    costPerMonth,
    totalPerMonth: costPerMonth.reduce((sum, line) => sum + line.dollars, 0),
  };
}

const n = (value: number, digits = 0) =>
  value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

export function formatCalendarReport(report: CalendarReport): string[] {
  const a = report.assumptions;
  const lines = [
    `company calendars: ${n(a.users)} users × ${n(a.eventsPerUser)} events, ${n(a.pushesPerUserHour, 1)} pushed change per user-hour, channels renewed every ${n(a.renewEveryHours)} h`,
    'provider requests per hour (as if every user were on that provider):',
  ];
  for (const load of report.loads) {
    const h = load.perHour;
    lines.push(
      `  ${load.provider.padEnd(10)} ${n(h.total)} (polling ${n(h.polling)}, push ${n(h.push)}, tokens ${n(h.tokens)}, renewals ${n(h.renewals)}, groups ${n(h.groups)}); at most ${n(load.peakPerMinute)}/minute; ${n(load.perUserPerHour, 1)} per user`,
    );
  }
  lines.push('limits (demand / capacity):');
  for (const check of report.checks) {
    lines.push(
      `  ${check.holds ? 'ok  ' : 'FAIL'} ${check.limit}: ${n(check.demand, 1)} / ${n(check.capacity, 1)} ${check.unit}`,
    );
    if (!check.holds && check.fix !== undefined) lines.push(`       → ${check.fix}`);
  }
  lines.push(`company calendars, AWS cost per month (${PRICES.region} list prices of ${PRICES.recorded}):`);
  for (const line of report.costPerMonth) lines.push(`  ${line.service.padEnd(46)} $${line.dollars.toFixed(2)}`);
  lines.push(`  ${'total'.padEnd(46)} $${report.totalPerMonth.toFixed(2)}`);
  return lines;
}
