/**
 * The erasure construct: `DELETE /meetings/{bot_id}` is IAM-authorized and reaches the erase
 * function, whose role deletes only under the meeting's prefixes; the read API's role cannot
 * delete; the erasure queue has a DLQ watched by an alarm; retention runs daily only when set.
 */
import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { ERASE_API_ROUTES } from '../../lambdas/core/erase/erase-contract';
import { RETENTION_RUN_EVENT } from '../../lambdas/core/erase/erasure-job';
import { DEAD_LETTER_QUEUE_OUTPUTS, dlqOutputs } from '../../lambdas/core/stack-outputs';
import { SERVICES } from '../../lambdas/core/telemetry';
import type { MeetingPipelineStack } from '../../lib/meeting-pipeline-stack';
import { actionsOf, functionStatements } from './iam';
import { sharedTemplate, synthTemplate } from './synth';

let template: Template;
let stack: MeetingPipelineStack;
beforeAll(() => {
  ({ template, stack } = synthTemplate({ meetingRetentionDays: 365 }));
});

const logicalId = (construct: { node: { defaultChild?: unknown } }) =>
  stack.resolve((construct.node.defaultChild as { logicalId: string }).logicalId) as string;

describe('erasure', () => {
  it('routes DELETE /meetings/{bot_id}, IAM-authorized, to the erase function', () => {
    const [route] = Object.values(
      template.findResources('AWS::ApiGatewayV2::Route', {
        Properties: { RouteKey: ERASE_API_ROUTES.eraseMeeting },
      }),
    );
    expect(route?.Properties.AuthorizationType).toBe('AWS_IAM');
    const integrationId = String(route?.Properties.Target['Fn::Join'][1][1].Ref);
    const integration = template.toJSON().Resources[integrationId];
    expect(JSON.stringify(integration.Properties.IntegrationUri)).toContain(logicalId(stack.erasure.function));
  });

  it('gives the erase function deletes, and the read API none', () => {
    const erase = actionsOf(functionStatements(template, SERVICES.erase));
    expect(erase).toEqual(expect.arrayContaining(['dynamodb:BatchWriteItem', 's3:DeleteObjectVersion']));
    expect(erase).not.toContain('s3:DeleteObject');
    // Quarantine entries are read only in the first key layout; today's are filed by bot and listed.
    const reads = functionStatements(template, SERVICES.erase).filter((s) =>
      [s.Action].flat().includes('s3:GetObject'),
    );
    expect(JSON.stringify(reads.map((s) => s.Resource))).toContain('/quarantine/2*');
    expect(JSON.stringify(reads.map((s) => s.Resource))).not.toContain('/quarantine/*');
    expect(erase.filter((action) => action.endsWith('*'))).toEqual([]);
    const read = actionsOf(functionStatements(template, SERVICES.readApi));
    expect(read.filter((action) => /^(dynamodb|s3):.*(Delete|BatchWrite|Put|Update)/.test(action))).toEqual([]);
  });

  it('has an encrypted erasure queue with a DLQ, an alarm on it, and its outputs', () => {
    const queue = template.toJSON().Resources[logicalId(stack.erasure.queue)];
    expect(queue.Properties.SqsManagedSseEnabled).toBe(true);
    expect(queue.Properties.RedrivePolicy.deadLetterTargetArn['Fn::GetAtt'][0]).toBe(
      logicalId(stack.erasure.deadLetterQueue),
    );
    const alarms = template.findResources('AWS::CloudWatch::Alarm');
    const watching = Object.values(alarms).filter((alarm) =>
      JSON.stringify(alarm.Properties.Dimensions ?? []).includes(logicalId(stack.erasure.deadLetterQueue)),
    );
    expect(watching.length).toBeGreaterThanOrEqual(1);
    const outputs = Object.keys(template.toJSON().Outputs);
    const names = dlqOutputs(DEAD_LETTER_QUEUE_OUTPUTS.erasure);
    expect(outputs).toEqual(expect.arrayContaining([names.url, names.arn, 'ErasureQueueUrl']));
  });

  it('runs retention daily with its event when meetingRetentionDays is set, and not otherwise', () => {
    const rules = template.findResources('AWS::Events::Rule', {
      Properties: { ScheduleExpression: 'rate(1 day)' },
    });
    const [rule] = Object.values(rules);
    expect(JSON.parse(rule?.Properties.Targets[0].Input)).toEqual(RETENTION_RUN_EVENT);
    const without = sharedTemplate();
    expect(
      Object.keys(without.findResources('AWS::Events::Rule', { Properties: { ScheduleExpression: 'rate(1 day)' } })),
    ).toEqual([]);
  });
});
