/**
 * The calendar push construct, synthesized in a small stack of its own: three open POST
 * routes to one function that reads the push key and no other secret (never the company
 * credentials), sends to the user-sync queue and touches only its route and channel items;
 * no schedule of its own. The scheduled sync is given the push key and the push settings
 * (grantRenewal): it opens and renews the channels.
 */
import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { Queue } from 'aws-cdk-lib/aws-sqs';
import { beforeAll, describe, expect, it } from 'vitest';
import { PUSH_ROUTES } from '../../lambdas/core/calendar/company/push/push-settings';
import { PARTITIONS } from '../../lambdas/core/store/table-layout';
import { SERVICES } from '../../lambdas/core/telemetry';
import { CalendarPush } from '../../lib/calendar-push';
import { parseConfig } from '../../lib/config';
import { functionSettings, PipelineFunction } from '../../lib/function';
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
  const push = new CalendarPush(stack, 'CalendarPush', {
    table,
    api,
    userSyncQueue: new Queue(stack, 'UserSyncQueue'),
    serviceName: SERVICES.calendarPush,
    maxBodyBytes: 65_536,
    renewMarginMinutes: 180,
    secretCacheSeconds: 300,
    functions,
  });
  // The scheduled sync as the stack builds it, reduced to what grantRenewal adds.
  const sync = new PipelineFunction(stack, 'Sync', {
    entry: 'lambdas/calendars/sync-handler.ts',
    description: 'stand-in for the scheduled calendar sync',
    serviceName: SERVICES.calendarSync,
    environment: {},
    timeout: Duration.minutes(4),
    memorySize: 512,
    settings: functions,
    failureHandling: 'test stand-in',
  });
  push.grantRenewal(sync);
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
    const integrations = Object.values(template.findResources('AWS::ApiGatewayV2::Integration'));
    expect(integrations).toHaveLength(1);
    expect(JSON.stringify(integrations[0]?.Properties.IntegrationUri)).toContain('CalendarPushFunction');
  });

  it('generates the push key and gives its name and the caps to the push function, and the renewal settings to the sync', () => {
    template.hasResourceProperties('AWS::SecretsManager::Secret', {
      GenerateSecretString: { PasswordLength: 64, ExcludePunctuation: true },
    });
    const variables = (service: string) =>
      Object.values(
        template.findResources('AWS::Lambda::Function', {
          Properties: { Environment: { Variables: { POWERTOOLS_SERVICE_NAME: service } } },
        }),
      )[0]?.Properties.Environment.Variables as Record<string, unknown>;
    const push = variables(SERVICES.calendarPush);
    expect(push).toMatchObject({ PUSH_MAX_BODY_BYTES: '65536', PUSH_RENEW_MARGIN_MINUTES: '180' });
    expect(Object.keys(push)).toEqual(expect.arrayContaining(['PUSH_KEY_SECRET_ID', 'USER_SYNC_QUEUE_URL']));
    // No provider, so no provider endpoint nor the routes' public address.
    for (const name of ['PUBLIC_BASE_URL', 'GOOGLE_CALENDAR_API', 'MICROSOFT_GRAPH'])
      expect(Object.keys(push)).not.toContain(name);
    const sync = variables(SERVICES.calendarSync);
    expect(sync).toMatchObject({ PUSH_RENEW_MARGIN_MINUTES: '180' });
    expect(Object.keys(sync)).toEqual(expect.arrayContaining(['PUSH_KEY_SECRET_ID', 'PUBLIC_BASE_URL']));
    expect(JSON.stringify(sync.PUSH_KEY_SECRET_ID)).toBe(JSON.stringify(push.PUSH_KEY_SECRET_ID));
  });

  it('has no schedule of its own: the scheduled sync renews the channels', () => {
    template.resourceCountIs('AWS::Events::Rule', 0);
  });

  it('reads the push key and no other secret: never the company credentials', () => {
    const [keyId] = Object.keys(template.findResources('AWS::SecretsManager::Secret'));
    for (const service of [SERVICES.calendarPush, SERVICES.calendarSync]) {
      const reads = functionStatements(template, service).filter((s) =>
        actionsOf([s]).includes('secretsmanager:GetSecretValue'),
      );
      expect({ service, resources: reads.map((s) => s.Resource) }).toEqual({ service, resources: [{ Ref: keyId }] });
    }
  });

  it("may send to the user-sync queue and touch only its channels' route items (get, update)", () => {
    const statements = functionStatements(template, SERVICES.calendarPush);
    const actions = actionsOf(statements);
    expect(actions).toEqual(expect.arrayContaining(['sqs:SendMessage']));
    expect(actions).not.toContain('dynamodb:Scan');
    const table = statements.filter((s) => actionsOf([s]).some((a) => a.startsWith('dynamodb:')));
    expect(table).toHaveLength(1);
    expect((table[0] as { Condition?: unknown }).Condition).toEqual({
      'ForAllValues:StringLike': {
        'dynamodb:LeadingKeys': [PARTITIONS.pushRoute],
      },
    });
    expect(actionsOf(table).sort()).toEqual(['dynamodb:GetItem', 'dynamodb:UpdateItem']);
  });

  it('leaves no cdk-nag finding unacknowledged in the construct (the test stack own queue aside)', () => {
    const mine = nagFindings.split('\n').filter((line) => line.includes('/CalendarPush/'));
    expect(mine).toEqual([]);
  });
});
