/**
 * Every alarm on one of our own metrics must watch a metric the code really emits:
 * same namespace, name and exact dimension set, `service` included. The alarms come
 * from the synthesized template; the emitted metrics from running each alarmed code
 * path with the real Powertools Metrics and reading the EMF lines it writes, and
 * from the metric filters on the API's access log, run over the lines its
 * synthesized access-log format produces.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Template } from 'aws-cdk-lib/assertions';
import type { Context, SQSEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createArchiveHandler } from '../../lambdas/archive/adapter';
import { createCalendarSyncRun } from '../../lambdas/calendars/adapter';
import { createUserSyncHandler } from '../../lambdas/calendars/user-sync-adapter';
import { CALENDAR_LIMITS, EXPANSION_LIMITS } from '../../lambdas/core/calendar/calendar-limits';
import { EVENT_FAILURE_REASONS } from '../../lambdas/core/events/failure-reasons';
import {
  applyValidatedEvent,
  decodeWebhook,
  processQueuedEvent,
  type QueuedMessage,
} from '../../lambdas/core/events/process-event';
import { acceptWebhook } from '../../lambdas/core/ingress/accept-webhook';
import { compactClosedDays } from '../../lambdas/core/lake/lake-compaction';
import { lakeDayOf, lakeKeys } from '../../lambdas/core/lake/lake-layout';
import { encodeLakeRows } from '../../lambdas/core/lake/parquet-codec';
import {
  MAX_BACKSTOP_JOBS,
  reconcileMeetings,
  UNKNOWN_AFTER_MISSES,
} from '../../lambdas/core/reconcile/reconcile-meetings';
import { recordLaunchFailure } from '../../lambdas/core/schedule/launch';
import { parseSigningSecrets } from '../../lambdas/core/signature/verify';
import { keys } from '../../lambdas/core/store/table-layout';
import { METRICS, METRICS_NAMESPACE, SERVICES, type ServiceName } from '../../lambdas/core/telemetry';
import { NotFoundError, UpstreamClient } from '../../lambdas/core/upstream/client';
import type { Bot } from '../../lambdas/core/upstream/rest-contract';
import { createProcessEventsHandler } from '../../lambdas/process-events/adapter';
import { documentClient } from '../../lambdas/shared/dynamo-client';
import { createTelemetry, type PowertoolsTelemetry, withPowertools } from '../../lambdas/shared/powertools';
import { s3Client } from '../../lambdas/shared/s3-client';
import { s3LakeObjects } from '../../lambdas/shared/s3-lake-objects';
import { CALENDAR_PROVIDERS, MISSED_MEETINGS_ALARM } from '../../lib/monitoring';
import type { LocalResources } from '../../local/resources';
import { SimulatedServiceApi } from '../../local/simulator/api-server';
import { RECORDING_REFETCH_METADATA_KEY } from '../../local/simulator/bot-scenarios';
import { stateChange } from '../../local/simulator/payloads';
import { signWebhook } from '../../local/simulator/webhook-signer';
import { unversionedObjects } from '../../local/unversioned-object-versions';
import { calendarHarness, startFeedServer, testEvent, testFeed } from '../fixtures/calendar-harness';
import { endedBot } from '../fixtures/ended-meeting';
import { testEventLog } from '../fixtures/event-log';
import { localArchive } from '../fixtures/local-archive';
import { localIngress } from '../fixtures/local-ingress';
import {
  createResources,
  type LocalPipeline,
  processDependencies,
  queuedMessage,
  startLocalPipeline,
} from '../fixtures/local-pipeline';
import { matchesFilterPattern } from '../fixtures/log-filter-pattern';
import { newSigningSecret, transcriptEnvelope } from '../fixtures/webhooks';
import { sharedTemplate } from './synth';

interface MetricIdentity {
  namespace: string;
  name: string;
  dimensions: Record<string, string>;
  /** The values of the points, where the EMF document says (one document may hold many). */
  values?: number[];
}

const identity = (m: MetricIdentity) =>
  `${m.namespace} ${m.name} ${JSON.stringify(Object.fromEntries(Object.entries(m.dimensions).sort()))}`;

type CfnDimension = { Name: string; Value: unknown };
type CfnMetric = { Namespace?: string; MetricName?: string; Dimensions?: CfnDimension[] };

let template: Template;

/** Our-namespace metrics of every alarm, single-metric and metric-math alike. */
function alarmedMetrics(): Array<MetricIdentity & { alarm: string }> {
  const found: Array<MetricIdentity & { alarm: string }> = [];
  for (const [alarm, resource] of Object.entries(template.findResources('AWS::CloudWatch::Alarm'))) {
    const props = resource.Properties as CfnMetric & { Metrics?: Array<{ MetricStat?: { Metric: CfnMetric } }> };
    const metrics = [props, ...(props.Metrics ?? []).flatMap((m) => (m.MetricStat ? [m.MetricStat.Metric] : []))];
    for (const metric of metrics) {
      if (metric.Namespace !== METRICS_NAMESPACE || metric.MetricName === undefined) continue;
      const dimensions = Object.fromEntries((metric.Dimensions ?? []).map((d) => [d.Name, String(d.Value)]));
      found.push({ alarm, namespace: metric.Namespace, name: metric.MetricName, dimensions });
    }
  }
  return found;
}

/** The service names the functions are deployed with. */
function deployedServiceNames(): string[] {
  return Object.values(template.findResources('AWS::Lambda::Function')).map(
    (fn) => fn.Properties.Environment?.Variables?.POWERTOOLS_SERVICE_NAME as string,
  );
}

/** The log lines of the invocations so far, as emittedBy held them. */
const heldLogs: Array<Record<string, unknown>> = [];

/**
 * Metrics in the EMF documents Powertools wrote to standard output while `run` ran. What the
 * faults log (Powertools writes WARN and ERROR to standard error) is held too, not printed:
 * each line must be one of `service`'s JSON log lines.
 */
async function emittedBy(service: ServiceName, run: () => Promise<unknown>): Promise<MetricIdentity[]> {
  const lines: string[] = [];
  const logged: string[] = [];
  const hold = (into: string[]) => (chunk: string | Uint8Array) => {
    into.push(...String(chunk).split('\n'));
    return true;
  };
  const write = vi.spyOn(process.stdout, 'write').mockImplementation(hold(lines));
  const writeError = vi.spyOn(process.stderr, 'write').mockImplementation(hold(logged));
  try {
    await run();
  } finally {
    write.mockRestore();
    writeError.mockRestore();
  }
  for (const line of [...lines, ...logged].filter((l) => l.trim() !== '' && !l.includes('"_aws"'))) {
    const entry = JSON.parse(line) as Record<string, unknown>;
    expect(entry, line).toMatchObject({ service, level: expect.stringMatching(/^(DEBUG|INFO|WARN|ERROR)$/) });
    heldLogs.push(entry);
  }
  const found: MetricIdentity[] = [];
  for (const line of lines) {
    if (!line.includes('"_aws"')) continue;
    const document = JSON.parse(line) as Record<string, unknown> & {
      _aws: {
        CloudWatchMetrics: Array<{ Namespace: string; Dimensions: string[][]; Metrics: Array<{ Name: string }> }>;
      };
    };
    for (const directive of document._aws.CloudWatchMetrics) {
      for (const keys of directive.Dimensions) {
        const dimensions = Object.fromEntries(keys.map((key) => [key, String(document[key])]));
        for (const metric of directive.Metrics) {
          const value = document[metric.Name];
          const values = (Array.isArray(value) ? value : [value]).map(Number);
          found.push({ namespace: directive.Namespace, name: metric.Name, dimensions, values });
        }
      }
    }
  }
  return found;
}

type CfnMetricFilter = {
  FilterPattern: string;
  MetricTransformations: Array<{
    MetricNamespace: string;
    MetricName: string;
    Dimensions?: Array<{ Key: string; Value: string }>;
  }>;
};

/** The API stage's access-log format and the metric filters on its log group, as synthesized. */
function accessLog(): { format: string; filters: CfnMetricFilter[] } {
  const stages = Object.values(template.findResources('AWS::ApiGatewayV2::Stage'));
  expect(stages).toHaveLength(1);
  const settings = stages[0]?.Properties.AccessLogSettings as {
    DestinationArn: { 'Fn::GetAtt': [string, string] };
    Format: string;
  };
  const logGroup = settings.DestinationArn['Fn::GetAtt'][0];
  const filters = Object.values(template.findResources('AWS::Logs::MetricFilter'))
    .filter((filter) => filter.Properties.LogGroupName?.Ref === logGroup)
    .map((filter) => filter.Properties as CfnMetricFilter);
  return { format: settings.Format, filters };
}

/**
 * The access-log line API Gateway writes for a webhook answered `status`: the
 * synthesized format with each variable filled in as API Gateway fills it (as
 * text, inside the format's quotes; `-` for a value the request does not have).
 */
function accessLogLine(format: string, status: 202 | 429): string {
  const throttled = status === 429;
  const values: Record<string, string> = {
    '$context.requestId': 'Zx3kYhQ1oAMEbCw=',
    '$context.identity.sourceIp': '203.0.113.7',
    '$context.requestTime': '22/Nov/2026:09:00:00 +0000',
    '$context.routeKey': 'POST /webhooks',
    '$context.status': String(status),
    '$context.responseLength': throttled ? '29' : '0',
    // A throttled request never reaches the integration.
    '$context.integrationLatency': throttled ? '-' : '41',
    '$context.integrationErrorMessage': '-',
    '$context.error.message': throttled ? 'Too Many Requests' : '-',
    // The webhook route is not IAM-authorized: no caller identity.
    '$context.identity.userArn': '-',
  };
  return format.replace(/\$context(?:\.[A-Za-z]+)+/g, (variable) => {
    const value = values[variable];
    if (value === undefined) throw new Error(`no value for ${variable} in the rendered access-log line`);
    return value;
  });
}

/** What the access log's metric filters publish when this line is written. */
function publishedFor(line: string): MetricIdentity[] {
  return accessLog()
    .filters.filter((filter) => matchesFilterPattern(filter.FilterPattern, line))
    .flatMap((filter) =>
      filter.MetricTransformations.map((t) => ({
        namespace: t.MetricNamespace,
        name: t.MetricName,
        dimensions: Object.fromEntries((t.Dimensions ?? []).map((d) => [d.Key, d.Value])),
      })),
    );
}

/** A queued message as Lambda hands it to the process-events function. */
const sqsRecord = (message: QueuedMessage) => ({
  messageId: message.messageId,
  body: message.body,
  attributes: { ApproximateReceiveCount: '1' },
  messageAttributes: Object.fromEntries(
    Object.entries(message.attributes).map(([name, value]) => [name, { stringValue: value, dataType: 'String' }]),
  ),
});

/** A batch where applying fails for each reason there is: a body that is not JSON, a held lease, a table error. */
function eventFailures(): Promise<MetricIdentity[]> {
  return invocation(SERVICES.processEvents, async (telemetry) => {
    const at = new Date('2026-11-20T12:00:00Z');
    const change = { oldState: 'joining', newState: 'joined_recording', eventType: 'x', createdAtMicros: 1 };
    const message = () => queuedMessage(stateChange(`bot_alarm_${randomUUID()}`, change), at);
    const poison = { ...message(), body: 'not json' };
    const busy = message();
    const processing = processDependencies(resources, telemetry);
    // Another delivery of the same event holds its lease.
    const busyEvent = {
      idempotencyKey: String(busy.attributes.idempotency_key),
      botId: String(busy.attributes.bot_id),
      trigger: 'bot.state_change',
      receivedAt: at.toISOString(),
      body: { inline: busy.body },
    };
    await processing.ledger.claim(busyEvent.botId, busyEvent.idempotencyKey, async () => busyEvent);
    const batch = (records: QueuedMessage[]) => ({ Records: records.map(sqsRecord) }) as unknown as SQSEvent;
    const failed = (error: Error) => error.name;
    await expect(createProcessEventsHandler(processing)(batch([poison, busy])).catch(failed)).resolves.toBe(
      'FullBatchFailureError',
    );
    const unreachable = processDependencies(resources, telemetry, {}, Date.now, { TABLE_NAME: 'no-such-table' });
    await expect(createProcessEventsHandler(unreachable)(batch([message()])).catch(failed)).resolves.toBe(
      'FullBatchFailureError',
    );
  });
}

const context = { awsRequestId: 'req-1', functionName: 'test', invokedFunctionArn: 'arn' } as Context;

/** Runs `body` as one invocation of a function deployed as `service`: the handler's own wrapper publishes. */
function invocation(service: ServiceName, body: (telemetry: PowertoolsTelemetry) => Promise<unknown>) {
  const telemetry = createTelemetry(service);
  return emittedBy(service, () => withPowertools(() => body(telemetry), telemetry)(undefined, context));
}

let pipeline: LocalPipeline;
let resources: LocalResources;
let upstreamServer: Server;
let upstreamOrigin: string;

beforeAll(async () => {
  template = sharedTemplate();
  pipeline = await startLocalPipeline();
  resources = await createResources();
  // A service that refuses the key (401) or fails (500), by path prefix.
  upstreamServer = createServer((request, response) => {
    const status = request.url?.startsWith('/refuse/') ? 401 : 500;
    response.writeHead(status, { 'content-type': 'application/json' }).end('{"detail":"no"}');
  });
  await new Promise<void>((resolve) => upstreamServer.listen(0, '127.0.0.1', resolve));
  upstreamOrigin = `http://127.0.0.1:${(upstreamServer.address() as AddressInfo).port}`;
});
afterAll(async () => {
  upstreamServer?.close();
  await pipeline?.stop();
});

const upstream = (path: 'refuse' | 'fail', telemetry: PowertoolsTelemetry) =>
  new UpstreamClient({
    baseUrl: `${upstreamOrigin}/${path}/api/v1/`,
    apiKey: async () => 'key',
    maxAttempts: 1,
    telemetry,
  });

/**
 * The archive job of a meeting whose recording is in the bucket already (an earlier release's copy,
 * without our size on it), when the simulated service now serves it empty: the archived copy is kept.
 */
function recordingShrank() {
  return invocation(SERVICES.archive, async (telemetry) => {
    const service = new SimulatedServiceApi();
    await service.start();
    try {
      service.apiKeys.set('k', 'all');
      const bot = endedBot(service, { size: 64 * 1024, seed: 5 });
      bot.metadata = { [RECORDING_REFETCH_METADATA_KEY]: 'empty' };
      const client = new UpstreamClient({ baseUrl: service.baseUrl, apiKey: async () => 'k', telemetry });
      const first = await fetch((await client.getRecording(bot.id))!.url);
      await s3Client().send(
        new PutObjectCommand({
          Bucket: resources.recordingsBucket,
          Key: `meetings/${bot.id}/recording.mp4`,
          Body: Buffer.from(await first.arrayBuffer()),
          ContentType: 'video/mp4',
        }),
      );
      const { deps } = localArchive(resources, {
        upstream: client,
        overrides: { UPSTREAM_BASE_URL: service.baseUrl, ALLOW_LOOPBACK_DOWNLOADS: 'true' },
        telemetry,
      });
      const event = {
        Records: [
          {
            messageId: 'm1',
            body: JSON.stringify({ bot_id: bot.id, reason: 'ended' }),
            attributes: { ApproximateReceiveCount: '1', MessageGroupId: bot.id },
          },
        ],
      } as unknown as SQSEvent;
      expect(await createArchiveHandler(deps)(event)).toEqual({ batchItemFailures: [] });
    } finally {
      await service.stop();
    }
  });
}

/**
 * A feed that reaches every calendar limit, synced by `service` as it runs in AWS
 * (the route for `calendars`, the scheduled run for `calendar-sync`), with limits
 * small enough to reach them in a few events: three syncs for the schedule limits,
 * then one with no expansion time at all.
 */
function calendarLimitsReached(service: typeof SERVICES.calendars | typeof SERVICES.calendarSync) {
  return invocation(service, async (telemetry) => {
    const feeds = await startFeedServer();
    const owner = 'owner@acme.example';
    const hourly = (uid: string, organizer: string) =>
      testEvent(uid, '20270302T090000Z', ['RRULE:FREQ=HOURLY', `ORGANIZER:mailto:${organizer}`]);
    feeds.set(
      '/limits.ics',
      testFeed([
        testEvent('minutely', '20270302T090000Z', ['RRULE:FREQ=MINUTELY', `ORGANIZER:mailto:${owner}`]),
        hourly('stranger', 'x@evil.example'),
        hourly('owner-1', owner),
        hourly('owner-2', owner),
        hourly('owner-3', owner),
        ...[4, 5, 6, 7].map((n) => testEvent(`one-off-${n}`, `2027030${n}T090000Z`, [`ORGANIZER:mailto:${owner}`])),
      ]),
    );
    const small = { ...EXPANSION_LIMITS, eventsPerFeed: 5, occurrencesPerEvent: 3, occurrencesPerFeed: 7 };
    try {
      for (const [expansionLimits, syncs] of [
        [small, 3],
        [{ ...small, expansionBudgetMs: -1 }, 1],
      ] as const) {
        const now = Date.parse('2027-03-01T00:00:00Z');
        const calendars = await calendarHarness(() => now, {
          scheduleLimits: { perSync: 2, perDay: 5 },
          expansionLimits,
          telemetry,
        });
        await calendars.call('PUT', '/calendars/limits', {
          ics_url: feeds.url('/limits.ics'),
          rules: { join: 'all', owner_emails: [owner] },
        });
        for (let i = 0; i < syncs; i++) {
          if (service === SERVICES.calendars)
            expect((await calendars.call('POST', '/calendars/limits/sync')).status).toBe(200);
          else expect(await createCalendarSyncRun(calendars.deps, { budgetMs: 60_000 })()).toMatchObject({ synced: 1 });
        }
      }
    } finally {
      await feeds.stop();
    }
  });
}

/**
 * A company calendar user cut off, and a provider throttling, for each provider, in each
 * function that calls the providers. The code that meets them (core's syncCompanyUser and
 * planCompanySyncs) is built beside this branch, so a stand-in emits what it promised
 * (METRICS.calendarUserDisconnected / calendarProviderThrottled by `provider`): through the
 * real user-sync consumer for that function, as the scheduled run's plan for the other.
 * Once core is merged, these run the real sync against the provider simulators.
 */
function companyCalendarTrouble(service: (typeof SERVICES)['calendarUserSync' | 'calendarSync']) {
  return invocation(service, async (telemetry) => {
    const standIn = async () => {
      for (const provider of CALENDAR_PROVIDERS) {
        telemetry.metrics.emit(METRICS.calendarUserDisconnected, 1, { provider });
        telemetry.metrics.emit(METRICS.calendarProviderThrottled, 1, { provider });
      }
    };
    if (service === SERVICES.calendarUserSync) {
      const batch = {
        Records: [
          {
            messageId: 'm1',
            body: JSON.stringify({ calendar_id: 'acme', user: 'ada@acme.example', reason: 'schedule' }),
            attributes: { ApproximateReceiveCount: '1' },
          },
        ],
      } as unknown as SQSEvent;
      expect(await createUserSyncHandler(standIn, telemetry)(batch)).toEqual({ batchItemFailures: [] });
    } else {
      const noCalendars = {
        store: { listSources: async () => [] },
        telemetry,
        now: Date.now,
      } as unknown as Parameters<typeof createCalendarSyncRun>[0];
      expect(await createCalendarSyncRun(noCalendars, { budgetMs: 1000, planCompany: standIn })()).toMatchObject({
        failed: 0,
      });
    }
  });
}

/** Each alarmed code path, run as the function that runs it in AWS. */
/** A state change that ends a meeting with each status the missed-meetings alarm counts: [type, sub-type, from, to]. */
const FINISHED_AS: Record<
  (typeof MISSED_MEETINGS_ALARM.finishedStatuses)[number],
  [string, string | null, string, string]
> = {
  recorded: ['meeting_ended', null, 'joined_recording', 'post_processing'],
  partial: ['fatal_error', 'heartbeat_timeout', 'joined_recording', 'fatal_error'],
  missed: ['could_not_join_meeting', 'request_to_join_denied', 'joining', 'fatal_error'],
  failed: ['fatal_error', 'out_of_credits', 'scheduled', 'fatal_error'],
};

/**
 * Meetings that finish with these statuses, one each, as `service` applies their state changes: the
 * consumer from the queue, the reconciler what it observed (applyValidatedEvent, with its own telemetry).
 */
function meetingsFinish(
  service: typeof SERVICES.processEvents | typeof SERVICES.reconciler,
  statuses: ReadonlyArray<keyof typeof FINISHED_AS> = MISSED_MEETINGS_ALARM.finishedStatuses,
): Promise<MetricIdentity[]> {
  return invocation(service, async (telemetry) => {
    const processing = processDependencies(resources, telemetry);
    const at = new Date('2026-11-20T12:00:00Z');
    for (const status of statuses) {
      const [eventType, subType, oldState, newState] = FINISHED_AS[status];
      const change = { eventType, subType, oldState, newState, createdAtMicros: at.getTime() * 1000 };
      const message = queuedMessage(stateChange(`bot_outcome_${randomUUID()}`, change), at);
      if (service === SERVICES.processEvents) await processQueuedEvent(message, processing);
      else {
        const event = { webhook: decodeWebhook(message.body), text: message.body, receivedAt: at.toISOString() };
        await applyValidatedEvent(event, processing);
      }
    }
  });
}

type CfnAlarmQuery = { Id: string; Expression?: string; MetricStat?: { Metric: CfnMetric; Stat: string } };

/**
 * The value an alarm's metric math takes over these emitted points (each watched metric's Sum; a metric
 * with no point is missing, as in CloudWatch). Only FILL(id,0), IF, numbers and arithmetic are modelled:
 * anything else fails to evaluate.
 */
function alarmValue(queries: CfnAlarmQuery[], emitted: MetricIdentity[]): number {
  const values: Record<string, number | undefined> = {};
  for (const { Id, MetricStat } of queries) {
    if (MetricStat === undefined) continue;
    const { Namespace = '', MetricName = '', Dimensions = [] } = MetricStat.Metric;
    expect(MetricStat.Stat).toBe('Sum');
    const watched = identity({
      namespace: Namespace,
      name: MetricName,
      dimensions: Object.fromEntries(Dimensions.map((d) => [d.Name, String(d.Value)])),
    });
    const points = emitted.filter((m) => identity(m) === watched).flatMap((m) => m.values ?? []);
    values[Id] = points.length === 0 ? undefined : points.reduce((sum, value) => sum + value, 0);
  }
  const [returned, ...more] = queries.filter((q) => q.Expression !== undefined);
  expect(more).toEqual([]);
  const script = String(returned?.Expression)
    .replace(/FILL\((\w+),0\)/g, (_, id: string) => `(v[${JSON.stringify(id)}] ?? 0)`)
    .replace(/\bIF\(/g, 'iff(');
  expect(script).toMatch(/^[\s\w()[\]"?.,+*/>=-]*$/);
  const evaluate = new Function('v', 'iff', `return ${script};`) as (
    v: Record<string, number | undefined>,
    iff: (condition: boolean, then: number, otherwise: number) => number,
  ) => number;
  return evaluate(values, (condition, then, otherwise) => (condition ? then : otherwise));
}

const scenarios: Array<[string, () => Promise<MetricIdentity[]>]> = [
  [
    'the ingress refuses a webhook signed with another secret',
    () =>
      invocation(SERVICES.ingress, (telemetry) =>
        acceptWebhook(signWebhook(transcriptEnvelope(), newSigningSecret()), {
          signingKeys: async () => parseSigningSecrets(newSigningSecret()),
          queue: { enqueue: async () => ({ messageId: 'never', bodyLocation: 'inline' }) },
          maxBodyBytes: 1 << 20,
          telemetry,
          now: () => new Date(),
        }),
      ),
  ],
  [
    'forged webhooks past the quarantine cap are dropped',
    () =>
      invocation(SERVICES.ingress, async (telemetry) => {
        const deps = localIngress(resources, {
          signingSecret: newSigningSecret(),
          overrides: { QUARANTINE_MAX_PER_MINUTE: '1' },
          telemetry,
        });
        // One minute for both: the first is kept, the second dropped by the cap.
        const inOneMinute = { ...deps, now: () => new Date('2026-11-23T12:00:00Z') };
        for (let i = 0; i < 2; i++)
          await acceptWebhook(signWebhook(transcriptEnvelope(), newSigningSecret()), inOneMinute);
      }),
  ],
  [
    'an archive job fails (the service answers 500)',
    () =>
      invocation(SERVICES.archive, async (telemetry) => {
        const { deps } = localArchive(resources, {
          upstream: upstream('fail', telemetry),
          overrides: { UPSTREAM_BASE_URL: `${upstreamOrigin}/fail/api/v1/` },
          telemetry,
        });
        const event = {
          Records: [
            {
              messageId: 'm1',
              body: JSON.stringify({ bot_id: 'bot_alarm_archive', reason: 'ended' }),
              attributes: { ApproximateReceiveCount: '1', MessageGroupId: 'bot_alarm_archive' },
            },
          ],
        } as unknown as SQSEvent;
        // A batch whose every record failed is thrown back to Lambda whole, as in AWS.
        const failure = await createArchiveHandler(deps)(event).catch((error: Error) => error);
        expect(failure).toMatchObject({ name: 'FullBatchFailureError' });
      }),
  ],
  ['the service serves an empty recording where one is archived', recordingShrank],
  [
    'a launch fails for good',
    () =>
      invocation(SERVICES.launchBot, (telemetry) =>
        recordLaunchFailure(
          {
            scheduleId: 'alarm-launch',
            version: 1,
            launchAt: new Date().toISOString(),
            joinAt: new Date().toISOString(),
          },
          { Error: 'BadRequestError', Cause: '{"errorMessage":"refused"}' },
          {
            table: { db: documentClient(), tableName: resources.tableName },
            upstream: upstream('fail', telemetry),
            events: testEventLog().publisher,
            telemetry,
          },
        ),
      ),
  ],
  [
    'a reconciler run meets a bot gone from the service, a bot it cannot read, and a meeting out of backstop jobs',
    () =>
      invocation(SERVICES.reconciler, async (telemetry) => {
        const processing = processDependencies(resources);
        const at = Date.parse('2026-11-20T12:00:00Z');
        const stuck = async (botId: string, state: string, extra: string) => {
          const change = { oldState: 'joining', newState: state, eventType: 'x', createdAtMicros: at * 1000 };
          await processQueuedEvent(queuedMessage(stateChange(botId, change), new Date(at)), processing);
          await documentClient().send(
            new UpdateCommand({
              TableName: resources.tableName,
              Key: keys.meeting(botId),
              UpdateExpression: `SET ${extra} = :n`,
              ExpressionAttributeValues: {
                ':n': extra === 'serviceMisses' ? UNKNOWN_AFTER_MISSES - 1 : MAX_BACKSTOP_JOBS,
              },
            }),
          );
        };
        await stuck('bot_alarm_gone', 'joining', 'serviceMisses');
        await stuck('bot_alarm_unreadable', 'joined_recording', 'reconcileNote');
        await stuck('bot_alarm_unarchivable', 'fatal_error', 'backstopArchiveJobs');
        const report = await reconcileMeetings({
          table: processing.table,
          processing,
          archive: processing.archive,
          // The service as the reconciler sees it: one bot gone (404), one ended without any event time.
          upstream: {
            getBot: async (botId: string) => {
              if (botId === 'bot_alarm_gone') throw new NotFoundError('Bot not found', 404);
              return { id: botId, state: 'ended', events: [] } as unknown as Bot;
            },
          },
          telemetry,
          now: () => at + 3_600_000,
          staleAfterMs: 15 * 60_000,
          maxMeetings: 50,
        });
        expect(report).toMatchObject({
          unknown: ['bot_alarm_gone'],
          failures: [{ botId: 'bot_alarm_unreadable' }],
          archiveGivenUp: ['bot_alarm_unarchivable'],
        });
      }),
  ],
  ['applying events fails for every reason there is', eventFailures],
  ['an on-demand calendar sync reaches every limit', () => calendarLimitsReached(SERVICES.calendars)],
  ['a scheduled calendar sync reaches every limit', () => calendarLimitsReached(SERVICES.calendarSync)],
  [
    'company calendar users are cut off and throttled (user sync)',
    () => companyCalendarTrouble(SERVICES.calendarUserSync),
  ],
  ['company calendar groups are cut off and throttled (the plan)', () => companyCalendarTrouble(SERVICES.calendarSync)],
  [
    'lake compaction leaves closed days behind (one day a run, a week of closed days waiting)',
    () =>
      invocation(SERVICES.lakeCompaction, async (telemetry) => {
        const objects = s3LakeObjects(s3Client(), resources.payloadBucket, unversionedObjects(s3Client()));
        const now = new Date();
        for (const daysAgo of [10, 9, 8, 7]) {
          const day = lakeDayOf(now.getTime() - daysAgo * 86_400_000);
          const row = {
            bot_id: `bot_lake_${daysAgo}`,
            utterance_count: 0,
            participant_count: 0,
            speaker_count: 0,
            archived_at: now.toISOString(),
            lake_version: now.toISOString(),
          };
          await objects.put(lakeKeys.recentFile('meetings', day, row.bot_id), encodeLakeRows('meetings', [row]));
        }
        const table = { db: documentClient(), tableName: resources.tableName };
        const run = await compactClosedDays(
          { compactAfterHours: 30 },
          { table, objects, telemetry, now: () => now },
          1,
        );
        expect(run.daysAwaiting).toBeGreaterThan(2);
      }),
  ],
  [
    'the API throttles a webhook (429): its access-log line',
    async () => publishedFor(accessLogLine(accessLog().format, 429)),
  ],
  ...[SERVICES.archive, SERVICES.reconciler, SERVICES.launchBot].map(
    (service): [string, () => Promise<MetricIdentity[]>] => [
      `the service refuses the API key in ${service}`,
      () =>
        invocation(service, (telemetry) =>
          upstream('refuse', telemetry)
            .getBot('bot_1')
            .catch(() => undefined),
        ),
    ],
  ),
  // Last: the reconciler run above would check these meetings too.
  ['meetings finish recorded, partial, missed and failed (consumer)', () => meetingsFinish(SERVICES.processEvents)],
  ['meetings finish recorded, partial, missed and failed (reconciler)', () => meetingsFinish(SERVICES.reconciler)],
];

describe('alarms and the metrics the code emits', () => {
  it('logs a refused API key as one ERROR line, naming what to do, of the function that met it', async () => {
    for (const service of [SERVICES.archive, SERVICES.reconciler, SERVICES.launchBot]) {
      heldLogs.length = 0;
      await invocation(service, (telemetry) =>
        upstream('refuse', telemetry)
          .getBot('bot_1')
          .catch(() => undefined),
      );
      expect(heldLogs).toEqual([
        expect.objectContaining({
          level: 'ERROR',
          service,
          message: expect.stringMatching(/refused the API key.*replace it/),
        }),
      ]);
    }
  });

  it('selects functions by the service names they are deployed with', () => {
    expect(
      deployedServiceNames()
        .filter((name) => name !== undefined)
        .sort(),
    ).toEqual(Object.values(SERVICES).sort());
  });

  it('every alarm on an application metric watches one the code emits, dimensions included', async () => {
    const alarmed = alarmedMetrics();
    expect(alarmed.length).toBeGreaterThanOrEqual(6);
    const emitted = new Set<string>();
    for (const [, run] of scenarios) for (const metric of await run()) emitted.add(identity(metric));
    const unmatched = alarmed.filter((metric) => !emitted.has(identity(metric)));
    expect(
      unmatched.map((m) => `${m.alarm}: ${identity(m)}`),
      `emitted:\n${[...emitted].join('\n')}`,
    ).toEqual([]);
  });

  it('fires MissedMeetings from the points the code emits: from a share and a count, summed over both functions', async () => {
    const [alarm, ...others] = Object.entries(template.findResources('AWS::CloudWatch::Alarm'))
      .filter(([id]) => id.startsWith('MonitoringMissedMeetings'))
      .map(([, resource]) => resource.Properties as { Threshold: number; Metrics: CfnAlarmQuery[] });
    expect(others).toEqual([]);
    if (alarm === undefined) throw new Error('no MissedMeetings alarm');
    const fires = (emitted: MetricIdentity[]) => alarmValue(alarm.Metrics, emitted) >= alarm.Threshold;
    expect(alarm.Threshold).toBe(20);
    const oneOfFive = await meetingsFinish(SERVICES.processEvents, [
      'recorded',
      'recorded',
      'partial',
      'recorded',
      'missed',
    ]);
    expect(alarmValue(alarm.Metrics, oneOfFive)).toBe(20);
    expect(fires(oneOfFive)).toBe(true);
    // One missed meeting of one is no 100 %: too few meetings finished in the hour.
    const oneFailed = await meetingsFinish(SERVICES.reconciler, ['failed']);
    expect(fires(oneFailed)).toBe(false);
    // The reconciler's count with the consumer's: 2 of 6.
    expect(alarmValue(alarm.Metrics, [...oneOfFive, ...oneFailed])).toBeCloseTo(100 / 3);
    const oneOfSix = await meetingsFinish(SERVICES.processEvents, [
      'recorded',
      'recorded',
      'recorded',
      'recorded',
      'recorded',
      'failed',
    ]);
    expect(fires(oneOfSix)).toBe(false);
  });

  it('fires RecordingShrankRefused from the point the archive emits when it keeps the archived recording', async () => {
    const alarms = Object.entries(template.findResources('AWS::CloudWatch::Alarm'))
      .filter(([id]) => id.startsWith('MonitoringRecordingShrankRefused'))
      .map(([, resource]) => resource.Properties as CfnMetric & { Threshold: number; Statistic: string });
    expect(alarms).toHaveLength(1);
    const [alarm] = alarms;
    if (alarm === undefined) throw new Error('no RecordingShrankRefused alarm');
    expect(alarm.Statistic).toBe('Sum');
    const watched = identity({
      namespace: String(alarm.Namespace),
      name: String(alarm.MetricName),
      dimensions: Object.fromEntries((alarm.Dimensions ?? []).map((d) => [d.Name, String(d.Value)])),
    });
    const points = (await recordingShrank()).filter((metric) => identity(metric) === watched);
    const sum = points.flatMap((point) => point.values ?? []).reduce((total, value) => total + value, 0);
    expect(sum).toBe(1);
    expect(sum >= alarm.Threshold).toBe(true);
  });

  it('watches EventFailed for each reason the processing emits, and it emits every listed reason', async () => {
    const watched = new Set(alarmedMetrics().map(identity));
    const failures = (await eventFailures()).filter((m) => m.name === METRICS.eventFailed.name);
    expect(new Set(failures.map((m) => m.dimensions.reason))).toEqual(new Set(EVENT_FAILURE_REASONS));
    expect(failures.filter((m) => !watched.has(identity(m)))).toEqual([]);
  });

  it('watches CalendarLimitReached for every limit in both calendar functions, and a sync reaches every one', async () => {
    const watched = new Set(alarmedMetrics().map(identity));
    for (const service of [SERVICES.calendars, SERVICES.calendarSync] as const) {
      const reached = (await calendarLimitsReached(service)).filter(
        (m) => m.name === METRICS.calendarLimitReached.name,
      );
      expect(new Set(reached.map((m) => m.dimensions.limit))).toEqual(new Set(CALENDAR_LIMITS));
      expect(reached.filter((m) => !watched.has(identity(m)))).toEqual([]);
    }
  });

  it('watches CalendarUserDisconnected and CalendarProviderThrottled for every provider in both company sync functions', async () => {
    const watched = alarmedMetrics();
    for (const service of [SERVICES.calendarUserSync, SERVICES.calendarSync] as const) {
      const emitted = await companyCalendarTrouble(service);
      for (const [metric, alarm] of [
        [METRICS.calendarUserDisconnected, /^MonitoringCalendarUsersDisconnected/],
        [METRICS.calendarProviderThrottled, /^MonitoringCalendarProviderThrottled/],
      ] as const) {
        const points = emitted.filter((m) => m.name === metric.name);
        expect(new Set(points.map((m) => m.dimensions.provider))).toEqual(new Set(CALENDAR_PROVIDERS));
        for (const point of points)
          expect(
            watched.filter((m) => identity(m) === identity(point)).map((m) => m.alarm),
            identity(point),
          ).toEqual([expect.stringMatching(alarm)]);
      }
    }
  });

  it('counts a 429 from the API access log (and not a 202), into the metric the throttling alarm watches', () => {
    const { format } = accessLog();
    const throttled = accessLogLine(format, 429);
    // The format renders JSON, with the status as text.
    expect(JSON.parse(throttled)).toMatchObject({ status: '429' });
    const [published, ...more] = publishedFor(throttled);
    expect(more).toEqual([]);
    expect(published).toMatchObject({ namespace: METRICS_NAMESPACE, dimensions: {} });
    expect(publishedFor(accessLogLine(format, 202))).toEqual([]);
    const watching = alarmedMetrics().filter((m) => published && identity(m) === identity(published));
    expect(watching.map((m) => m.alarm)).toEqual([expect.stringMatching(/^MonitoringIngressThrottled/)]);
  });

  it('evaluates filter patterns strictly: text against text only, and nothing it does not model', () => {
    const line = JSON.stringify({ status: '429', bytes: 12 });
    expect(matchesFilterPattern('{ $.status = "429" }', line)).toBe(true);
    expect(matchesFilterPattern('{ $.status = 429 }', line)).toBe(false);
    expect(matchesFilterPattern('{ $.bytes = 12 }', line)).toBe(true);
    expect(matchesFilterPattern('{ $.status != "429" }', line)).toBe(false);
    expect(matchesFilterPattern('{ $.missing = "429" }', line)).toBe(false);
    expect(matchesFilterPattern('{ $.status = "429" }', 'status 429')).toBe(false);
    for (const unmodelled of ['{ $.status = "4*" }', '{ $.status > 400 }', '[ip, status=429]', '429'])
      expect(() => matchesFilterPattern(unmodelled, line)).toThrow(/not modelled/);
  });
});
