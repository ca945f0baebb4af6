import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { CALENDAR_API_ROUTES } from '../../lambdas/core/calendar/calendar-api';
import { DEFAULT_PROVIDER_ENDPOINTS } from '../../lambdas/core/calendar/company/provider-contract';
import { QUEUE_SETTINGS } from '../../lambdas/core/queue/queue-settings';
import { SERVICES } from '../../lambdas/core/telemetry';
import { ICS_URL_CONTEXT_PURPOSE } from '../../lambdas/shared/kms-url-sealer';
import { USER_SYNC_BATCH_SIZE, USER_SYNC_TIMEOUT } from '../../lib/calendar-sync';
import { DEFAULT_CALENDAR_USER_SYNC_CONCURRENCY } from '../../lib/config';
import { actionsOf, functionStatements, type Statement } from './iam';
import { CHANGED_SETTINGS, sharedTemplate } from './synth';

let template: Template;
/** The same stack with every company calendar setting (and others) changed from its default. */
let custom: Template;
beforeAll(() => {
  template = sharedTemplate();
  custom = sharedTemplate(CHANGED_SETTINGS);
}, 300_000);

type Resource = { Type: string; Properties: Record<string, unknown> };
const resources = (from: Template = template) => Object.values(from.toJSON().Resources as Record<string, Resource>);
const kmsStatements = (service: string) =>
  functionStatements(template, service).filter((s) => actionsOf([s]).some((a) => a.startsWith('kms:')));

describe('calendar feeds', () => {
  it('puts every calendar route on the HTTP API behind IAM', () => {
    const routes = resources()
      .filter((r) => r.Type === 'AWS::ApiGatewayV2::Route')
      .map((r) => r.Properties as { RouteKey: string; AuthorizationType: string });
    for (const routeKey of Object.values(CALENDAR_API_ROUTES))
      expect(routes.find((r) => r.RouteKey === routeKey)).toMatchObject({ AuthorizationType: 'AWS_IAM' });
  });

  it('syncs on the configured schedule', () => {
    const rules = resources(custom).filter(
      (r) => r.Type === 'AWS::Events::Rule' && r.Properties.Description === 'Syncs every calendar feed',
    );
    expect(rules.map((r) => r.Properties.ScheduleExpression)).toEqual(['rate(10 minutes)']);
  });

  it('seals feed addresses with a rotated key, usable only under its encryption context', () => {
    const keys = resources().filter((r) => r.Type === 'AWS::KMS::Key');
    expect(keys.some((k) => k.Properties.EnableKeyRotation === true)).toBe(true);
    const api = kmsStatements(SERVICES.calendars);
    const sync = kmsStatements(SERVICES.calendarSync);
    expect(actionsOf(api)).toEqual(['kms:Decrypt', 'kms:Encrypt']);
    expect(actionsOf(sync)).toEqual(['kms:Decrypt']);
    for (const statement of [...api, ...sync] as Array<Statement & { Condition?: unknown }>)
      expect(statement.Condition).toEqual({
        StringEquals: { 'kms:EncryptionContext:purpose': ICS_URL_CONTEXT_PURPOSE },
      });
    // No other function may use the key.
    for (const service of [SERVICES.schedules, SERVICES.readApi, SERVICES.launchBot])
      expect(kmsStatements(service)).toEqual([]);
  });

  it('gives the calendar functions table items and launcher executions, no wildcard actions', () => {
    for (const service of [SERVICES.calendars, SERVICES.calendarSync]) {
      const actions = actionsOf(functionStatements(template, service));
      expect(actions).toEqual(
        expect.arrayContaining(['dynamodb:Query', 'states:StartExecution', 'states:StopExecution']),
      );
      expect(actions.filter((a) => a.endsWith('*'))).toEqual([]);
    }
  });
});

type Fn = { Properties: { Environment: { Variables: Record<string, unknown> }; Timeout: number } };
const functionOf = (t: Template, service: string): [string, Fn] => {
  const found = Object.entries(
    t.findResources('AWS::Lambda::Function', {
      Properties: { Environment: { Variables: { POWERTOOLS_SERVICE_NAME: service } } },
    }),
  );
  expect(found).toHaveLength(1);
  return found[0] as [string, Fn];
};
const environmentOf = (t: Template, service: string) => functionOf(t, service)[1].Properties.Environment.Variables;
const every = (t: Template) =>
  Object.values(t.findResources('AWS::Lambda::Function'))
    .map((fn) => fn.Properties.Environment?.Variables?.POWERTOOLS_SERVICE_NAME as string | undefined)
    .filter((service): service is string => service !== undefined);
const secretStatements = (t: Template, service: string) =>
  functionStatements(t, service).filter((s) => actionsOf([s]).some((a) => a.startsWith('secretsmanager:')));
/** The ARN pattern a statement names, joined as CloudFormation would (pseudo parameters by name). */
const arnText = (resource: unknown): string =>
  JSON.stringify(resource)
    .replace(/\{"Ref":"AWS::(\w+)"\}/g, '<$1>')
    .replace(/[{}[\]"]|Fn::Join|,/g, '');
const credentialGrants = (t: Template, service: string, prefix: string) =>
  secretStatements(t, service).filter((s) => arnText(s.Resource).includes(`:secret:${prefix}`));

describe('company calendars: credentials', () => {
  const syncers = [SERVICES.calendarSync, SERVICES.calendarUserSync];

  it.each([
    ['the default prefix', () => template, 'meeting-pipeline/calendars/'],
    ['a configured prefix', () => custom, 'acme/calendar-keys/'],
  ])('lets the two sync functions read the secrets under %s, read-only, and no other function', (_, t, prefix) => {
    for (const service of syncers) {
      const grants = credentialGrants(t(), service, prefix);
      expect(grants.map((s) => [s.Effect, [s.Action].flat()])).toEqual([['Allow', ['secretsmanager:GetSecretValue']]]);
      // The account's own secrets in this region, under the prefix and nothing wider.
      expect(arnText(grants[0]?.Resource)).toBe(`arn:aws:secretsmanager:eu-west-1:111111111111:secret:${prefix}*`);
    }
    for (const service of every(t()).filter((s) => !syncers.includes(s as (typeof syncers)[number])))
      expect(credentialGrants(t(), service, prefix), service).toEqual([]);
  });

  it('gives the sync functions no other secret than the API key, and the API function no secret grant beyond it', () => {
    const apiKey = (s: Statement) => arnText(s.Resource).includes('meeting-pipeline/api-key');
    for (const service of [...syncers, SERVICES.calendars]) {
      const others = secretStatements(template, service).filter(
        (s) => !apiKey(s) && !arnText(s.Resource).includes(':secret:meeting-pipeline/calendars/'),
      );
      expect(others, service).toEqual([]);
    }
    expect(secretStatements(template, SERVICES.calendars).every(apiKey)).toBe(true);
  });

  it('tells the API function the prefix (it refuses other names) but not where the providers are', () => {
    const api = environmentOf(template, SERVICES.calendars);
    expect(api.CALENDAR_CREDENTIALS_SECRET_PREFIX).toBe('meeting-pipeline/calendars/');
    expect(Object.keys(api).filter((k) => /^(GOOGLE|MICROSOFT)_/.test(k))).toEqual([]);
    expect(environmentOf(custom, SERVICES.calendars).CALENDAR_CREDENTIALS_SECRET_PREFIX).toBe('acme/calendar-keys/');
  });

  it('gives the sync functions the provider endpoints as configured, the queue and the domain events bus', () => {
    for (const service of syncers) {
      expect(environmentOf(template, service)).toMatchObject({
        GOOGLE_CALENDAR_API_URL: DEFAULT_PROVIDER_ENDPOINTS.googleCalendarApi,
        GOOGLE_DIRECTORY_API_URL: DEFAULT_PROVIDER_ENDPOINTS.googleDirectoryApi,
        GOOGLE_TOKEN_URL: DEFAULT_PROVIDER_ENDPOINTS.googleTokenUrl,
        MICROSOFT_GRAPH_URL: DEFAULT_PROVIDER_ENDPOINTS.microsoftGraph,
        MICROSOFT_LOGIN_URL: DEFAULT_PROVIDER_ENDPOINTS.microsoftLogin,
        USER_SYNC_QUEUE_URL: { Ref: expect.stringMatching(/UserSyncQueue/) },
        EVENT_BUS_NAME: expect.anything(),
        CALENDAR_CREDENTIALS_SECRET_PREFIX: 'meeting-pipeline/calendars/',
      });
      expect(environmentOf(custom, service)).toMatchObject({
        MICROSOFT_GRAPH_URL: 'https://graph.microsoft.us/v1.0',
        MICROSOFT_LOGIN_URL: 'https://login.microsoftonline.us',
      });
      expect(actionsOf(functionStatements(template, service))).toContain('events:PutEvents');
    }
  });
});

describe('company calendars: the user-sync fan-out', () => {
  type Queue = { Properties: Record<string, unknown> };
  const queues = (t: Template) => t.findResources('AWS::SQS::Queue') as Record<string, Queue>;
  const userSyncQueue = (t: Template) => {
    const found = Object.entries(queues(t)).filter(([id]) => /CalendarSyncUserSyncQueue/.test(id));
    expect(found).toHaveLength(1);
    return found[0] as [string, Queue];
  };
  const mappingOf = (t: Template) => {
    const [fnId] = functionOf(t, SERVICES.calendarUserSync);
    const found = Object.values(t.findResources('AWS::Lambda::EventSourceMapping')).filter(
      (m) => m.Properties.FunctionName?.Ref === fnId,
    );
    expect(found).toHaveLength(1);
    return found[0]?.Properties as Record<string, unknown>;
  };

  it('keeps the queue encrypted, TLS-only, dead-lettered after its receives, hidden longer than a consumer runs', () => {
    const [id, queue] = userSyncQueue(template);
    const consumerTimeout = functionOf(template, SERVICES.calendarUserSync)[1].Properties.Timeout;
    expect(consumerTimeout).toBe(USER_SYNC_TIMEOUT.toSeconds());
    expect(queue.Properties).toMatchObject({
      SqsManagedSseEnabled: true,
      VisibilityTimeout: consumerTimeout * 6,
      RedrivePolicy: {
        maxReceiveCount: QUEUE_SETTINGS.maxReceiveCount,
        deadLetterTargetArn: { 'Fn::GetAtt': [expect.stringMatching(/UserSyncDeadLetterQueue/), 'Arn'] },
      },
    });
    const tlsOnly = Object.values(template.findResources('AWS::SQS::QueuePolicy')).some(
      (policy) =>
        JSON.stringify(policy.Properties.Queues).includes(id) &&
        JSON.stringify(policy.Properties.PolicyDocument).includes('aws:SecureTransport'),
    );
    expect(tlsOnly).toBe(true);
  });

  it('alarms when a user sync reaches the dead-letter queue', () => {
    const dlq = Object.keys(queues(template)).find((id) => /UserSyncDeadLetterQueue/.test(id));
    const alarms = Object.values(template.findResources('AWS::CloudWatch::Alarm')).filter((alarm) =>
      JSON.stringify(alarm.Properties.Dimensions ?? []).includes(`"${dlq}"`),
    );
    expect(alarms.map((a) => a.Properties)).toEqual([
      expect.objectContaining({
        MetricName: 'ApproximateNumberOfMessagesVisible',
        Threshold: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      }),
    ]);
  });

  it('drives the consumer in small batches with partial failures, at the configured concurrency', () => {
    expect(mappingOf(template)).toMatchObject({
      BatchSize: USER_SYNC_BATCH_SIZE,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      ScalingConfig: { MaximumConcurrency: DEFAULT_CALENDAR_USER_SYNC_CONCURRENCY },
    });
    // No batching window: a pushed change is synced as soon as it is queued.
    expect(mappingOf(template).MaximumBatchingWindowInSeconds).toBeUndefined();
    expect(mappingOf(custom)).toMatchObject({ ScalingConfig: { MaximumConcurrency: 7 } });
  });

  it('lets the scheduled run, the API (POST /calendars/{id}/sync) and the consumer (a request put back) send to the queue, and the consumer the table and launcher but not the feed key', () => {
    for (const service of [SERVICES.calendarSync, SERVICES.calendars, SERVICES.calendarUserSync])
      expect(actionsOf(functionStatements(template, service))).toEqual(expect.arrayContaining(['sqs:SendMessage']));
    const consumer = actionsOf(functionStatements(template, SERVICES.calendarUserSync));
    expect(consumer).toEqual(
      expect.arrayContaining(['dynamodb:Query', 'states:StartExecution', 'states:StopExecution', 'sqs:ReceiveMessage']),
    );
    expect(consumer.filter((a) => a.startsWith('kms:'))).toEqual([]);
  });
});
