/**
 * Calendar feeds: the calendar routes on the stack's HTTP API (IAM-authorized),
 * a function that syncs every calendar on a schedule, and the KMS key that seals
 * each feed address (a credential). Both functions share one core
 * (lambdas/core/calendar) and make schedules through the schedule core.
 *
 * Why KMS and not a secret per calendar: one key serves every calendar at a flat
 * monthly cost, a calendar is one table item (no secret to create, rotate or
 * delete with a recovery window), and the encryption context (the calendar id)
 * keeps a sealed address from opening under another calendar.
 */
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import type { HttpMethod } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpIamAuthorizer } from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import type { StateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import type { CalendarsEnvironment } from '../lambdas/calendars/environment';
import { CALENDAR_API_ROUTES } from '../lambdas/core/calendar/calendar-api';
import type { ScheduleLimits } from '../lambdas/core/calendar/schedule-budget';
import { required } from '../lambdas/core/required';
import { SERVICES } from '../lambdas/core/telemetry';
import { ICS_URL_CONTEXT_PURPOSE } from '../lambdas/shared/kms-url-sealer';
import { type FunctionSettings, PipelineFunction } from './function';
import { grantTableItems } from './grants';
import type { PipelineHttpApi } from './http-api';
import { acknowledge, executionsWildcardId } from './nag';
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
}

export class CalendarSync extends Construct {
  readonly apiFunction: PipelineFunction;
  readonly syncFunction: PipelineFunction;
  readonly key: Key;
  readonly rule: Rule;

  constructor(scope: Construct, id: string, props: CalendarSyncProps) {
    super(scope, id);
    this.key = new Key(this, 'FeedAddressKey', {
      description: 'Seals calendar feed addresses (encryption context: calendar id)',
      enableKeyRotation: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    const environment: { [K in keyof CalendarsEnvironment]: string } = {
      TABLE_NAME: props.table.tableName,
      STATE_MACHINE_ARN: props.stateMachine.stateMachineArn,
      LAUNCH_LEAD_SECONDS: String(props.launchLeadSeconds),
      CALENDAR_KEY_ARN: this.key.keyArn,
      MAX_NEW_SCHEDULES_PER_SYNC: String(props.scheduleLimits.perSync),
      MAX_NEW_SCHEDULES_PER_DAY: String(props.scheduleLimits.perDay),
      ...upstreamEnvironment(props),
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
      description: 'Syncs every calendar feed into schedules',
      serviceName: SERVICES.calendarSync,
      // Stops starting calendars after 3 minutes (SYNC_RUN_BUDGET_MS); one calendar's sync may finish after.
      timeout: Duration.minutes(4),
      memorySize: 512,
      settings: props.functions,
      environment,
      failureHandling:
        'Invoked by a schedule; each calendar is synced on its own and a failed run is simply the next run, the failure logged and counted (CalendarSyncFailed).',
    });

    // Calendar items, claims and schedules; a moved launched bot also updates its meeting item.
    const tableActions = [
      'dynamodb:GetItem',
      'dynamodb:PutItem',
      'dynamodb:UpdateItem',
      'dynamodb:DeleteItem',
      'dynamodb:Query',
    ];
    for (const fn of [this.apiFunction, this.syncFunction]) {
      grantTableItems(fn, props.table, tableActions);
      // Only under this purpose: the key opens nothing else, even for these roles.
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
}
