/**
 * Scheduled bots: a Standard state machine that waits until a schedule's launch
 * time and calls `POST bots`, the schedule API (IAM-authorized PUT/GET/DELETE
 * /schedules/{id} on the pipeline's HTTP API), and an EventBridge rule for
 * calendar events on a bus of their own (lib/calendar-event-bus.ts). Both ways in
 * share one core (lambdas/core/schedule).
 */

import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { HttpMethod } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpIamAuthorizer } from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { type EventBus, Rule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { SqsDestination } from 'aws-cdk-lib/aws-lambda-destinations';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import {
  DefinitionBody,
  Fail,
  JitterType,
  LogLevel,
  QueryLanguage,
  StateMachine,
  StateMachineType,
  Succeed,
  TaskInput,
  Wait,
  WaitTime,
} from 'aws-cdk-lib/aws-stepfunctions';
import { LambdaInvoke } from 'aws-cdk-lib/aws-stepfunctions-tasks';
import { Construct } from 'constructs';
import { DOMAIN_EVENTS_NOT_PUBLISHED } from '../lambdas/core/domain-events/publisher';
import { required } from '../lambdas/core/required';
import { CALENDAR_DETAIL_TYPES, CALENDAR_EVENT_SOURCE } from '../lambdas/core/schedule/calendar-events';
import { SERVICES } from '../lambdas/core/telemetry';
import { UPSTREAM_CALL_WORST_CASE_MS } from '../lambdas/core/upstream/client';
import type { SchedulesEnvironment } from '../lambdas/schedules/environment';
import { CalendarEventBus } from './calendar-event-bus';
import { type FunctionSettings, PipelineFunction } from './function';
import { grantTableItems } from './grants';
import type { PipelineHttpApi } from './http-api';
import { acknowledge, executionsWildcardId, wildcardResourceId } from './nag';
import { encryptedQueue } from './secure-defaults';
import { grantApiKey, type UpstreamSettings, upstreamEnvironment } from './upstream-settings';

/** Errors worth another try: the service or Lambda was briefly unavailable or busy. */
export const TRANSIENT_LAUNCH_ERRORS = [
  'UpstreamError',
  'Lambda.ServiceException',
  'Lambda.AWSLambdaException',
  'Lambda.SdkClientException',
  'Lambda.TooManyRequestsException',
  // The launch is safe to repeat (it takes the schedule, then adopts its bot by key): a timeout or a
  // table error after POST bots finds the same bot on the retry instead of marking the schedule failed.
  'Sandbox.Timedout',
  'TimeoutError',
  'InternalServerError',
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  // The launch is recorded and its schedule.launched not yet published: the retry publishes it.
  DOMAIN_EVENTS_NOT_PUBLISHED,
];

/**
 * Refusals that pass once the service has room again: its POST throttle (429) and its
 * cap on bots in meetings at once. Not failures: retried with backoff for as long as
 * the launch lead leaves before the join time (a launch that late goes without
 * `join_at` and the bot joins at once).
 */
export const RETRY_LATER_LAUNCH_ERRORS = ['ConcurrencyLimitError', 'RateLimitedError'];
export const RETRY_LATER_BACKOFF = { firstSeconds: 30, rate: 2, maxSeconds: 120 } as const;

/** How many retry-later attempts fit in the launch lead: the sum of their longest waits stays within it. */
export function retryLaterAttempts(launchLeadSeconds: number): number {
  let attempts = 0;
  for (let total = 0; ; attempts++) {
    const wait = Math.min(
      RETRY_LATER_BACKOFF.maxSeconds,
      RETRY_LATER_BACKOFF.firstSeconds * RETRY_LATER_BACKOFF.rate ** attempts,
    );
    if (total + wait > launchLeadSeconds) return Math.max(1, attempts);
    total += wait;
  }
}

/** A calendar event older than this is set aside in the DLQ rather than delivered or retried again. */
const CALENDAR_EVENT_MAX_AGE = Duration.hours(2);

/** State names the local runner and tests refer to. */
export const LAUNCHER_STATES = {
  wait: 'WaitUntilLaunchTime',
  launch: 'LaunchBot',
  recordFailure: 'RecordLaunchFailure',
} as const;

export interface BotSchedulerProps extends UpstreamSettings {
  table: ITableV2;
  /** The stack's HTTP API, where the schedule routes go. */
  api: PipelineHttpApi;
  launchLeadSeconds: number;
  /** Concurrency reserved for (and capping) the launch function; a throttled launch is retried. */
  launchReservedConcurrency: number;
  /** Who may put calendar events on the calendar events bus (`calendarEventProducers`). */
  calendarEventProducers: readonly string[];
  functions: FunctionSettings;
}

export class BotScheduler extends Construct {
  readonly stateMachine: StateMachine;
  readonly launchFunction: PipelineFunction;
  readonly schedulesFunction: PipelineFunction;
  readonly calendarRule: Rule;
  /** The bus the calendar rule listens on; only the named producers may put events on it. */
  readonly calendarEventBus: EventBus;
  readonly calendarDeadLetterQueue: Queue;

  constructor(scope: Construct, id: string, props: BotSchedulerProps) {
    super(scope, id);

    this.launchFunction = new PipelineFunction(this, 'LaunchBotFunction', {
      entry: 'lambdas/launch-bot/handler.ts',
      description: 'Launches a scheduled bot with POST bots and records the outcome',
      serviceName: SERVICES.launchBot,
      // POST bots and, after a lost answer, the lookup by key, each at its worst, and the table writes.
      timeout: Duration.millis(2 * UPSTREAM_CALL_WORST_CASE_MS + 30_000),
      // One POST bots and two table writes: waiting on the network.
      memorySize: 256,
      settings: props.functions,
      reservedConcurrentExecutions: props.launchReservedConcurrency,
      failureHandling:
        'Invoked synchronously by the state machine, which retries and records a final failure on the schedule.',
      environment: {
        TABLE_NAME: props.table.tableName,
        ...upstreamEnvironment(props),
      },
    });
    // Takes and records its schedule (updates), puts the meeting item and its day listing the launch creates.
    grantTableItems(this.launchFunction, props.table, ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem']);
    // A cancel applied after the launch derives the meeting's outcome again from its state changes.
    grantTableItems(this.launchFunction, props.table, ['dynamodb:Query'], ['bot']);
    grantApiKey(this.launchFunction, props);

    const wait = new Wait(this, LAUNCHER_STATES.wait, { time: WaitTime.timestampPath('$.launchAt') });
    const launch = new LambdaInvoke(this, LAUNCHER_STATES.launch, {
      lambdaFunction: this.launchFunction,
      payload: TaskInput.fromObject({ action: 'launch', 'schedule.$': '$' }),
      payloadResponseOnly: true,
      retryOnServiceExceptions: false,
      resultPath: '$.launch',
    });
    launch.addRetry({
      errors: TRANSIENT_LAUNCH_ERRORS,
      interval: Duration.seconds(5),
      backoffRate: 2,
      maxAttempts: 6,
      jitterStrategy: JitterType.FULL,
    });
    launch.addRetry({
      errors: RETRY_LATER_LAUNCH_ERRORS,
      interval: Duration.seconds(RETRY_LATER_BACKOFF.firstSeconds),
      backoffRate: RETRY_LATER_BACKOFF.rate,
      maxDelay: Duration.seconds(RETRY_LATER_BACKOFF.maxSeconds),
      maxAttempts: retryLaterAttempts(props.launchLeadSeconds),
      jitterStrategy: JitterType.FULL,
    });
    const recordFailure = new LambdaInvoke(this, LAUNCHER_STATES.recordFailure, {
      lambdaFunction: this.launchFunction,
      payload: TaskInput.fromObject({ action: 'fail', 'schedule.$': '$', 'error.$': '$.error' }),
      payloadResponseOnly: true,
      resultPath: '$.failure',
    });
    // The launch function is capped (reserved concurrency): recording the failure must wait out a throttle too.
    recordFailure.addRetry({
      // And a schedule.failed not published: the failure is recorded, the retry publishes it.
      errors: ['Lambda.TooManyRequestsException', DOMAIN_EVENTS_NOT_PUBLISHED],
      interval: Duration.seconds(5),
      backoffRate: 2,
      maxAttempts: 6,
      jitterStrategy: JitterType.FULL,
    });
    launch.addCatch(
      recordFailure.next(
        new Fail(this, 'LaunchFailed', { error: 'LaunchFailed', cause: 'POST bots failed for good; see the schedule' }),
      ),
      {
        errors: ['States.ALL'],
        resultPath: '$.error',
      },
    );

    const logs = new LogGroup(this, 'LauncherLogs', {
      retention: props.functions.logRetention,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.stateMachine = new StateMachine(this, 'Launcher', {
      stateMachineType: StateMachineType.STANDARD,
      queryLanguage: QueryLanguage.JSON_PATH,
      definitionBody: DefinitionBody.fromChainable(wait.next(launch).next(new Succeed(this, 'Launched'))),
      // A Standard workflow lives at most a year; schedules further ahead are refused.
      timeout: Duration.days(365),
      tracingEnabled: props.functions.tracing === 'active',
      // Execution data holds meeting links with passcodes and error causes: log the events, not the data.
      logs: { destination: logs, level: LogLevel.ALL, includeExecutionData: false },
    });

    const environment: { [K in keyof SchedulesEnvironment]: string } = {
      TABLE_NAME: props.table.tableName,
      STATE_MACHINE_ARN: this.stateMachine.stateMachineArn,
      LAUNCH_LEAD_SECONDS: String(props.launchLeadSeconds),
      ...upstreamEnvironment(props),
    };
    this.schedulesFunction = new PipelineFunction(this, 'SchedulesFunction', {
      entry: 'lambdas/schedules/handler.ts',
      description: 'Schedule API and calendar events: create, move, cancel and read scheduled bots',
      serviceName: SERVICES.schedules,
      timeout: Duration.seconds(15),
      // One schedule's table writes and a Step Functions call; left unreserved (it is rare and bounded by IAM callers).
      memorySize: 256,
      settings: props.functions,
      environment,
      failureHandling:
        'Invoked synchronously by the HTTP API, or asynchronously by EventBridge: a calendar event it cannot deliver, or one the function still fails after its retries, lands in the calendar events DLQ.',
    });
    grantTableItems(this.schedulesFunction, props.table);
    // A cancelled launched bot: the meeting's outcome is derived again from its state changes.
    grantTableItems(this.schedulesFunction, props.table, ['dynamodb:Query'], ['bot']);
    // Moving or cancelling a launched bot patches or deletes it at the service.
    grantApiKey(this.schedulesFunction, props);
    this.stateMachine.grantStartExecution(this.schedulesFunction);
    // On this state machine's executions (arn:…:execution:<name>:*), built by CDK: the ARN is a token at synth time.
    this.stateMachine.grantExecution(this.schedulesFunction, 'states:StopExecution');
    acknowledge(
      required(this.schedulesFunction.role, 'the schedules function role'),
      executionsWildcardId(this.stateMachine),
      "StopExecution on this state machine's executions only (one per schedule version).",
    );
    if (props.functions.tracing !== 'active') {
      const reason =
        'X-Ray is off by configuration (`tracing`); the execution history and its logged events show each launch.';
      acknowledge(this.stateMachine, 'AwsSolutions-SF2', reason);
      acknowledge(this.stateMachine, 'Serverless-StepFunctionStateMachineXray', reason);
    }
    acknowledge(
      this.stateMachine.role,
      wildcardResourceId(this.launchFunction, ':*'),
      "Invoking the launch function's versions and aliases, as CDK grants for a Lambda task.",
    );
    acknowledge(
      this.stateMachine.role,
      'AwsSolutions-IAM5[Resource::*]',
      'CloudWatch Logs delivery for state machine logging (and X-Ray tracing, when on) support no resource-level permissions.',
    );

    props.api.addRoutes({
      path: '/schedules/{id}',
      methods: [HttpMethod.PUT, HttpMethod.GET, HttpMethod.DELETE],
      integration: new HttpLambdaIntegration('SchedulesIntegration', this.schedulesFunction),
      authorizer: new HttpIamAuthorizer(),
    });

    // Calendar events are kept, not lost, whichever side fails: EventBridge delivering one after its retries
    // (the rule target's DLQ: the event itself), or the function failing it after Lambda's own retries of
    // an accepted asynchronous invocation (its on-failure destination: the event under requestPayload).
    this.calendarDeadLetterQueue = encryptedQueue(this, 'CalendarEventsDeadLetterQueue');
    this.schedulesFunction.configureAsyncInvoke({
      onFailure: new SqsDestination(this.calendarDeadLetterQueue),
      retryAttempts: 2,
      maxEventAge: CALENDAR_EVENT_MAX_AGE,
    });
    acknowledge(
      this.calendarDeadLetterQueue,
      'Serverless-SQSRedrivePolicy',
      'This is the dead-letter queue of the calendar rule and of the schedules function; its events are replayed by hand (runbook: docs/operating.md).',
    );
    // cdk-nag recognizes DLQs by a queue's redrive policy; an EventBridge target's DLQ has none.
    acknowledge(
      this.calendarDeadLetterQueue,
      'AwsSolutions-SQS3',
      "This queue is the calendar rule target's dead-letter queue and the schedules function's on-failure destination.",
    );
    this.calendarEventBus = new CalendarEventBus(this, 'CalendarEventBus', {
      producers: props.calendarEventProducers,
    }).bus;
    this.calendarRule = new Rule(this, 'CalendarEvents', {
      description: 'Calendar integrations schedule, move and cancel bots',
      eventBus: this.calendarEventBus,
      eventPattern: {
        source: [CALENDAR_EVENT_SOURCE],
        detailType: [CALENDAR_DETAIL_TYPES.upserted, CALENDAR_DETAIL_TYPES.cancelled],
      },
      targets: [
        new LambdaFunction(this.schedulesFunction, {
          retryAttempts: 8,
          maxEventAge: CALENDAR_EVENT_MAX_AGE,
          deadLetterQueue: this.calendarDeadLetterQueue,
        }),
      ],
    });
  }
}
