/** Alarms in ALARM: the stack's alarms are those that notify its alarm topic. */
import { type CloudWatchClient, DescribeAlarmsCommand } from '@aws-sdk/client-cloudwatch';
import { isDeniedByAws } from '../exit-codes';
import { type CheckResult, errorText, failed, ok } from './check';

const CHECK = 'alarms';

/** The stack's alarms now in ALARM, by name (for the doctor and the console). */
export async function alarmsInAlarm(
  cloudWatch: Pick<CloudWatchClient, 'send'>,
  alarmTopicArn: string,
): Promise<string[]> {
  const firing: string[] = [];
  let token: string | undefined;
  do {
    const page = await cloudWatch.send(
      new DescribeAlarmsCommand({ StateValue: 'ALARM', ActionPrefix: alarmTopicArn, NextToken: token }),
    );
    for (const alarm of page.MetricAlarms ?? []) firing.push(alarm.AlarmName ?? '(unnamed)');
    token = page.NextToken;
  } while (token !== undefined);
  return firing;
}

export async function checkAlarms(
  cloudWatch: Pick<CloudWatchClient, 'send'>,
  alarmTopicArn: string,
): Promise<CheckResult> {
  let firing: string[];
  try {
    firing = await alarmsInAlarm(cloudWatch, alarmTopicArn);
  } catch (error) {
    const { name, message } = errorText(error);
    return failed(
      CHECK,
      `could not list alarms: ${name}: ${message}`,
      isDeniedByAws(name) ? 'let your credentials call cloudwatch:DescribeAlarms' : 'run the doctor again',
    );
  }
  if (firing.length === 0) return ok(CHECK, 'none in ALARM');
  return failed(
    CHECK,
    `${firing.length} in ALARM: ${firing.join(', ')}`,
    'each alarm\'s description names its runbook (docs/operating.md, "Alarms"); the dashboard (output DashboardName) shows why',
  );
}
