/**
 * The calendar push construct, synthesized in a small stack of its own (the main stack
 * does not wire it yet): three open POST routes to one function, a generated push key
 * only that function reads, sends to the user-sync queue, table actions held to the
 * push channels' partitions, and the hourly renewal run.
 */
import { RemovalPolicy, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { Queue } from 'aws-cdk-lib/aws-sqs';
import { beforeAll, describe, expect, it } from 'vitest';
import { PUSH_ROUTES } from '../../lambdas/core/calendar/company/push/push-settings';
import { PARTITIONS } from '../../lambdas/core/store/table-layout';
import { SERVICES } from '../../lambdas/core/telemetry';
import { CalendarPush } from '../../lib/calendar-push';
import { parseConfig } from '../../lib/config';
import { functionSettings } from '../../lib/function';
import { PipelineHttpApi } from '../../lib/http-api';
import { MeetingsTable } from '../../lib/meetings-table';
import { addNagChecks } from '../../lib/nag';
import { actionsOf, functionStatements } from './iam';
import { TEST_CONFIG_INPUT, testApp } from './synth';

let template: Template;
let nagFindings = '';

beforeAll(() => {
  const app = testApp();
  const stack = new Stack(app, 'PushTest', { env: { account: '111111111111', region: 'eu-west-1' } });
  const functions = functionSettings(parseConfig(TEST_CONFIG_INPUT));
  const { table } = new MeetingsTable(stack, 'Table', { removalPolicy: RemovalPolicy.DESTROY });
  const api = new PipelineHttpApi(stack, 'Api', { throttle: { rateLimit: 50, burstLimit: 100 }, functions });
  new CalendarPush(stack, 'CalendarPush', {
    table,
    api,
    userSyncQueue: new Queue(stack, 'UserSyncQueue'),
    serviceName: SERVICES.calendarSync,
    credentialsSecretsArn: 'arn:aws:secretsmanager:eu-west-1:111111111111:secret:calendars/*',
    endpoints: {
      googleCalendarApi: 'https://www.googleapis.com/calendar/v3',
      microsoftGraph: 'https://graph.microsoft.com/v1.0',
    },
    maxBodyBytes: 65_536,
    renewMarginMinutes: 180,
    renewEveryMinutes: 60,
    secretCacheSeconds: 300,
    functions,
  });
  template = Template.fromStack(stack);
  addNagChecks(app);
  try {
    app.synth({ force: true });
  } catch (error) {
    nagFindings = String(error);
  }
}, 300_000);

describe('calendar push', () => {
  it('routes the three notification paths, unauthenticated, to the push function', () => {
    const routes = Object.values(template.findResources('AWS::ApiGatewayV2::Route')).map((route) => [
      route.Properties.RouteKey,
      route.Properties.AuthorizationType,
    ]);
    expect(routes.sort()).toEqual(
      Object.values(PUSH_ROUTES)
        .map((path) => [`POST ${path}`, 'NONE'])
        .sort(),
    );
    template.resourceCountIs('AWS::Lambda::Function', 1);
  });

  it('generates the push key and gives its name, the API base and the caps to the function', () => {
    template.hasResourceProperties('AWS::SecretsManager::Secret', {
      GenerateSecretString: { PasswordLength: 64, ExcludePunctuation: true },
    });
    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: {
        Variables: Match.objectLike({
          PUSH_MAX_BODY_BYTES: '65536',
          PUSH_RENEW_MARGIN_MINUTES: '180',
          PUBLIC_BASE_URL: Match.anyValue(),
          PUSH_KEY_SECRET_ID: Match.anyValue(),
          USER_SYNC_QUEUE_URL: Match.anyValue(),
        }),
      },
    });
  });

  it('runs the renewal every hour', () => {
    template.hasResourceProperties('AWS::Events::Rule', { ScheduleExpression: 'rate(1 hour)' });
  });

  it("may send to the user-sync queue, read its key and the credentials prefix, and touch only its partitions' items", () => {
    const statements = functionStatements(template, SERVICES.calendarSync);
    const actions = actionsOf(statements);
    expect(actions).toEqual(expect.arrayContaining(['sqs:SendMessage', 'secretsmanager:GetSecretValue']));
    expect(actions).not.toContain('dynamodb:Scan');
    const table = statements.filter((s) => actionsOf([s]).some((a) => a.startsWith('dynamodb:')));
    expect(table).toHaveLength(1);
    expect((table[0] as { Condition?: unknown }).Condition).toEqual({
      'ForAllValues:StringLike': {
        'dynamodb:LeadingKeys': [PARTITIONS.calendars, PARTITIONS.calendar, PARTITIONS.pushRoute],
      },
    });
    expect(actionsOf(table).sort()).toEqual([
      'dynamodb:DeleteItem',
      'dynamodb:GetItem',
      'dynamodb:PutItem',
      'dynamodb:Query',
    ]);
  });

  it('leaves no cdk-nag finding unacknowledged in the construct (the test stack own queue aside)', () => {
    const mine = nagFindings.split('\n').filter((line) => line.includes('/CalendarPush/'));
    expect(mine).toEqual([]);
  });
});
