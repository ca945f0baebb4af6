/**
 * Calendar feeds: the calendar routes on the stack's HTTP API (IAM-authorized),
 * a function that syncs every calendar on a schedule, and the KMS key that seals
 * each feed address (a credential). Company calendars (Google Workspace, Microsoft
 * 365) fan out: the scheduled run enqueues each user on the user-sync queue, and a
 * consumer with bounded concurrency syncs them one user per message. The functions
 * share one core (lambdas/core/calendar) and make schedules through the schedule core.
 *
 * Company credentials stay in Secrets Manager under one name prefix; only the two
 * sync functions may read them (the API function checks names, never values).
 *
 * Why KMS and not a secret per calendar: one key serves every calendar at a flat
 * monthly cost, a calendar is one table item (no secret to create, rotate or
 * delete with a recovery window), and the encryption context (the calendar id)
 * keeps a sealed address from opening under another calendar.
 */
import { ArnFormat, Duration, RemovalPolicy, Stack, Token } from 'aws-cdk-lib';
import type { HttpMethod } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpIamAuthorizer } from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import type { StateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import type { CalendarsEnvironment, CompanySyncEnvironment } from '../lambdas/calendars/environment';
import { CALENDAR_API_ROUTES } from '../lambdas/core/calendar/calendar-api';
import type { ProviderEndpoints } from '../lambdas/core/calendar/company/provider-contract';
import type { ScheduleLimits } from '../lambdas/core/calendar/schedule-budget';
import { QUEUE_SETTINGS } from '../lambdas/core/queue/queue-settings';
import { required } from '../lambdas/core/required';
import { SERVICES } from '../lambdas/core/telemetry';
import { ICS_URL_CONTEXT_PURPOSE } from '../lambdas/shared/kms-url-sealer';
import type { EnvironmentBesidesEvents } from './domain-events';
import { type FunctionSettings, PipelineFunction } from './function';
import { grantTableItems } from './grants';
import type { PipelineHttpApi } from './http-api';
import { acknowledge, executionsWildcardId } from './nag';
import { encryptedQueue } from './secure-defaults';
import { grantApiKey, type UpstreamSettings, upstreamEnvironment } from './upstream-settings';

export interface CalendarSyncProps extends UpstreamSettings {
  table: ITableV2;
  api: PipelineHttpApi;
  /** The launcher the schedules of calendars start and stop. */
  stateMachine: StateMachine;
  launchLeadSeconds: number;
  /** How often every calendar is synced (`calendarSyncEveryMinutes`). */
  everyMinutes: number;
  /** New schedules per sync and per calendar per day (`calendarMaxNewSchedulesPerSync`, `…PerDay`). */
  scheduleLimits: ScheduleLimits;
  functions: FunctionSettings;
  /** Secrets Manager names company credentials live under (`calendarCredentialsSecretPrefix`). */
  credentialsSecretPrefix: string;
  /** Where the providers are (`googleCalendarApiUrl` … `microsoftLoginUrl`). */
  providerEndpoints: ProviderEndpoints;
  /** Most user-sync instances at once (`calendarUserSyncConcurrency`): the bound on calls to the providers. */
  userSyncConcurrency: number;
}

/**
 * One user-sync invocation: a batch of USER_SYNC_BATCH_SIZE users, one after the other. A user's sync
 * is a listing (one page for 20 events, 50 pages at most) and its schedule writes: seconds, a minute
 * for the largest calendar; the queue's visibility timeout is six times this.
 */
export const USER_SYNC_TIMEOUT = Duration.minutes(5);
export const USER_SYNC_BATCH_SIZE = 5;

/** The ARN pattern of the secrets under `prefix` in this stack's account and region. */
export function credentialsSecretsArn(scope: Construct, prefix: string): string {
  return Stack.of(scope).formatArn({
    service: 'secretsmanager',
    resource: 'secret',
    resourceName: `${prefix}*`,
    arnFormat: ArnFormat.COLON_RESOURCE_NAME,
  });
}

export class CalendarSync extends Construct {
  readonly apiFunction: PipelineFunction;
  readonly syncFunction: PipelineFunction;
  /** Syncs one company calendar user per message of `userSyncQueue`. */
  readonly userSyncFunction: PipelineFunction;
  /** The fan-out queue of user syncs: the scheduled run and push notifications send to it. */
  readonly userSyncQueue: Queue;
  readonly userSyncDeadLetterQueue: Queue;
  readonly key: Key;
  readonly rule: Rule;

  constructor(scope: Construct, id: string, props: CalendarSyncProps) {
    super(scope, id);
    this.key = new Key(this, 'FeedAddressKey', {
      description: 'Seals calendar feed addresses (encryption context: calendar id)',
      enableKeyRotation: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    this.userSyncDeadLetterQueue = encryptedQueue(this, 'UserSyncDeadLetterQueue');
    this.userSyncQueue = encryptedQueue(this, 'UserSyncQueue', {
      visibilityTimeout: Duration.seconds(USER_SYNC_TIMEOUT.toSeconds() * 6),
      deadLetterQueue: { queue: this.userSyncDeadLetterQueue, maxReceiveCount: QUEUE_SETTINGS.maxReceiveCount },
    });
    const environment: { [K in keyof CalendarsEnvironment]: string } = {
      TABLE_NAME: props.table.tableName,
      STATE_MACHINE_ARN: props.stateMachine.stateMachineArn,
      LAUNCH_LEAD_SECONDS: String(props.launchLeadSeconds),
      CALENDAR_KEY_ARN: this.key.keyArn,
      MAX_NEW_SCHEDULES_PER_SYNC: String(props.scheduleLimits.perSync),
      MAX_NEW_SCHEDULES_PER_DAY: String(props.scheduleLimits.perDay),
      CALENDAR_CREDENTIALS_SECRET_PREFIX: props.credentialsSecretPrefix,
      USER_SYNC_QUEUE_URL: this.userSyncQueue.queueUrl,
      ...upstreamEnvironment(props),
    };
    acknowledge(
      this.userSyncDeadLetterQueue,
      'Serverless-SQSRedrivePolicy',
      'This is the dead-letter queue; a user sync is asked for again by the next scheduled run whatever it holds, and its messages say which calendar failed.',
    );
    // EVENT_BUS_NAME comes with the grant to publish (domain-events.ts).
    const endpoints = props.providerEndpoints;
    const syncEnvironment: EnvironmentBesidesEvents<CompanySyncEnvironment> = {
      ...environment,
      GOOGLE_CALENDAR_API_URL: endpoints.googleCalendarApi,
      GOOGLE_DIRECTORY_API_URL: endpoints.googleDirectoryApi,
      GOOGLE_TOKEN_URL: endpoints.googleTokenUrl,
      MICROSOFT_GRAPH_URL: endpoints.microsoftGraph,
      MICROSOFT_LOGIN_URL: endpoints.microsoftLogin,
    };
    this.apiFunction = new PipelineFunction(this, 'CalendarsFunction', {
      entry: 'lambdas/calendars/handler.ts',
      description: 'Calendar routes: register, preview, sync and list the schedules of ICS feeds',
      serviceName: SERVICES.calendars,
      // Inside the HTTP API's 30 s: a feed fetch (10 s at most) and a calendar's schedule writes.
      timeout: Duration.seconds(29),
      // Parsing and expanding a feed of a few MB.
      memorySize: 512,
      settings: props.functions,
      environment,
      failureHandling: 'Invoked synchronously by the HTTP API: a failure is a 500, logged with its cause.',
    });
    this.syncFunction = new PipelineFunction(this, 'CalendarSyncFunction', {
      entry: 'lambdas/calendars/sync-handler.ts',
      description: 'Syncs every calendar feed into schedules, and enqueues every company calendar user',
      serviceName: SERVICES.calendarSync,
      // Stops starting calendars after 3 minutes (SYNC_RUN_BUDGET_MS); one calendar's sync may finish after.
      timeout: Duration.minutes(4),
      memorySize: 512,
      settings: props.functions,
      environment: syncEnvironment,
      failureHandling:
        'Invoked by a schedule; each calendar is synced on its own and a failed run is simply the next run, the failure logged and counted (CalendarSyncFailed).',
    });
    this.userSyncFunction = new PipelineFunction(this, 'CalendarUserSyncFunction', {
      entry: 'lambdas/calendars/user-sync-handler.ts',
      description: "Syncs one company calendar user's changes (Google Workspace, Microsoft 365) into schedules",
      serviceName: SERVICES.calendarUserSync,
      timeout: USER_SYNC_TIMEOUT,
      // Provider answers of up to 8 MB (PROVIDER_LIMITS.responseBytes) parsed, 2,000 items kept.
      memorySize: 512,
      settings: props.functions,
      environment: syncEnvironment,
      failureHandling: `Driven by the user-sync queue: a failed user is redelivered and moves to the user-sync DLQ after ${QUEUE_SETTINGS.maxReceiveCount} receives; the next scheduled run asks for it again.`,
    });
    acknowledge(
      this.userSyncFunction,
      'Serverless-LambdaEventSourceMappingDestination',
      "On-failure destinations apply to stream sources; for SQS the queue's redrive policy moves failed records to its DLQ.",
    );
    // No batching window: a push notification's user is synced as soon as it is queued.
    this.userSyncFunction.addEventSource(
      new SqsEventSource(this.userSyncQueue, {
        batchSize: USER_SYNC_BATCH_SIZE,
        reportBatchItemFailures: true,
        maxConcurrency: props.userSyncConcurrency,
      }),
    );
    // The run queues every company user; POST /calendars/{id}/sync queues one source's users; the
    // consumer sends back, delayed, a request that found its user's sync running.
    for (const fn of [this.syncFunction, this.apiFunction, this.userSyncFunction])
      this.userSyncQueue.grantSendMessages(fn);

    // Calendar items, claims and schedules; a moved launched bot also updates its meeting item.
    const tableActions = [
      'dynamodb:GetItem',
      'dynamodb:PutItem',
      'dynamodb:UpdateItem',
      'dynamodb:DeleteItem',
      'dynamodb:Query',
    ];
    // GET /calendars/{id} reads its recent meetings' schedules and meeting items in batches (recent-outcomes.ts).
    grantTableItems(this.apiFunction, props.table, ['dynamodb:BatchGetItem'], ['schedule', 'bot']);
    for (const fn of [this.apiFunction, this.syncFunction, this.userSyncFunction]) {
      grantTableItems(fn, props.table, tableActions);
      // Only under this purpose: the key opens nothing else, even for these roles. Company users have no feed address.
      if (fn !== this.userSyncFunction)
        fn.addToRolePolicy(
          new PolicyStatement({
            actions: fn === this.apiFunction ? ['kms:Encrypt', 'kms:Decrypt'] : ['kms:Decrypt'],
            resources: [this.key.keyArn],
            conditions: { StringEquals: { 'kms:EncryptionContext:purpose': ICS_URL_CONTEXT_PURPOSE } },
          }),
        );
      grantApiKey(fn, props);
      props.stateMachine.grantStartExecution(fn);
      props.stateMachine.grantExecution(fn, 'states:StopExecution');
      acknowledge(
        required(fn.role, 'the calendar function role'),
        executionsWildcardId(props.stateMachine),
        "StopExecution on the launcher's executions only (one per schedule version).",
      );
    }

    this.grantCredentials(props.credentialsSecretPrefix);

    const integration = new HttpLambdaIntegration('CalendarsIntegration', this.apiFunction);
    const authorizer = new HttpIamAuthorizer();
    for (const routeKey of Object.values(CALENDAR_API_ROUTES)) {
      const [method, path] = routeKey.split(' ') as [string, string];
      props.api.addRoutes({ path, methods: [method as HttpMethod], integration, authorizer });
    }

    this.rule = new Rule(this, 'Schedule', {
      description: 'Syncs every calendar feed',
      schedule: Schedule.rate(Duration.minutes(props.everyMinutes)),
      targets: [new LambdaFunction(this.syncFunction, { retryAttempts: 0 })],
    });
    acknowledge(
      this.rule,
      'Serverless-EventBusDLQ',
      'A missed run carries nothing to keep: the next scheduled run syncs every calendar again.',
    );
  }

  /**
   * GetSecretValue on the secrets under the prefix, for the two sync functions only: a
   * source names its secret, and IAM holds every name to the prefix whatever a caller
   * of the calendar API wrote. Secrets encrypted with the account's default key need no
   * more; one under a customer managed key needs kms:Decrypt granted on that key too.
   */
  private grantCredentials(prefix: string): void {
    const arn = credentialsSecretsArn(this, prefix);
    const stack = Stack.of(this);
    const shown = (value: string, pseudo: string) => (Token.isUnresolved(value) ? `<${pseudo}>` : value);
    const nagArn = `arn:${shown(stack.partition, 'AWS::Partition')}:secretsmanager:${shown(stack.region, 'AWS::Region')}:${shown(stack.account, 'AWS::AccountId')}:secret:${prefix}*`;
    for (const fn of [this.syncFunction, this.userSyncFunction]) {
      fn.addToRolePolicy(new PolicyStatement({ actions: ['secretsmanager:GetSecretValue'], resources: [arn] }));
      acknowledge(
        required(fn.role, 'the calendar sync function role'),
        `AwsSolutions-IAM5[Resource::${nagArn}]`,
        'Company calendar credentials: each source names its own secret, so the grant is every secret under the configured prefix (calendarCredentialsSecretPrefix), read-only, and nothing else.',
      );
    }
  }
}
