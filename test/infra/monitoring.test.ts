import { Match, type Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../lib/config';
import { synthTemplate } from './synth';

let template: Template;
beforeAll(() => {
  template = synthTemplate({ alarmEmail: 'oncall@example.org' }).template;
});

const alarms = () => Object.values(template.findResources('AWS::CloudWatch::Alarm'));
const alarmNamed = (fragment: string) =>
  alarms().filter(
    (a) => JSON.stringify(a.Properties.AlarmDescription).includes(fragment) || JSON.stringify(a).includes(fragment),
  );

describe('monitoring', () => {
  it('notifies an encrypted, TLS-only SNS topic with the configured e-mail subscription', () => {
    template.hasResourceProperties('AWS::SNS::Topic', { KmsMasterKeyId: Match.anyValue() });
    template.hasResourceProperties('AWS::SNS::Subscription', { Protocol: 'email', Endpoint: 'oncall@example.org' });
    template.hasResourceProperties('AWS::SNS::TopicPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        ]),
      },
    });
    for (const alarm of alarms()) expect(alarm.Properties.AlarmActions).toHaveLength(1);
  });

  it('alarms on any message in any DLQ', () => {
    for (const dlq of ['EventsDeadLetterQueue', 'ArchiveDeadLetterQueue', 'CalendarEventsDeadLetterQueue']) {
      const [alarm] = alarmNamed(`${dlq}NotEmpty`);
      expect(alarm?.Properties).toMatchObject({
        MetricName: 'ApproximateNumberOfMessagesVisible',
        Threshold: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      });
    }
  });

  it('alarms on backlog age, ingress 5xx, signature rejections, archive and launch failures, a refused API key', () => {
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'ApproximateAgeOfOldestMessage',
      Threshold: 300,
      EvaluationPeriods: 3,
    });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', { MetricName: '5xx', Namespace: 'AWS/ApiGateway' });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'WebhookRejected',
      Namespace: 'MeetingPipeline',
      Threshold: 20,
      Dimensions: Match.arrayWith([
        { Name: 'reason', Value: 'signature-mismatch' },
        { Name: 'service', Value: 'webhook-ingress' },
      ]),
    });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'ArchiveFailed',
      Namespace: 'MeetingPipeline',
    });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'LaunchFailed',
      Namespace: 'MeetingPipeline',
    });
    expect(JSON.stringify(alarmNamed('refused the API key'))).toContain('UpstreamUnauthorized');
  });

  it("alarms on every function's errors and throttles, and on failed or timed-out launcher executions", () => {
    const functions = Object.keys(template.findResources('AWS::Lambda::Function')).filter(
      (id) => !id.includes('LogRetention'),
    );
    const byMetric = (name: string) =>
      alarms().filter((a) => a.Properties.MetricName === name && a.Properties.Namespace === 'AWS/Lambda');
    expect(byMetric('Errors')).toHaveLength(functions.length);
    expect(byMetric('Throttles')).toHaveLength(functions.length);
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'ExecutionsFailed',
      Namespace: 'AWS/States',
    });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'ExecutionsTimedOut',
      Namespace: 'AWS/States',
    });
  });

  it('has one dashboard telling the story left to right', () => {
    const [dashboard] = Object.values(template.findResources('AWS::CloudWatch::Dashboard'));
    const body = JSON.stringify(dashboard?.Properties.DashboardBody);
    const order = [
      'Ingress: requests',
      'Events queue',
      'Processing: applied',
      'Dead-letter queues',
      'Archive',
      'Scheduler',
    ].map((title) => body.indexOf(title));
    expect(order.every((at) => at > 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
  });

  it('refuses an alarm e-mail that is not one, at synth', () => {
    expect(() => parseConfig({ upstreamBaseUrl: 'https://m.example.org/api/v1/', alarmEmail: 'oncall' })).toThrow(
      /alarmEmail: must be an e-mail address/,
    );
  });
});
