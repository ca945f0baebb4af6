/**
 * What operators watch: one dashboard that reads left to right (ingress → queue
 * → processing → archive → scheduler) and alarms that page before data is lost,
 * all notifying one encrypted SNS topic (with an optional e-mail subscription).
 */
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import {
  Alarm,
  ComparisonOperator,
  Dashboard,
  GraphWidget,
  type IMetric,
  MathExpression,
  Metric,
  TextWidget,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { StateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { CUT_OFF_REASONS } from '../lambdas/core/archive/download-guard';
import { CALENDAR_LIMITS } from '../lambdas/core/calendar/calendar-limits';
import type { ProviderName } from '../lambdas/core/calendar/company/provider-contract';
import { EVENT_FAILURE_REASONS } from '../lambdas/core/events/failure-reasons';
import { STATS_QUESTIONS } from '../lambdas/core/lake/lake-questions-contract';
import { LAKE_ROUTE_REFUSALS } from '../lambdas/core/lake/lake-search-routes';
import { LAKE_TABLE_NAMES } from '../lambdas/core/lake/lake-tables';
import type { OutcomeStatus } from '../lambdas/core/outcome/outcome-reasons';
import {
  type DimensionArgs,
  METRICS,
  METRICS_NAMESPACE,
  type MetricDefinition,
  SERVICES,
  type ServiceName,
} from '../lambdas/core/telemetry';
import { KNOWN_TRIGGERS, UNBOUND_EVENTS } from '../lambdas/core/upstream/webhook-contract';

export interface MonitoringProps {
  api: HttpApi;
  /** Requests the API answered 429, from its access log (lib/http-api.ts). */
  throttledRequests: IMetric;
  /** Functions by the `service` name their metrics carry (POWERTOOLS_SERVICE_NAME). */
  functions: Record<ServiceName, IFunction>;
  eventsQueue: IQueue;
  archiveQueue: IQueue;
  /** The company calendars' fan-out queue, for the dashboard. */
  userSyncQueue: IQueue;
  deadLetterQueues: Record<string, IQueue>;
  stateMachine: StateMachine;
  alarmEmail?: string;
  /** Oldest message on the events queue before it alarms. */
  maxEventAgeSeconds: number;
  /** Signature rejections per 5 minutes before it alarms (a few are probes; many mean a wrong secret). */
  signatureRejectionThreshold: number;
  /** The share (percent) of an hour's finished meetings missed or failed before it alarms. */
  missedMeetingsAlarmPercent: number;
}

const FIVE_MINUTES = Duration.minutes(5);

/** Every company calendar provider, the `provider` dimension's values (a closed set one alarm covers). */
export const CALENDAR_PROVIDERS = ['google', 'microsoft'] as const satisfies readonly ProviderName[];
// A provider added to ProviderName and not here fails to compile: its alarms would miss it.
type UnwatchedProvider = Exclude<ProviderName, (typeof CALENDAR_PROVIDERS)[number]>;
export const EVERY_PROVIDER_WATCHED: [UnwatchedProvider] extends [never] ? true : UnwatchedProvider = true;

/** Closed lake days awaiting compaction after a run that page: one missed day is the next run's work, three are not. */
export const LAKE_DAYS_AWAITING_COMPACTION_ALARM = 2;

/** The functions that sync company calendars: the consumer (each user) and the scheduled run (each group). */
export const COMPANY_SYNC_SERVICES = [SERVICES.calendarUserSync, SERVICES.calendarSync] as const;

/**
 * Throttled provider answers per 5 minutes, three periods running, before it alarms. A throttled user
 * backs off and syncs later, so a few are routine; this many for 15 minutes means the load is above the
 * provider's quota: lower calendarUserSyncConcurrency, or ask the provider for more.
 */
export const PROVIDER_THROTTLED_ALARM = { perFiveMinutes: 10, periods: 3 } as const;

/**
 * The missed-meetings alarm: meetings whose outcome became final in an hour, by the functions that apply
 * state changes, and the fewest finished meetings that hour for a share to count (one missed of one is no 100 %).
 * Cancelled meetings are left out: the bot was never meant to join them.
 */
export const MISSED_MEETINGS_ALARM = {
  period: Duration.hours(1),
  minMeetings: 5,
  services: [SERVICES.processEvents, SERVICES.reconciler],
  badStatuses: ['missed', 'failed'],
  finishedStatuses: ['recorded', 'partial', 'missed', 'failed'],
} as const satisfies {
  period: Duration;
  minMeetings: number;
  services: readonly ServiceName[];
  badStatuses: readonly OutcomeStatus[];
  finishedStatuses: readonly OutcomeStatus[];
};

/**
 * A metric the functions emit, as CloudWatch stores it: the `service` dimension plus
 * exactly the definition's own dimensions (the emitting code takes the same definition).
 */
export function appMetric<Key extends string>(
  metric: MetricDefinition<Key>,
  service: ServiceName,
  ...dimensions: DimensionArgs<Key>
): Metric {
  return new Metric({
    namespace: METRICS_NAMESPACE,
    metricName: metric.name,
    dimensionsMap: { service, ...dimensions[0] },
    statistic: 'Sum',
    period: FIVE_MINUTES,
  });
}

export class Monitoring extends Construct {
  readonly topic: Topic;
  readonly dashboard: Dashboard;
  readonly alarms: Alarm[] = [];

  constructor(scope: Construct, id: string, props: MonitoringProps) {
    super(scope, id);

    // CloudWatch can publish to an encrypted topic only with a customer managed key that lets it.
    const key = new Key(this, 'AlarmTopicKey', {
      enableKeyRotation: true,
      description: 'Encrypts the meeting-pipeline alarm topic',
      removalPolicy: RemovalPolicy.DESTROY,
    });
    key.grant(new ServicePrincipal('cloudwatch.amazonaws.com'), 'kms:Decrypt', 'kms:GenerateDataKey*');
    this.topic = new Topic(this, 'AlarmTopic', {
      displayName: 'meeting-pipeline alarms',
      masterKey: key,
      enforceSSL: true,
    });
    if (props.alarmEmail !== undefined) this.topic.addSubscription(new EmailSubscription(props.alarmEmail));
    const action = new SnsAction(this.topic);

    const app = appMetric;
    const alarm = (name: string, description: string, metric: IMetric, threshold = 1, evaluationPeriods = 1) => {
      const created = new Alarm(this, name, {
        alarmDescription: `${description} Runbook: docs/operating.md, "Alarms" → ${name}.`,
        metric,
        threshold,
        evaluationPeriods,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      });
      created.addAlarmAction(action);
      created.addOkAction(action);
      this.alarms.push(created);
      return created;
    };

    for (const [name, queue] of Object.entries(props.deadLetterQueues)) {
      alarm(
        `${name}NotEmpty`,
        `A message reached the ${name} dead-letter queue: something could not be processed after its retries.`,
        queue.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(1), statistic: 'Maximum' }),
      );
    }
    alarm(
      'EventsBacklogAge',
      `The oldest event has waited over ${props.maxEventAgeSeconds} s: processing is stalled or too slow.`,
      props.eventsQueue.metricApproximateAgeOfOldestMessage({ period: Duration.minutes(1), statistic: 'Maximum' }),
      props.maxEventAgeSeconds,
      3,
    );
    alarm(
      'ArchiveBacklogAge',
      'An archive job has waited over 2 hours.',
      props.archiveQueue.metricApproximateAgeOfOldestMessage({ period: FIVE_MINUTES, statistic: 'Maximum' }),
      7_200,
    );
    alarm(
      'IngressServerErrors',
      'The webhook endpoint answered 5xx: the service retries a few times, then the webhook is lost.',
      props.api.metricServerError({ period: FIVE_MINUTES, statistic: 'Sum' }),
    );
    alarm(
      'IngressThrottled',
      'The HTTP API answered 429 (throttled): the service retries a few times, then the webhook is lost.',
      props.throttledRequests,
    );
    // Failed records of a batch are reported back to SQS, not thrown: Lambda counts no error for them.
    const eventFailures = new MathExpression({
      expression: EVENT_FAILURE_REASONS.map((_, i) => `FILL(r${i},0)`).join(' + '),
      usingMetrics: Object.fromEntries(
        EVENT_FAILURE_REASONS.map((reason, i) => [
          `r${i}`,
          app(METRICS.eventFailed, SERVICES.processEvents, { reason }),
        ]),
      ),
      label: 'EventFailed (every reason)',
      period: FIVE_MINUTES,
    });
    alarm(
      'EventFailures',
      'Applying an event failed (it is retried, and dead-lettered after 5 receives).',
      eventFailures,
    );
    alarm(
      'SignatureRejections',
      'Many webhooks failed the signature check: the signing secret is probably wrong or rotated on one side only.',
      app(METRICS.webhookRejected, SERVICES.ingress, { reason: 'signature-mismatch' }),
      props.signatureRejectionThreshold,
    );
    alarm(
      'QuarantineCapped',
      'Webhooks refused for their signature were dropped, not quarantined: a quarantine cap (per minute across all ingress instances, or per bot a day) was reached. A flood of forged webhooks, or a secret rotated on one side at volume; what was dropped cannot be re-driven.',
      app(METRICS.webhookQuarantineCapped, SERVICES.ingress),
    );
    alarm(
      'ArchiveFailures',
      'Archiving a meeting failed (it is retried, then dead-lettered).',
      app(METRICS.archiveFailed, SERVICES.archive),
    );
    alarm(
      'RecordingShrankRefused',
      "A recording download was smaller than (or empty where) the meeting's archived recording: the archived one was kept and the download refused (the service can upload an empty file over a finished recording when its bot task runs again). The archive record's refusedRecording says which and why.",
      app(METRICS.recordingShrankRefused, SERVICES.archive),
    );
    alarm(
      'ReconcilerUnknownBots',
      'The service answered 404 for a bot three checks running; the reconciler set it aside (serviceMisses, unknownToService on the meeting).',
      app(METRICS.reconcilerUnknownBot, SERVICES.reconciler),
    );
    // One alarm per calendar function: an alarm's metric math takes at most 10 metrics.
    for (const [name, service] of [
      ['CalendarLimits', SERVICES.calendarSync],
      ['CalendarLimitsOnDemand', SERVICES.calendars],
    ] as const) {
      alarm(
        name,
        `A calendar sync (${service}) reached a limit: a feed too big or busy to read whole, a recurrence not read, or new schedules held back; the sync's log line and result list which and why.`,
        new MathExpression({
          expression: CALENDAR_LIMITS.map((_, i) => `FILL(l${i},0)`).join(' + '),
          usingMetrics: Object.fromEntries(
            CALENDAR_LIMITS.map((limit, i) => [`l${i}`, app(METRICS.calendarLimitReached, service, { limit })]),
          ),
          label: 'CalendarLimitReached (every limit)',
          period: FIVE_MINUTES,
        }),
      );
    }
    // Company calendars: each provider, from both functions that call the providers.
    const perProvider = (metric: typeof METRICS.calendarUserDisconnected, id: string, label: string) =>
      new MathExpression({
        expression: COMPANY_SYNC_SERVICES.flatMap((_, s) =>
          CALENDAR_PROVIDERS.map((__, p) => `FILL(${id}${s}p${p},0)`),
        ).join(' + '),
        usingMetrics: Object.fromEntries(
          COMPANY_SYNC_SERVICES.flatMap((service, s) =>
            CALENDAR_PROVIDERS.map((provider, p) => [`${id}${s}p${p}`, app(metric, service, { provider })]),
          ),
        ),
        label,
        period: FIVE_MINUTES,
      });
    const disconnected = perProvider(
      METRICS.calendarUserDisconnected,
      'd',
      'CalendarUserDisconnected (every provider)',
    );
    const throttled = perProvider(METRICS.calendarProviderThrottled, 't', 'CalendarProviderThrottled (every provider)');
    alarm(
      'CalendarUsersDisconnected',
      "A company calendar user (or a whole source) was cut off by its provider: the admin grant revoked, the credentials secret wrong or rotated on one side, the user outside the access policy. Their meetings get no bots until someone fixes it; GET /calendars/{id} shows who and the provider's reason, and a calendar.disconnected event was published.",
      disconnected,
    );
    alarm(
      'CalendarProviderThrottled',
      `A calendar provider kept throttling (${PROVIDER_THROTTLED_ALARM.perFiveMinutes} or more answers per 5 minutes for ${PROVIDER_THROTTLED_ALARM.periods * 5} minutes): users back off and sync late. Lower calendarUserSyncConcurrency, or raise the provider's quota.`,
      throttled,
      PROVIDER_THROTTLED_ALARM.perFiveMinutes,
      PROVIDER_THROTTLED_ALARM.periods,
    );
    alarm(
      'ReconcilerFailures',
      'Checking a meeting failed in a reconciler run (the run went on; the log line names the bot and why).',
      app(METRICS.reconcilerFailed, SERVICES.reconciler),
    );
    alarm(
      'ArchiveBackstopExhausted',
      'A final meeting is still unarchived after the reconciler queued its last backstop archive job.',
      app(METRICS.archiveBackstopExhausted, SERVICES.reconciler),
    );
    alarm(
      'LakeCompactionBehind',
      `More than ${LAKE_DAYS_AWAITING_COMPACTION_ALARM} closed lake days await compaction after a compaction run (closed days after the mark, and days at or before it whose fold failed): the daily run is failing or cannot keep up (its log says which day and why). Each closed day after the mark is one file per meeting to read; a meeting written late to a day at or before it is not read until a run folds that day.`,
      // A gauge emitted once per daily run: its largest value over the day.
      new Metric({
        namespace: METRICS_NAMESPACE,
        metricName: METRICS.lakeDaysAwaitingCompaction.name,
        dimensionsMap: { service: SERVICES.lakeCompaction },
        statistic: 'Maximum',
        period: Duration.days(1),
      }),
      LAKE_DAYS_AWAITING_COMPACTION_ALARM + 1,
    );
    // Per status and function (an alarm needs exact dimensions): missed + failed over every finished meeting.
    const { period, minMeetings, services, badStatuses, finishedStatuses } = MISSED_MEETINGS_ALARM;
    const outcomeId = (status: string, s: number) => `${status}${s}`;
    const sumOf = (statuses: readonly string[]) =>
      `(${statuses.flatMap((status) => services.map((_, s) => `FILL(${outcomeId(status, s)},0)`)).join(' + ')})`;
    const missedShare = new MathExpression({
      expression: `IF(${sumOf(finishedStatuses)} >= ${minMeetings}, 100 * ${sumOf(badStatuses)} / ${sumOf(finishedStatuses)}, 0)`,
      usingMetrics: Object.fromEntries(
        finishedStatuses.flatMap((status) =>
          services.map((service, s) => [
            outcomeId(status, s),
            app(METRICS.meetingOutcomeByStatus, service, { status }).with({ period }),
          ]),
        ),
      ),
      label: 'Missed or failed meetings (% of finished, hourly)',
      period,
    });
    alarm(
      'MissedMeetings',
      `${props.missedMeetingsAlarmPercent} % or more of the meetings that finished in an hour (at least ${minMeetings}) were missed or failed. The dashboard's "Meeting outcomes by reason" says why; docs/operating.md says what each reason asks of you.`,
      missedShare,
      props.missedMeetingsAlarmPercent,
    );
    alarm(
      'LaunchFailures',
      'A scheduled bot could not be launched; the schedule says why.',
      app(METRICS.launchFailed, SERVICES.launchBot),
    );
    alarm(
      'UpstreamUnauthorized',
      'The meeting assistant service refused the API key (revoked or wrong): nothing can be fetched or launched.',
      new MathExpression({
        expression: 'FILL(a,0) + FILL(r,0) + FILL(l,0)',
        usingMetrics: {
          a: app(METRICS.upstreamUnauthorized, SERVICES.archive),
          r: app(METRICS.upstreamUnauthorized, SERVICES.reconciler),
          l: app(METRICS.upstreamUnauthorized, SERVICES.launchBot),
        },
        period: FIVE_MINUTES,
      }),
    );
    alarm(
      'LauncherExecutionsFailed',
      'A launcher execution failed.',
      props.stateMachine.metricFailed({ period: FIVE_MINUTES, statistic: 'Sum' }),
    );
    alarm(
      'LauncherExecutionsTimedOut',
      'A launcher execution timed out.',
      props.stateMachine.metricTimedOut({ period: FIVE_MINUTES, statistic: 'Sum' }),
    );
    for (const [service, fn] of Object.entries(props.functions)) {
      const name = service.replace(/(^|-)(\w)/g, (_m, _d, c: string) => c.toUpperCase());
      alarm(
        `${name}Errors`,
        `The ${service} function failed invocations.`,
        fn.metricErrors({ period: FIVE_MINUTES, statistic: 'Sum' }),
      );
      alarm(
        `${name}Throttles`,
        `The ${service} function was throttled.`,
        fn.metricThrottles({ period: FIVE_MINUTES, statistic: 'Sum' }),
      );
    }

    const graph = (title: string, left: IMetric[], right: IMetric[] = []) =>
      new GraphWidget({ title, left, right, width: 8, height: 6 });
    const lambda = (metric: 'metricErrors' | 'metricThrottles' | 'metricDuration') =>
      Object.entries(props.functions).map(([service, fn]) =>
        fn[metric]({ period: FIVE_MINUTES, label: service, ...(metric === 'metricDuration' && { statistic: 'p95' }) }),
      );
    this.dashboard = new Dashboard(this, 'Dashboard', {
      dashboardName: `${scope.node.id}-meeting-pipeline`,
      defaultInterval: Duration.hours(6),
    });
    this.dashboard.addWidgets(
      new TextWidget({
        markdown: '## meeting-pipeline: webhooks → queue → processing → archive → scheduler',
        width: 24,
        height: 1,
      }),
    );
    this.dashboard.addWidgets(
      graph(
        'Ingress: requests and errors',
        [
          props.api.metricCount({ period: FIVE_MINUTES }),
          props.api.metricClientError({ period: FIVE_MINUTES }),
          props.api.metricServerError({ period: FIVE_MINUTES }),
          props.throttledRequests,
        ],
        [props.api.metricLatency({ period: FIVE_MINUTES, statistic: 'p99' })],
      ),
      graph('Ingress: accepted and rejected', [
        app(METRICS.webhookAccepted, SERVICES.ingress),
        app(METRICS.webhookRejected, SERVICES.ingress, { reason: 'signature-mismatch' }),
        app(METRICS.webhookClaimChecked, SERVICES.ingress),
        app(METRICS.webhookQueueFailed, SERVICES.ingress),
        app(METRICS.webhookQuarantined, SERVICES.ingress),
        app(METRICS.webhookQuarantineCapped, SERVICES.ingress),
      ]),
      graph(
        'Events queue',
        [props.eventsQueue.metricApproximateNumberOfMessagesVisible({ period: FIVE_MINUTES })],
        [props.eventsQueue.metricApproximateAgeOfOldestMessage({ period: FIVE_MINUTES })],
      ),
    );
    this.dashboard.addWidgets(
      graph(
        'Processing: applied by trigger',
        [...KNOWN_TRIGGERS, 'unknown', UNBOUND_EVENTS].map((trigger) =>
          app(METRICS.eventApplied, SERVICES.processEvents, { trigger }),
        ),
      ),
      graph('Processing: failures, unknown triggers, healed', [
        eventFailures,
        app(METRICS.unknownTrigger, SERVICES.processEvents),
        app(METRICS.reconcilerHealed, SERVICES.reconciler),
      ]),
      graph(
        'Dead-letter queues',
        Object.values(props.deadLetterQueues).map((q) =>
          q.metricApproximateNumberOfMessagesVisible({ period: FIVE_MINUTES, statistic: 'Maximum' }),
        ),
      ),
    );
    this.dashboard.addWidgets(
      graph(
        'Archive',
        [
          app(METRICS.meetingArchived, SERVICES.archive),
          app(METRICS.archiveFailed, SERVICES.archive),
          app(METRICS.recordingShrankRefused, SERVICES.archive),
          ...CUT_OFF_REASONS.map((reason) => app(METRICS.downloadCutOff, SERVICES.archive, { reason })),
        ],
        [app(METRICS.archiveBytes, SERVICES.archive)],
      ),
      graph('Scheduler', [
        app(METRICS.botLaunched, SERVICES.launchBot),
        app(METRICS.launchFailed, SERVICES.launchBot),
        props.stateMachine.metricFailed({ period: FIVE_MINUTES }),
        props.stateMachine.metricTimedOut({ period: FIVE_MINUTES }),
      ]),
      graph('Upstream service', [
        app(METRICS.upstreamUnauthorized, SERVICES.archive),
        app(METRICS.upstreamRateLimited, SERVICES.archive),
        app(METRICS.upstreamRateLimited, SERVICES.launchBot),
      ]),
    );
    const { meetingOutcome } = METRICS;
    this.dashboard.addWidgets(
      graph('Meeting outcomes: missed or failed (%)', [missedShare]),
      graph('Meeting outcomes by reason', [
        // Every reason there is, from every function: a SEARCH draws them (it cannot be alarmed on; it need not be).
        new MathExpression({
          expression: `SEARCH('{${METRICS_NAMESPACE},${['service', ...meetingOutcome.dimensions].join(',')}} MetricName="${meetingOutcome.name}"', 'Sum', ${period.toSeconds()})`,
          usingMetrics: {},
          label: '',
          period,
        }),
      ]),
    );
    this.dashboard.addWidgets(
      graph('Company calendars: users', [
        ...CALENDAR_PROVIDERS.map((provider) =>
          app(METRICS.calendarUserSynced, SERVICES.calendarUserSync, { provider }),
        ),
        disconnected,
        throttled,
      ]),
      graph(
        'Company calendars: provider calls',
        COMPANY_SYNC_SERVICES.flatMap((service) =>
          CALENDAR_PROVIDERS.map((provider) => app(METRICS.calendarProviderCalls, service, { provider })),
        ),
      ),
      graph(
        'User-sync queue',
        [props.userSyncQueue.metricApproximateNumberOfMessagesVisible({ period: FIVE_MINUTES })],
        [props.userSyncQueue.metricApproximateAgeOfOldestMessage({ period: FIVE_MINUTES })],
      ),
      // Shown, never alarmed: anyone on the internet can post to the open push routes, and forged traffic must page no one.
      graph(
        'Company calendars: push refused',
        CALENDAR_PROVIDERS.map((provider) => app(METRICS.calendarPushRefused, SERVICES.calendarPush, { provider })),
      ),
    );
    this.dashboard.addWidgets(
      graph('Lake: rows written, days compacted', [
        ...LAKE_TABLE_NAMES.map((table) => app(METRICS.lakeRowsWritten, SERVICES.archive, { table })),
        app(METRICS.lakeDaysCompacted, SERVICES.lakeCompaction),
        app(METRICS.lakeDaysAwaitingCompaction, SERVICES.lakeCompaction),
      ]),
      graph(
        'Lake search: bytes scanned by question',
        ['search', ...STATS_QUESTIONS].map((question) =>
          app(METRICS.lakeQueryBytesScanned, SERVICES.lakeSearch, { question }),
        ),
      ),
      graph(
        'Lake search: refused or pending',
        LAKE_ROUTE_REFUSALS.map((reason) => app(METRICS.lakeQueryRefused, SERVICES.lakeSearch, { reason })),
      ),
    );
    this.dashboard.addWidgets(
      graph('Lambda errors', lambda('metricErrors')),
      graph('Lambda throttles', lambda('metricThrottles')),
      graph('Lambda duration p95', lambda('metricDuration')),
    );
  }
}
