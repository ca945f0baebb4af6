import { Match, type Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { EVENT_FAILURE_REASONS } from '../../lambdas/core/events/failure-reasons';
import { SERVICES } from '../../lambdas/core/telemetry';
import { parseConfig } from '../../lib/config';
import { CALENDAR_PROVIDERS, MISSED_MEETINGS_ALARM } from '../../lib/monitoring';
import { CHANGED_SETTINGS, sharedTemplate } from './synth';

let template: Template;
// Synthesizing bundles every function: on a busy machine that outlasts the default minute.
beforeAll(() => {
  template = sharedTemplate({ alarmEmail: 'oncall@example.org' });
}, 300_000);

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
    for (const dlq of [
      'EventsDeadLetterQueue',
      'ArchiveDeadLetterQueue',
      'CalendarEventsDeadLetterQueue',
      'CalendarUserSyncDeadLetterQueue',
    ]) {
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

  it('alarms on any 429 at the API, counted by a metric filter on its access log', () => {
    const [filter, ...others] = Object.values(template.findResources('AWS::Logs::MetricFilter'));
    expect(others).toHaveLength(0);
    const [transformation] = filter?.Properties.MetricTransformations ?? [];
    const [alarm, ...more] = alarmNamed('IngressThrottled');
    expect(more).toHaveLength(0);
    expect(alarm?.Properties).toMatchObject({
      Namespace: transformation.MetricNamespace,
      MetricName: transformation.MetricName,
      Statistic: 'Sum',
      Period: 300,
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
    });
    expect(alarm?.Properties.Dimensions).toBeUndefined();
  });

  it('alarms on EventFailed summed over every failure reason', () => {
    const [alarm] = alarmNamed('EventFailures');
    const metrics = alarm?.Properties.Metrics as Array<{
      Expression?: string;
      ReturnData?: boolean;
      MetricStat?: { Metric: { MetricName: string; Dimensions: Array<{ Name: string; Value: string }> } };
    }>;
    const reasons = metrics.flatMap((m) =>
      m.MetricStat?.Metric.MetricName === 'EventFailed'
        ? m.MetricStat.Metric.Dimensions.filter((d) => d.Name === 'reason').map((d) => d.Value)
        : [],
    );
    expect(reasons.sort()).toEqual([...EVENT_FAILURE_REASONS].sort());
    const [sum] = metrics.filter((m) => m.ReturnData !== false);
    expect(sum?.Expression?.match(/FILL\(\w+,0\)/g)).toHaveLength(EVENT_FAILURE_REASONS.length);
    expect(alarm?.Properties).toMatchObject({ Threshold: 1, ComparisonOperator: 'GreaterThanOrEqualToThreshold' });
  });

  it('alarms on the schedules function: its errors, and the DLQ its failed calendar events land in', () => {
    const [config] = Object.values(template.findResources('AWS::Lambda::EventInvokeConfig'));
    const dlq = config?.Properties.DestinationConfig.OnFailure.Destination['Fn::GetAtt'][0];
    const [dlqAlarm] = alarmNamed('CalendarEventsDeadLetterQueueNotEmpty');
    expect(dlqAlarm?.Properties.Dimensions).toEqual([
      { Name: 'QueueName', Value: { 'Fn::GetAtt': [dlq, 'QueueName'] } },
    ]);
    const [errors] = alarmNamed('SchedulesErrors');
    expect(errors?.Properties).toMatchObject({ Namespace: 'AWS/Lambda', MetricName: 'Errors' });
    expect(errors?.Properties.Dimensions).toEqual([
      { Name: 'FunctionName', Value: { Ref: config?.Properties.FunctionName.Ref } },
    ]);
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

  it('shows refused push notifications on the dashboard and alarms on none (forged traffic pages no one)', () => {
    const [dashboard] = Object.values(template.findResources('AWS::CloudWatch::Dashboard'));
    const body = JSON.stringify(dashboard?.Properties.DashboardBody);
    expect(body).toContain('Company calendars: push refused');
    // Each metric of a graph is one bracketed list: name, then its dimensions.
    const metrics = body.split('[').map((part) => part.split(']')[0] ?? '');
    for (const provider of CALENDAR_PROVIDERS)
      expect(
        metrics.some(
          (m) => m.includes('CalendarPushRefused') && m.includes(provider) && m.includes(SERVICES.calendarPush),
        ),
      ).toBe(true);
    const alarms = JSON.stringify(template.findResources('AWS::CloudWatch::Alarm'));
    expect(alarms).not.toContain('CalendarPushRefused');
  });

  it('refuses an alarm e-mail that is not one, at synth', () => {
    expect(() => parseConfig({ upstreamBaseUrl: 'https://m.example.org/api/v1/', alarmEmail: 'oncall' })).toThrow(
      /alarmEmail: must be an e-mail address/,
    );
  });

  it('pages on any company calendar user cut off, and on a provider throttling for 15 minutes, not on one throttle', () => {
    const byId = (prefix: string) =>
      Object.entries(template.findResources('AWS::CloudWatch::Alarm'))
        .filter(([id]) => id.startsWith(prefix))
        .map(([, alarm]) => alarm);
    const [disconnected, ...moreDisconnected] = byId('MonitoringCalendarUsersDisconnected');
    expect(moreDisconnected).toEqual([]);
    expect(disconnected?.Properties).toMatchObject({
      Threshold: 1,
      EvaluationPeriods: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'notBreaching',
    });
    const [throttled] = byId('MonitoringCalendarProviderThrottled');
    expect(throttled?.Properties).toMatchObject({
      Threshold: 10,
      EvaluationPeriods: 3,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
    });
    // Both providers, from both functions that call them.
    for (const alarm of [disconnected, throttled])
      expect(
        ((alarm?.Properties.Metrics ?? []) as Array<{ MetricStat?: unknown }>).filter((m) => m.MetricStat),
      ).toHaveLength(4);
  });

  it("pages when a configured share of an hour's finished meetings were missed or failed, from a minimum count", () => {
    const custom = sharedTemplate(CHANGED_SETTINGS);
    const byId = (from: Template) =>
      Object.entries(from.findResources('AWS::CloudWatch::Alarm'))
        .filter(([id]) => id.startsWith('MonitoringMissedMeetings'))
        .map(([, alarm]) => alarm);
    const [alarm, ...more] = byId(template);
    expect(more).toEqual([]);
    expect(alarm?.Properties).toMatchObject({ Threshold: 20, ComparisonOperator: 'GreaterThanOrEqualToThreshold' });
    expect(byId(custom)[0]?.Properties).toMatchObject({ Threshold: 35 });
    const metrics = alarm?.Properties.Metrics as Array<{
      Expression?: string;
      MetricStat?: {
        Period: number;
        Metric: { MetricName: string; Dimensions: Array<{ Name: string; Value: string }> };
      };
    }>;
    const watched = metrics.flatMap((m) => (m.MetricStat ? [m.MetricStat] : []));
    // By status alone (an alarm selects exact dimensions), hourly, from both functions that apply state changes.
    expect(new Set(watched.map((m) => m.Metric.MetricName))).toEqual(new Set(['MeetingOutcome']));
    expect(new Set(watched.map((m) => m.Period))).toEqual(new Set([3600]));
    const pairs = watched.map((m) => Object.fromEntries(m.Metric.Dimensions.map((d) => [d.Name, d.Value])));
    expect(pairs).toHaveLength(8);
    for (const status of MISSED_MEETINGS_ALARM.finishedStatuses)
      for (const service of [SERVICES.processEvents, SERVICES.reconciler])
        expect(pairs).toContainEqual({ service, status });
    const [share] = metrics.filter((m) => m.Expression !== undefined);
    expect(share?.Expression).toMatch(new RegExp(`^IF\\(.+ >= ${MISSED_MEETINGS_ALARM.minMeetings}, 100 \\* `));
  });

  it('shows the missed share and every outcome reason on the dashboard (a SEARCH, not alarmed on)', () => {
    const [dashboard] = Object.values(template.findResources('AWS::CloudWatch::Dashboard'));
    const body = JSON.stringify(dashboard?.Properties.DashboardBody);
    expect(body).toContain('Meeting outcomes by reason');
    // By exactly the dimensions the points carry with their reason: the status-only copies are not drawn twice.
    expect(body).toContain("SEARCH('{MeetingPipeline,service,status,reason} MetricName=");
    expect(body).toContain("MeetingOutcome\\\\\\\"', 'Sum', 3600)");
    expect(JSON.stringify(template.findResources('AWS::CloudWatch::Alarm'))).not.toContain('SEARCH(');
  });

  it('refuses a missed-meetings percentage outside 1-100, at synth', () => {
    for (const missedMeetingsAlarmPercent of [0, 101])
      expect(() =>
        parseConfig({ upstreamBaseUrl: 'https://m.example.org/api/v1/', missedMeetingsAlarmPercent }),
      ).toThrow(/missedMeetingsAlarmPercent/);
  });
});
