import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { CALENDAR_PUSH_ROUTES } from '../../lambdas/core/calendar/company/push/push-settings';
import { READ_API_ROUTES } from '../../lambdas/core/read/read-api-contract';
import { DEAD_LETTER_QUEUE_OUTPUTS, dlqOutputs, STACK_OUTPUTS } from '../../lambdas/core/stack-outputs';
import { SHIPPED_LOGICAL_IDS } from '../../lib/http-api';
import type { MeetingPipelineStack } from '../../lib/meeting-pipeline-stack';
import { synthTemplate } from './synth';

let template: Template;
let stack: MeetingPipelineStack;
// Synthesizing bundles every function: on a busy machine that outlasts the default minute.
beforeAll(() => {
  ({ template, stack } = synthTemplate());
}, 300_000);

type Resource = { Type: string; Properties: Record<string, unknown> };
const resources = () => template.toJSON().Resources as Record<string, Resource>;
const routes = () =>
  Object.values(resources())
    .filter((r) => r.Type === 'AWS::ApiGatewayV2::Route')
    .map((r) => r.Properties as { RouteKey: string; AuthorizationType: string; Target: unknown });

type FunctionProperties = { Environment: { Variables: Record<string, string> } };
/** The one function whose metrics carry the read API's service name. */
function readFunction(): [string, FunctionProperties] {
  const found = Object.entries(resources())
    .filter(([, r]) => r.Type === 'AWS::Lambda::Function')
    .map(([id, r]) => [id, r.Properties as FunctionProperties] as [string, FunctionProperties])
    .filter(([, p]) => p.Environment.Variables.POWERTOOLS_SERVICE_NAME === 'read-api');
  expect(found).toHaveLength(1);
  return found[0] as [string, FunctionProperties];
}

describe('the stack HTTP API', () => {
  it('is one API whose every route but the webhook and the calendar push notifications is IAM-authorized', () => {
    expect(Object.values(resources()).filter((r) => r.Type === 'AWS::ApiGatewayV2::Api')).toHaveLength(1);
    const byKey = new Map(routes().map((r) => [r.RouteKey, r.AuthorizationType]));
    // The providers cannot sign for IAM: each of these checks its own secret (HMAC) before anything else.
    const open = ['POST /webhooks', ...Object.values(CALENDAR_PUSH_ROUTES)];
    for (const key of open) expect({ key, auth: byKey.get(key) }).toEqual({ key, auth: 'NONE' });
    const others = [...byKey].filter(([key]) => !open.includes(key));
    expect(others.length).toBeGreaterThanOrEqual(Object.keys(READ_API_ROUTES).length + 3);
    for (const [key, auth] of others) expect({ key, auth }).toEqual({ key, auth: 'AWS_IAM' });
  });

  it('keeps the logical IDs of the API, its stage, log and shipped routes, so an update replaces none of them', () => {
    const all = resources();
    expect(all[SHIPPED_LOGICAL_IDS.api]?.Type).toBe('AWS::ApiGatewayV2::Api');
    expect(all[SHIPPED_LOGICAL_IDS.stage]?.Type).toBe('AWS::ApiGatewayV2::Stage');
    expect(all[SHIPPED_LOGICAL_IDS.accessLogs]?.Type).toBe('AWS::Logs::LogGroup');
    expect(all[SHIPPED_LOGICAL_IDS.throttledRequests]?.Type).toBe('AWS::Logs::MetricFilter');
    for (const [routeKey, logicalId] of Object.entries(SHIPPED_LOGICAL_IDS.routes)) {
      expect(all[logicalId]?.Properties.RouteKey, logicalId).toBe(routeKey);
    }
  });
});

describe('read API', () => {
  it('routes every read route, IAM-authorized, to the read function', () => {
    const [readFunctionId] = readFunction();
    const integrations = Object.entries(resources()).filter(
      ([, r]) => r.Type === 'AWS::ApiGatewayV2::Integration' && JSON.stringify(r.Properties).includes(readFunctionId),
    );
    expect(integrations).toHaveLength(1);
    const [integrationId] = integrations[0]!;
    for (const routeKey of Object.values(READ_API_ROUTES)) {
      const route = routes().find((r) => r.RouteKey === routeKey);
      expect(route, routeKey).toBeDefined();
      expect(route?.AuthorizationType).toBe('AWS_IAM');
      expect(JSON.stringify(route?.Target)).toContain(integrationId);
    }
  });

  it('may only read: table items, archived objects and long summaries (and write its own logs)', () => {
    const policies = Object.values(resources()).filter(
      (r) => r.Type === 'AWS::IAM::Policy' && JSON.stringify(r.Properties.Roles).includes('ReadApiFunction'),
    );
    const actions = policies.flatMap((p) =>
      (p.Properties.PolicyDocument as { Statement: Array<{ Action: string | string[] }> }).Statement.flatMap((s) =>
        Array.isArray(s.Action) ? s.Action : [s.Action],
      ),
    );
    expect([...new Set(actions)].sort()).toEqual(
      [
        'dynamodb:BatchGetItem',
        'dynamodb:GetItem',
        'dynamodb:Query',
        'logs:CreateLogStream',
        'logs:PutLogEvents',
        's3:GetObject',
      ].sort(),
    );
  });

  it('presigns recording links for 15 minutes by default, as configured', () => {
    expect(readFunction()[1].Environment.Variables.RECORDING_LINK_SECONDS).toBe('900');
  });
});

describe('stack outputs', () => {
  it('give the API base, the read API and every dead-letter queue URL and ARN', () => {
    const outputs = template.toJSON().Outputs as Record<string, unknown>;
    // Every name the CLI and the MCP server read.
    for (const name of Object.values(STACK_OUTPUTS)) expect(outputs, name).toHaveProperty(name);
    const deadLetterQueues = Object.keys(stack.deadLetterQueues());
    expect(deadLetterQueues.sort()).toEqual(Object.values(DEAD_LETTER_QUEUE_OUTPUTS).sort());
    for (const name of deadLetterQueues) {
      expect(outputs, name).toHaveProperty(dlqOutputs(name).url);
      expect(outputs, name).toHaveProperty(dlqOutputs(name).arn);
    }
    // Every queue with a redrive policy has its DLQ among them.
    const sqsQueues = Object.entries(resources()).filter(([, r]) => r.Type === 'AWS::SQS::Queue');
    const targets = sqsQueues
      .map(
        ([, r]) => (r.Properties.RedrivePolicy as { deadLetterTargetArn?: unknown } | undefined)?.deadLetterTargetArn,
      )
      .filter((arn) => arn !== undefined)
      .map((arn) => JSON.stringify(arn));
    const outputArns = deadLetterQueues.map((name) =>
      JSON.stringify((outputs[dlqOutputs(name).arn] as { Value: unknown }).Value),
    );
    for (const target of targets) expect(outputArns).toContain(target);
  });
});
