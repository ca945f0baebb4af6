import { Match, type Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  CALENDAR_EVENT_IDS_KEPT_SECONDS,
  CALENDAR_EVENT_LEASE_MS,
} from '../../lambdas/core/schedule/applied-calendar-events';
import { actionsOf, functionStatements, wildcardDataActions } from './iam';
import { CHANGED_SETTINGS, sharedTemplate } from './synth';

let template: Template;
beforeAll(() => {
  template = sharedTemplate();
});

type Resource = { Properties: Record<string, { Ref?: string } & Record<string, unknown>> };
const calendarRule = (t: Template): Resource => {
  const rules = Object.values(
    t.findResources('AWS::Events::Rule', { Properties: { EventPattern: { source: ['meeting-pipeline.calendar'] } } }),
  );
  expect(rules).toHaveLength(1);
  return rules[0] as Resource;
};
/** The resource policy statements of the bus the calendar rule listens on. */
const calendarBusStatements = (t: Template): Array<Record<string, unknown>> => {
  const busId = calendarRule(t).Properties.EventBusName?.Ref ?? '';
  const policy = t.findResources('AWS::Events::EventBus')[busId]?.Properties.Policy;
  if (policy === undefined) throw new Error('the calendar bus has no resource policy');
  return (policy as { Statement: Array<Record<string, unknown>> }).Statement;
};

describe('bot scheduler', () => {
  it('runs a Standard JSONPath state machine with all events logged without their data, X-Ray off by default', () => {
    template.hasResourceProperties('AWS::StepFunctions::StateMachine', {
      StateMachineType: 'STANDARD',
      TracingConfiguration: { Enabled: false },
      LoggingConfiguration: {
        Level: 'ALL',
        IncludeExecutionData: false,
        Destinations: [Match.objectLike({ CloudWatchLogsLogGroup: Match.anyValue() })],
      },
    });
  });

  it('puts the schedule routes behind IAM authorization, the webhook route not', () => {
    for (const route of ['PUT /schedules/{id}', 'GET /schedules/{id}', 'DELETE /schedules/{id}']) {
      template.hasResourceProperties('AWS::ApiGatewayV2::Route', { RouteKey: route, AuthorizationType: 'AWS_IAM' });
    }
    template.hasResourceProperties('AWS::ApiGatewayV2::Route', {
      RouteKey: 'POST /webhooks',
      AuthorizationType: 'NONE',
    });
  });

  it('takes calendar events from EventBridge', () => {
    template.hasResourceProperties('AWS::Events::Rule', {
      EventBusName: Match.anyValue(),
      EventPattern: {
        source: ['meeting-pipeline.calendar'],
        'detail-type': ['Calendar Event Upserted', 'Calendar Event Cancelled'],
      },
      Targets: [Match.objectLike({ RetryPolicy: { MaximumRetryAttempts: 8, MaximumEventAgeInSeconds: 7200 } })],
    });
  });

  it('listens for calendar events on a bus of its own, not the default bus, named in the outputs', () => {
    const rule = calendarRule(template);
    const buses = template.findResources('AWS::Events::EventBus');
    const busId = rule.Properties.EventBusName?.Ref as string | undefined;
    expect(busId, 'the calendar rule names a bus of the stack').toBeDefined();
    expect(buses[busId ?? '']?.Properties.Name).toBe('TestPipeline-calendar-events');
    template.hasOutput('CalendarEventBusName', { Value: { Ref: busId } });
    template.hasOutput('CalendarEventBusArn', { Value: { 'Fn::GetAtt': [busId, 'Arn'] } });
  });

  it('closes the calendar bus to everyone when no producer is named', () => {
    const statements = calendarBusStatements(template);
    expect(statements).toEqual([
      expect.objectContaining({ Effect: 'Deny', Principal: '*', Action: 'events:PutEvents' }),
    ]);
    expect(statements[0]).not.toHaveProperty('Condition');
  });

  it('lets only the named producers put calendar events, denying everyone else whatever their IAM policy', () => {
    const role = 'arn:aws:iam::222222222222:role/calendar-integration';
    const named = sharedTemplate(CHANGED_SETTINGS);
    const [allow, deny] = calendarBusStatements(named);
    expect(allow).toMatchObject({
      Effect: 'Allow',
      Principal: { AWS: ['333333333333', role] },
      Action: 'events:PutEvents',
      Condition: { StringEquals: { 'events:source': 'meeting-pipeline.calendar' } },
    });
    // Denied unless the caller is the named role or in the named account (both keys must differ).
    expect(deny).toMatchObject({
      Effect: 'Deny',
      Principal: '*',
      Action: 'events:PutEvents',
      Condition: { StringNotEquals: { 'aws:PrincipalArn': [role], 'aws:PrincipalAccount': ['333333333333'] } },
    });
    expect(JSON.stringify(allow?.Resource)).toContain('event-bus/TestPipeline-calendar-events');
  });

  it('sends calendar events the schedules function still fails after its retries to the calendar DLQ', () => {
    const [rule] = Object.values(
      template.findResources('AWS::Events::Rule', {
        Properties: { EventPattern: { source: ['meeting-pipeline.calendar'] } },
      }),
    );
    const targetDlq = rule?.Properties.Targets[0].DeadLetterConfig.Arn['Fn::GetAtt'][0];
    const [schedules] = Object.entries(template.findResources('AWS::Lambda::Function')).filter(
      ([, fn]) => fn.Properties.Environment?.Variables?.POWERTOOLS_SERVICE_NAME === 'schedules',
    );
    template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      FunctionName: { Ref: schedules?.[0] },
      Qualifier: '$LATEST',
      MaximumRetryAttempts: 2,
      MaximumEventAgeInSeconds: 7200,
      DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': [targetDlq, 'Arn'] } } },
    });
    expect(template.findResources('AWS::SQS::Queue')[targetDlq]?.Properties).toMatchObject({
      SqsManagedSseEnabled: true,
    });
    const send = functionStatements(template, 'schedules').find((s) => actionsOf([s]).includes('sqs:SendMessage'));
    expect(send?.Resource).toEqual({ 'Fn::GetAtt': [targetDlq, 'Arn'] });
    template.hasOutput('CalendarEventsDeadLetterQueueUrl', { Value: { Ref: targetDlq } });
  });

  it("holds a calendar event taken by a dead invocation for longer than the function's timeout, and its id past every retry", () => {
    const [schedules] = Object.values(template.findResources('AWS::Lambda::Function')).filter(
      (fn) => fn.Properties.Environment?.Variables?.POWERTOOLS_SERVICE_NAME === 'schedules',
    );
    expect(schedules?.Properties.Timeout * 1000).toBeLessThan(CALENDAR_EVENT_LEASE_MS);
    const ages = [
      ...Object.values(template.findResources('AWS::Events::Rule')).flatMap((rule) =>
        (rule.Properties.Targets ?? []).map((t: { RetryPolicy?: { MaximumEventAgeInSeconds?: number } }) =>
          Number(t.RetryPolicy?.MaximumEventAgeInSeconds ?? 0),
        ),
      ),
      ...Object.values(template.findResources('AWS::Lambda::EventInvokeConfig')).map((c) =>
        Number(c.Properties.MaximumEventAgeInSeconds ?? 0),
      ),
    ];
    // An event may wait out EventBridge's retries, then Lambda's.
    expect(2 * Math.max(...ages)).toBeLessThan(CALENDAR_EVENT_IDS_KEPT_SECONDS);
  });

  it('lets the schedules function start and stop only launcher executions', () => {
    const statements = functionStatements(template, 'schedules');
    expect(wildcardDataActions(statements)).toEqual([]);
    expect(actionsOf(statements).filter((a) => a.startsWith('states:'))).toEqual([
      'states:StartExecution',
      'states:StopExecution',
    ]);
    // Executions have their own ARN form: arn:…:states:<region>:<account>:execution:<state machine name>:<execution name>.
    const stop = statements.find((s) => actionsOf([s]).includes('states:StopExecution'));
    expect(JSON.stringify(stop?.Resource)).toMatch(/:states:.*:execution:.*Fn::Select.*:\*"/);
    expect(JSON.stringify(stop?.Resource)).not.toContain(':stateMachine:');
  });

  it("lets the launch function read, put (the meeting and its day listing) and update the table, query a meeting's state changes, read the API key, publish domain events and write its logs", () => {
    const statements = functionStatements(template, 'launch-bot');
    expect(actionsOf(statements).filter((a) => !a.startsWith('xray:'))).toEqual(
      [
        'dynamodb:GetItem',
        'dynamodb:PutItem',
        'dynamodb:Query',
        'dynamodb:UpdateItem',
        'events:PutEvents',
        'logs:CreateLogStream',
        'logs:PutLogEvents',
        'secretsmanager:DescribeSecret',
        'secretsmanager:GetSecretValue',
      ].sort(),
    );
  });
});
