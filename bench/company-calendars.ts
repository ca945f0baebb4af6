/**
 * Company calendars at scale (issue 25, point 5): both provider simulators hold a
 * tenant of `BENCH_COMPANY_USERS` people each (default 500: 1,000 in all) with 20
 * instances apiece (company-plan.ts); the scheduled run (planCompanySyncs) queues
 * every user on a user-sync queue of the SQS emulator and the deployed consumer's
 * handler syncs them with its bounded concurrency, on dynalite, first in full, then incrementally after 2% of users each
 * had one change. Then the hostile calendar: one user holding 10,000 strangers'
 * invitations, under `join: all` (the widest rules), synced until the day's budget.
 */
import { CreateTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { CreateQueueCommand } from '@aws-sdk/client-sqs';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { meteredByAction } from '../capacity/metered-clients';
import { createUserSyncHandler } from '../lambdas/calendars/user-sync-adapter';
import { type CompanyCalendarSource, calendarRulesSchema } from '../lambdas/core/calendar/calendar-source';
import { calendarStore, scheduleOf } from '../lambdas/core/calendar/calendar-store';
import { planCompanySyncs } from '../lambdas/core/calendar/company/company-run';
import { companyStore } from '../lambdas/core/calendar/company/company-store';
import {
  type CompanySyncDependencies,
  syncCompanyUser,
  type UserSyncOutcome,
} from '../lambdas/core/calendar/company/company-sync';
import { createGoogleProvider } from '../lambdas/core/calendar/company/google/google-provider';
import { createMicrosoftProvider } from '../lambdas/core/calendar/company/microsoft/microsoft-provider';
import {
  type CalendarProvider,
  PROVIDER_LIMITS,
  type ProviderEndpoints,
  type UserSyncRequest,
} from '../lambdas/core/calendar/company/provider-contract';
import { userScopeId } from '../lambdas/core/calendar/company/user-scope';
import { consumeUserSyncRequest } from '../lambdas/core/calendar/company/user-sync-consumer';
import { guardedFeedFetcher } from '../lambdas/core/calendar/feed-fetch';
import { DEFAULT_SCHEDULE_LIMITS, DEFAULT_SOURCE_SCHEDULES_PER_DAY } from '../lambdas/core/calendar/schedule-budget';
import { memorySealer } from '../lambdas/core/calendar/url-sealer';
import type { Executions } from '../lambdas/core/schedule/executions';
import { DEFAULT_TIMING } from '../lambdas/core/schedule/schedule-request';
import { keys } from '../lambdas/core/store/table-layout';
import { METRICS, type MetricSink, silentTelemetry, type Telemetry } from '../lambdas/core/telemetry';
import { UpstreamClient } from '../lambdas/core/upstream/client';
import { DEFAULT_CLIENT_TIMEOUTS, sqsClient } from '../lambdas/shared/aws-clients';
import { documentClient } from '../lambdas/shared/dynamo-client';
import { sqsUserSyncQueue } from '../lambdas/shared/sqs-user-sync-queue';
import { startDynamoEmulatorProcess } from '../local/emulators/dynalite';
import { startSqsS3Emulator } from '../local/emulators/fauxqs';
import { queueEmpty } from '../local/queue-empty';
import { LONG_POLL_SECONDS, QueuePoller } from '../local/queue-poller';
import { createTableInput } from '../local/resources';
import { GoogleCalendarSimulator } from '../local/simulator/google-calendar/server';
import { MicrosoftGraphSimulator } from '../local/simulator/microsoft-graph/simulator';
import { benchPlan } from './company-plan';
import { type BenchTenant, seedGoogleBench, seedMicrosoftBench } from './company-tenants';
import { median } from './stats';

/** How large a run is: users on each provider, the hostile user's invitations and syncs. */
export interface CompanyBenchScale {
  usersPerProvider: number;
  flood: number;
  hostileSyncs: number;
}

/** `npm run bench -- company`: 500 + 500 users (`BENCH_COMPANY_USERS=1000` for 1,000 on each), synced until the day's budget. */
export const FULL_SCALE: CompanyBenchScale = {
  usersPerProvider: Number(process.env.BENCH_COMPANY_USERS ?? 500),
  flood: 10_000,
  hostileSyncs: 5,
};

/** In the full `npm run bench`: the full scale takes minutes on dynalite, so fewer users and one hostile sync. */
export const REDUCED_SCALE: CompanyBenchScale = { usersPerProvider: 25, flood: 10_000, hostileSyncs: 1 };
/**
 * Syncs at once: what the fan-out queue's consumer runs with in AWS (its default
 * reserved concurrency; lib/config.ts on main has no setting for it yet).
 */
const USER_SYNC_CONCURRENCY = 10;
const CHANGED_SHARE = 0.02;
const LOOKAHEAD_DAYS = 14;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const MiB = 1024 * 1024;

/** Launcher executions that are counted, not run (what company-sync.test.ts records). */
class CountedExecutions implements Executions {
  readonly started = new Set<string>();
  async start(name: string) {
    this.started.add(name);
    return { executionArn: `arn:local:execution:${name}` };
  }
  async stop() {}
}

/** Provider HTTP requests, split into token grants and API pages, by provider. */
interface CallCounts {
  tokens: number;
  pages: number;
}

function countingFetch(counts: CallCounts, isToken: (url: string) => boolean): typeof fetch {
  return (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    if (isToken(url)) counts.tokens++;
    else counts.pages++;
    return fetch(input, init);
  };
}

/** The highest resident set size seen while `run` runs (sampled), and the process's before it. */
async function peakRss<T>(run: () => Promise<T>): Promise<{ value: T; beforeMiB: number; peakMiB: number }> {
  const before = process.memoryUsage().rss;
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 25);
  try {
    const value = await run();
    peak = Math.max(peak, process.memoryUsage().rss);
    return { value, beforeMiB: before / MiB, peakMiB: peak / MiB };
  } finally {
    clearInterval(sampler);
  }
}

interface Phase {
  wallMs: number;
  userMs: number[];
  outcomes: UserSyncOutcome[];
  failures: number;
  dynamoRequests: number;
  calls: Record<'google' | 'microsoft', CallCounts>;
  peakMiB: number;
  beforeMiB: number;
}

const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
const pct = (values: number[], p: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))] ?? 0;

export async function benchCompanyCalendars(scale: CompanyBenchScale = FULL_SCALE): Promise<string[]> {
  const USERS_PER_PROVIDER = scale.usersPerProvider;
  const wallStart = Date.now();
  const t0 = Math.ceil(wallStart / HOUR) * HOUR + HOUR;
  const plan = benchPlan(USERS_PER_PROVIDER, t0);
  const dynamo = await startDynamoEmulatorProcess();
  const sqsEmulator = await startSqsS3Emulator();
  let stopConsumer = async () => {};
  // Its env names the region and credentials (both emulators take any), so the SDK looks for no real ones.
  Object.assign(process.env, dynamo.env, sqsEmulator.env);
  const google = new GoogleCalendarSimulator(wallStart);
  const microsoft = new MicrosoftGraphSimulator({ now: wallStart });
  await google.start();
  const graphBase = await microsoft.start();
  // The simulators keep their own clocks; they follow the wall clock, as tokens and cursors are dated by it.
  let simulated = wallStart;
  const follow = setInterval(() => {
    const wall = Date.now();
    google.control.advanceClock(wall - simulated);
    microsoft.advanceClock(wall - simulated);
    simulated = wall;
  }, 200);
  try {
    const seedStart = performance.now();
    const tenants: Record<'google' | 'microsoft', BenchTenant> = {
      google: seedGoogleBench(google, plan, 'acme.example'),
      microsoft: seedMicrosoftBench(microsoft, plan, 'fabrikam.example'),
    };
    const seedMs = performance.now() - seedStart;
    const endpoints: ProviderEndpoints = {
      googleCalendarApi: google.apiBase,
      googleDirectoryApi: `${new URL(google.apiBase).origin}/admin/directory/v1`,
      googleTokenUrl: google.tokenUrl,
      microsoftGraph: `${graphBase}/v1.0`,
      microsoftLogin: graphBase,
    };

    // The deployed queue's visibility timeout: a sync still running is never received twice.
    const { QueueUrl: userSyncQueueUrl = '' } = await sqsClient().send(
      new CreateQueueCommand({ QueueName: 'bench-company-user-sync', Attributes: { VisibilityTimeout: '1800' } }),
    );
    const tableName = 'bench-company';
    await new DynamoDBClient({}).send(new CreateTableCommand(createTableInput(tableName)));
    const dynamoCounts: Record<string, number> = {};
    const table = { db: meteredByAction(documentClient(), dynamoCounts), tableName };
    const executions = new CountedExecutions();
    const providerCalls = { google: { tokens: 0, pages: 0 }, microsoft: { tokens: 0, pages: 0 } };
    const reportedCalls = { google: 0, microsoft: 0 };
    const sink: MetricSink = {
      emit: (metric, value, ...dimensions) => {
        const provider = (dimensions[0] as { provider?: 'google' | 'microsoft' } | undefined)?.provider;
        if (metric.name === METRICS.calendarProviderCalls.name && provider !== undefined)
          reportedCalls[provider] += value;
      },
    };
    const telemetry: Telemetry = { ...silentTelemetry, metrics: sink };
    const now = () => Date.now();
    const providers = new Map<string, CalendarProvider>();
    const secrets = new Map(Object.values(tenants).map((t) => [t.credentialsSecret, t.credentials]));
    const deps: CompanySyncDependencies = {
      store: calendarStore(table),
      sealer: memorySealer(),
      fetchFeed: guardedFeedFetcher({ allowLoopback: true }),
      schedules: {
        table,
        executions,
        // Never called: nothing is launched here.
        upstream: new UpstreamClient({ baseUrl: 'http://127.0.0.1:9/api/v1/', apiKey: async () => 'unused' }),
        timing: DEFAULT_TIMING,
        telemetry: silentTelemetry,
        now,
      },
      scheduleLimits: DEFAULT_SCHEDULE_LIMITS,
      now,
      company: companyStore(table),
      // One provider per source, kept between syncs (its tokens with it), as a warm consumer keeps it.
      providerFor: async (source) => {
        let provider = providers.get(source.calendarId);
        if (provider === undefined) {
          const credentials = secrets.get(source.company.credentialsSecret) ?? '';
          const options = { endpoints, now };
          provider =
            source.company.provider === 'google'
              ? createGoogleProvider(source.company, credentials, {
                  ...options,
                  fetch: countingFetch(providerCalls.google, (url) => url.startsWith(endpoints.googleTokenUrl)),
                })
              : createMicrosoftProvider(source.company, credentials, {
                  ...options,
                  fetch: countingFetch(providerCalls.microsoft, (url) => url.includes('/oauth2/')),
                });
          providers.set(source.calendarId, provider);
        }
        return provider;
      },
      publisher: { publish: async () => {} },
      telemetry,
    };
    const register = async (calendarId: string, company: CompanyCalendarSource['company'], join = 'accepted') => {
      const source: CompanyCalendarSource = {
        kind: 'company',
        calendarId,
        company,
        rules: calendarRulesSchema.parse({ join }),
        botName: 'Notetaker',
        lookaheadDays: LOOKAHEAD_DAYS,
        createdAt: new Date().toISOString(),
        updatedAt: new Date().toISOString(),
      };
      await table.db.send(new PutCommand({ TableName: tableName, Item: { ...keys.calendar(calendarId), ...source } }));
    };
    await register('company-google', tenants.google.source);
    await register('company-microsoft', tenants.microsoft.source);

    const dynamoTotal = () => sum(Object.values(dynamoCounts));
    const snapshotCalls = () => JSON.parse(JSON.stringify(providerCalls)) as typeof providerCalls;
    const queue = sqsUserSyncQueue(sqsClient(), userSyncQueueUrl);
    /** What the phase running now records. */
    let phase = { userMs: [] as number[], outcomes: [] as UserSyncOutcome[], failures: 0 };
    // One consumer for every phase (as the deployed one stays): a stopped poller's long poll may still take a
    // message at the emulator. One user per invocation, USER_SYNC_CONCURRENCY invocations at once.
    const consumer = new QueuePoller({
      sqs: sqsClient({ ...DEFAULT_CLIENT_TIMEOUTS, requestTimeoutMs: (LONG_POLL_SECONDS + 5) * 1000 }),
      queueUrl: userSyncQueueUrl,
      batchSize: 1,
      concurrency: USER_SYNC_CONCURRENCY,
      handler: createUserSyncHandler(async (request: UserSyncRequest) => {
        const recording = phase;
        const start = performance.now();
        try {
          recording.outcomes.push(await consumeUserSyncRequest(request, { ...deps, queue }));
        } catch (error) {
          recording.failures++;
          throw error;
        }
        recording.userMs.push(performance.now() - start);
      }, telemetry),
    });
    consumer.start();
    stopConsumer = () => consumer.stop();
    const runPhase = async (): Promise<Phase> => {
      const recording = { userMs: [] as number[], outcomes: [] as UserSyncOutcome[], failures: 0 };
      phase = recording;
      const { userMs, outcomes } = recording;
      const dynamoBefore = dynamoTotal();
      const callsBefore = snapshotCalls();
      const start = performance.now();
      const measured = await peakRss(async () => {
        const { enqueued } = await planCompanySyncs({ ...deps, queue });
        // A failed sync's message comes back only after the visibility timeout: each request handled once ends the phase.
        while (outcomes.length + recording.failures < enqueued && !(await queueEmpty(sqsClient(), userSyncQueueUrl)))
          await new Promise((resolve) => setTimeout(resolve, 25));
      });
      const calls = snapshotCalls();
      for (const provider of ['google', 'microsoft'] as const) {
        calls[provider].tokens -= callsBefore[provider].tokens;
        calls[provider].pages -= callsBefore[provider].pages;
      }
      return {
        wallMs: performance.now() - start,
        userMs,
        outcomes,
        failures: recording.failures,
        dynamoRequests: dynamoTotal() - dynamoBefore,
        calls,
        peakMiB: measured.peakMiB,
        beforeMiB: measured.beforeMiB,
      };
    };

    const first = await runPhase();
    const schedulesAfterFirst = executions.started.size;
    const doubled = await doubledMeetings(deps, tenants);

    const changed = Math.max(1, Math.round(USERS_PER_PROVIDER * CHANGED_SHARE));
    for (let user = 0; user < changed; user++) {
      tenants.google.moveFirstOneOff(user * Math.floor(USERS_PER_PROVIDER / changed));
      tenants.microsoft.moveFirstOneOff(user * Math.floor(USERS_PER_PROVIDER / changed));
    }
    const second = await runPhase();
    const doubledAfter = await doubledMeetings(deps, tenants);

    const hostile = await hostileRuns(deps, tenants, register, providerCalls, t0, scale);

    const users = USERS_PER_PROVIDER * 2;
    const lines = [
      `company calendars at scale (issue 25.5): ${USERS_PER_PROVIDER} users on the Google simulator + ${USERS_PER_PROVIDER} on the Graph simulator, ${plan.instancesPerUser} instances each in a ${LOOKAHEAD_DAYS}-day lookahead (4 one-offs, a weekly series, 10 meetings shared by 5, 4 declined), dynalite, ${USER_SYNC_CONCURRENCY} user syncs at once; seeded in ${(seedMs / 1000).toFixed(1)} s`,
      phaseLine('first sync (full)', first, users),
      ...callLines(first, USERS_PER_PROVIDER),
      `    outcomes: ${outcomeSummary(first.outcomes)}; schedules made ${schedulesAfterFirst} (meeting instances the rules take: ${plan.expectedSchedules * 2}); meetings with more than one schedule: ${doubled}`,
      phaseLine(`incremental sync (${changed} + ${changed} users moved one meeting)`, second, users),
      ...callLines(second, USERS_PER_PROVIDER),
      `    outcomes: ${outcomeSummary(second.outcomes)}; moved ${sum(second.outcomes.map((o) => (o.outcome === 'synced' ? o.result.moved : 0)))} (a moved schedule starts a new launcher execution: ${executions.started.size - schedulesAfterFirst - hostile.created}); meetings with more than one schedule: ${doubledAfter}`,
      ...hostile.lines,
      `  peak RSS of the bench process (simulators, pipeline and its clients in one process; dynalite apart): ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB`,
    ];
    return lines;
  } finally {
    clearInterval(follow);
    await stopConsumer();
    await Promise.all([google.stop(), microsoft.stop(), dynamo.stop(), sqsEmulator.stop()]);
  }
}

function phaseLine(name: string, phase: Phase, users: number): string {
  return `  ${name}: ${(phase.wallMs / 1000).toFixed(1)} s for ${phase.outcomes.length} users (${(users / (phase.wallMs / 1000)).toFixed(0)} users/s); per user median ${median(phase.userMs).toFixed(0)} ms, p95 ${pct(phase.userMs, 0.95).toFixed(0)} ms; DynamoDB ${(phase.dynamoRequests / users).toFixed(1)} requests per user; RSS ${phase.beforeMiB.toFixed(0)} -> peak ${phase.peakMiB.toFixed(0)} MiB${phase.failures > 0 ? `; ${phase.failures} syncs THREW` : ''}`;
}

function callLines(phase: Phase, usersPerProvider: number): string[] {
  return (['google', 'microsoft'] as const).map(
    (provider) =>
      `    ${provider.padEnd(9)} provider calls per user ${((phase.calls[provider].tokens + phase.calls[provider].pages) / usersPerProvider).toFixed(2)} (tokens ${phase.calls[provider].tokens}, pages ${phase.calls[provider].pages})`,
  );
}

function outcomeSummary(outcomes: UserSyncOutcome[]): string {
  const counts: Record<string, number> = {};
  for (const o of outcomes) {
    const key = o.outcome === 'synced' ? (o.full ? 'synced in full' : 'synced incrementally') : o.outcome;
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return Object.entries(counts)
    .map(([k, v]) => `${v} ${k}`)
    .join(', ');
}

/** Meetings (link and start) that more than one active entry holds a schedule for, across every user of both tenants. */
async function doubledMeetings(
  deps: CompanySyncDependencies,
  tenants: Record<'google' | 'microsoft', BenchTenant>,
): Promise<number> {
  const schedules = new Map<string, Set<string>>();
  for (const [provider, tenant] of Object.entries(tenants))
    for (const user of tenant.users)
      for (const entry of await deps.store.listEntries(userScopeId(`company-${provider}`, user))) {
        if (entry.state !== 'active') continue;
        const meeting = `${entry.slot.meetingUrl} ${entry.slot.start}`;
        schedules.set(meeting, (schedules.get(meeting) ?? new Set()).add(scheduleOf(entry)));
      }
  return [...schedules.values()].filter((ids) => ids.size > 1).length;
}

/**
 * One user per provider whose calendar holds FLOOD strangers' invitations across the
 * lookahead, in a source of its own with `join: all` (so only the budgets hold the
 * schedules), synced HOSTILE_SYNCS times.
 */
async function hostileRuns(
  deps: CompanySyncDependencies,
  tenants: Record<'google' | 'microsoft', BenchTenant>,
  register: (id: string, company: CompanyCalendarSource['company'], join?: string) => Promise<void>,
  providerCalls: Record<'google' | 'microsoft', CallCounts>,
  t0: number,
  { flood: FLOOD, hostileSyncs: HOSTILE_SYNCS }: CompanyBenchScale,
): Promise<{ lines: string[]; created: number }> {
  const lines = [
    `hostile calendar: one user per provider with ${FLOOD} strangers' invitations over the lookahead, rules join: all (the widest), budgets ${DEFAULT_SCHEDULE_LIMITS.perSync}/sync, ${DEFAULT_SCHEDULE_LIMITS.perDay}/day per user, ${DEFAULT_SOURCE_SCHEDULES_PER_DAY}/day per source; kept per user ${PROVIDER_LIMITS.itemsPerUser}, ${PROVIDER_LIMITS.pagesPerListing} pages of ${PROVIDER_LIMITS.pageSize}`,
  ];
  let created = 0;
  for (const provider of ['google', 'microsoft'] as const) {
    const tenant = tenants[provider];
    const user = tenant.floodedUser(FLOOD, t0, Math.floor((LOOKAHEAD_DAYS * DAY - HOUR) / FLOOD));
    const calendarId = `hostile-${provider}`;
    const company = { ...tenant.source, users: [user] } as CompanyCalendarSource['company'];
    await register(calendarId, company, 'all');
    await deps.company.putUser(calendarId, { user, state: 'pending', eventsSeen: 0, fromGroup: false });
    const rows: string[] = [];
    let total = 0;
    for (let round = 0; round < HOSTILE_SYNCS; round++) {
      const before = { ...providerCalls[provider] };
      const start = performance.now();
      const {
        value: outcome,
        peakMiB,
        beforeMiB,
      } = await peakRss(() => syncCompanyUser({ calendar_id: calendarId, user, reason: 'manual' }, deps));
      const ms = performance.now() - start;
      const calls = providerCalls[provider];
      const kept = (await deps.company.getKept(userScopeId(calendarId, user)))?.items.length ?? 0;
      if (outcome.outcome !== 'synced') {
        rows.push(`    sync ${round + 1}: ${outcome.outcome} ${JSON.stringify(outcome).slice(0, 200)}`);
        continue;
      }
      const { result } = outcome;
      total += result.created;
      rows.push(
        `    sync ${round + 1}: ${ms.toFixed(0)} ms, RSS ${beforeMiB.toFixed(0)} -> peak ${peakMiB.toFixed(0)} MiB, calls ${calls.tokens - before.tokens} token + ${calls.pages - before.pages} pages; kept ${kept}; created ${result.created}, deferred ${result.deferred}, skipped ${result.skipped}; limits: ${[...new Set(result.limits.map((l) => l.limit))].join(', ') || 'none'}`,
      );
    }
    created += total;
    const within = total <= DEFAULT_SCHEDULE_LIMITS.perDay;
    lines.push(
      `  ${provider}:`,
      ...rows,
      `    schedules made in ${HOSTILE_SYNCS} sync(s): ${total} — ${within ? 'within' : 'BEYOND'} the day's budget of ${DEFAULT_SCHEDULE_LIMITS.perDay}`,
    );
  }
  return { lines, created };
}
