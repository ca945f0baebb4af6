/**
 * `meeting-pipeline doctor --local` as an operator runs it: the whole local stack, the CLI a child
 * process. All checks hold on a healthy stack and the test webhook leaves nothing a reader sees;
 * a wrong signing secret and a message in a dead-letter queue each fail their own check, with
 * advice, and the run exits 6. A healthy run and a failing one are children, as an operator
 * runs them; the runs after them (the quarantine emptied, the DLQ's check) are `main` in this
 * process (each child costs seconds of start-up on a busy machine).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { CloudWatchClient, type DescribeAlarmsCommandInput } from '@aws-sdk/client-cloudwatch';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { DeleteMessageCommand, ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CheckResult } from '../../cli/doctor/check';
import { DOCTOR_BOT_PREFIX, type DoctorDependencies, runDoctor } from '../../cli/doctor/run-doctor';
import { secretsManagerSecret } from '../../cli/doctor/secret-checks';
import { EXIT } from '../../cli/exit-codes';
import type { LocalEndpoints } from '../../cli/local-endpoints';
import { meetingList } from '../../lambdas/core/read/read-api-contract';
import { sqsClient } from '../../lambdas/shared/aws-clients';
import { s3Client } from '../../lambdas/shared/s3-client';
import { newSigningSecret } from '../../local/local-stack';
import { cliInProcess } from '../fixtures/cli-in-process';
import { type CliLocalStack, cli, startCliLocalStack } from '../fixtures/cli-local-stack';

let local: CliLocalStack;
let healthy: LocalEndpoints;

/** The endpoints file as `npm run dev` writes it, with `changes` applied. */
function writeEndpoints(changes: Partial<LocalEndpoints> = {}): void {
  writeFileSync(local.endpointsFile, JSON.stringify({ ...healthy, ...changes }));
}

/** A long wait: a loaded machine may take tens of seconds to apply a webhook, and the check is not about speed. */
const doctorArgs = () => ['doctor', '--endpoints-file', local.endpointsFile, '--wait', '180'];
const doctor = () => cli(doctorArgs());
const doctorInProcess = () => cliInProcess(doctorArgs());
const lineOf = (stdout: string, check: string) => stdout.split('\n').find((line) => line.slice(2).startsWith(check));

/** Puts a message in the test's events DLQ; emptyDeadLetterQueue takes it out again. */
async function poisonDeadLetterQueue(): Promise<void> {
  await sqsClient().send(
    new SendMessageCommand({ QueueUrl: local.deadLetterQueueUrl, MessageBody: '{"doctor":"poison"}' }),
  );
}

async function emptyDeadLetterQueue(): Promise<void> {
  const sqs = sqsClient();
  const { Messages = [] } = await sqs.send(
    new ReceiveMessageCommand({ QueueUrl: local.deadLetterQueueUrl, MaxNumberOfMessages: 10 }),
  );
  for (const m of Messages)
    await sqs.send(new DeleteMessageCommand({ QueueUrl: local.deadLetterQueueUrl, ReceiptHandle: m.ReceiptHandle }));
}

beforeAll(async () => {
  local = await startCliLocalStack('doctor');
  const written = JSON.parse(readFileSync(local.endpointsFile, 'utf8')) as LocalEndpoints;
  healthy = {
    ...written,
    webhookUrl: local.stack.webhookUrl,
    serviceApiUrl: local.stack.apiBaseUrl,
    signingSecret: local.signingSecret,
    serviceApiKey: local.stack.serviceApiKey,
  };
  writeEndpoints();
}, 120_000);

afterAll(() => local?.stop());

describe('meeting-pipeline doctor --local', () => {
  it('passes every check on a healthy stack, exits 0, and the test webhook leaves no meeting or delivery behind', {
    timeout: 400_000,
  }, async () => {
    const run = await doctor();
    expect(run.stderr).not.toMatch(/error|trace/i);
    for (const check of [
      'signing secret',
      'API key',
      'service answers',
      'key scopes',
      'DLQ events',
      'quarantine',
      'test webhook',
    ])
      expect(lineOf(run.stdout, check), check).toMatch(/^✓ /);
    expect(lineOf(run.stdout, 'alarms')).toMatch(/^- alarms\s+skipped: local mode has no CloudWatch/);
    expect(lineOf(run.stdout, 'test webhook')).toMatch(
      /accepted \(202\), queued, applied, in the delivery log, erased/,
    );
    expect(run.code).toBe(EXIT.ok);

    const botId = /bot_doctor_[0-9a-f]{12}/.exec(run.stdout)?.[0];
    expect(botId).toBeDefined();
    for (const path of [`/meetings/${botId}`, `/meetings/${botId}/events`])
      expect((await fetch(`${local.endpoint}${path}`)).status, path).toBe(404);
    const listed = meetingList.parse(await (await fetch(`${local.endpoint}/meetings?limit=200`)).json());
    expect(listed.meetings.map((m) => m.bot_id)).not.toContain(botId);
  });

  it('fails the test webhook with its advice when the signing secret is not the one the ingress verifies with, and erases what it sent', {
    timeout: 400_000,
  }, async () => {
    writeEndpoints({ signingSecret: newSigningSecret() });
    const wrong = await doctor();
    expect(wrong.code).toBe(EXIT.checkFailed);
    expect(lineOf(wrong.stdout, 'signing secret')).toMatch(/^✓ /);
    expect(lineOf(wrong.stdout, 'test webhook')).toMatch(
      /^✗ test webhook\s+not accepted: .* answered 401 .*→ the ingress verifies with another signing secret/,
    );
    // The refused webhook went to quarantine; the doctor's erase took it out again.
    writeEndpoints();
    const again = await doctorInProcess();
    expect(lineOf(again.stdout, 'quarantine')).toMatch(/^✓ quarantine\s+empty/);
    expect(again.code).toBe(EXIT.ok);
  });

  it('names a message in a dead-letter queue, with how to re-drive it, and exits 6', { timeout: 400_000 }, async () => {
    writeEndpoints();
    await poisonDeadLetterQueue();
    try {
      const run = await doctorInProcess();
      expect(run.code).toBe(EXIT.checkFailed);
      expect(lineOf(run.stdout, 'DLQ events')).toMatch(
        /^✗ DLQ events\s+1 message \(webhooks that failed processing.*→ .*meeting-pipeline dlq redrive events/,
      );
      // The others still ran and held.
      expect(lineOf(run.stdout, 'test webhook')).toMatch(/^✓ /);
    } finally {
      await emptyDeadLetterQueue();
    }
  });
});

/** An AWS error as the SDK throws it. */
const awsError = (name: string, message: string) => Object.assign(new Error(message), { name });

/**
 * Secrets Manager and CloudWatch have no emulator here: their clients are the SDK's own, with a
 * middleware that answers (or throws) in place of the service, so the commands the doctor builds
 * are the ones answered.
 */
function secretsManager(values: Record<string, string | Error>): SecretsManagerClient {
  const client = new SecretsManagerClient({
    region: 'eu-west-1',
    credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
  });
  client.middlewareStack.add(
    () => async (args) => {
      const value = values[String((args.input as { SecretId?: string }).SecretId)];
      if (value === undefined)
        throw awsError('ResourceNotFoundException', "Secrets Manager can't find the specified secret.");
      if (value instanceof Error) throw value;
      return { output: { $metadata: {}, SecretString: value }, response: {} } as never;
    },
    { step: 'initialize', name: 'answerForSecretsManager' },
  );
  return client;
}

const ALARM_TOPIC = 'arn:aws:sns:eu-west-1:123456789012:MeetingPipeline-MonitoringAlarmTopic-ABC';

/** CloudWatch holding `firing` in ALARM, notifying the stack's topic; what each DescribeAlarms asked. */
function cloudWatch(firing: string[], asked: DescribeAlarmsCommandInput[] = []): CloudWatchClient {
  const client = new CloudWatchClient({ region: 'eu-west-1', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
  client.middlewareStack.add(
    () => async (args) => {
      const input = args.input as DescribeAlarmsCommandInput;
      asked.push(input);
      const ours = input.StateValue === 'ALARM' && input.ActionPrefix === ALARM_TOPIC;
      const MetricAlarms = ours ? firing.map((AlarmName) => ({ AlarmName, StateValue: 'ALARM' })) : [];
      return { output: { $metadata: {}, MetricAlarms }, response: {} } as never;
    },
    { step: 'initialize', name: 'answerForCloudWatch' },
  );
  return client;
}

/** The doctor as `--stack` builds it, pointed at the local stack's HTTP API, queues and bucket. */
function stackDependencies(secrets: SecretsManagerClient, alarms: CloudWatchClient): DoctorDependencies {
  return {
    signingSecret: secretsManagerSecret(secrets, 'meeting-pipeline/webhook-signing-secret'),
    apiKey: secretsManagerSecret(secrets, 'meeting-pipeline/api-key'),
    serviceApiUrl: local.stack.apiBaseUrl,
    webhookUrl: local.stack.webhookUrl,
    fetch: (input, init) => fetch(input, init),
    api: { apiBaseUrl: local.endpoint, fetch: (url, init) => fetch(url, init) },
    sqs: sqsClient(),
    deadLetterQueues: [{ name: 'events', url: local.deadLetterQueueUrl }],
    s3: s3Client(),
    payloadBucket: local.stack.resources.payloadBucket,
    alarms: { cloudWatch: alarms, topicArn: ALARM_TOPIC },
    botId: `${DOCTOR_BOT_PREFIX}${Date.now().toString(16)}`,
    webhookWaitMs: 180_000,
    pollMs: 250,
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    now: () => Date.now(),
  };
}

const byCheck = (results: CheckResult[]) => Object.fromEntries(results.map((r) => [r.check, r]));

describe('doctor on the AWS path, faults injected into the SDK clients', () => {
  it('names AccessDenied on the signing secret, a 401 from the service, a non-empty DLQ and an alarm in ALARM, each with advice, and runs the rest', {
    timeout: 400_000,
  }, async () => {
    await poisonDeadLetterQueue();
    const asked: DescribeAlarmsCommandInput[] = [];
    try {
      const results = byCheck(
        await runDoctor(
          stackDependencies(
            secretsManager({
              'meeting-pipeline/webhook-signing-secret': awsError(
                'AccessDeniedException',
                'User: arn:aws:iam::123456789012:user/ops is not authorized to perform: secretsmanager:GetSecretValue',
              ),
              'meeting-pipeline/api-key': 'a-key-the-service-revoked',
            }),
            cloudWatch(['MeetingPipeline-MonitoringEventsDeadLetterQueueNotEmpty-1X2Y'], asked),
          ),
        ),
      );
      expect(results['signing secret']).toMatchObject({
        status: 'fail',
        detail: expect.stringContaining(
          'AWS refused to read meeting-pipeline/webhook-signing-secret (AccessDeniedException)',
        ),
        advice: expect.stringContaining('secretsmanager:GetSecretValue'),
      });
      expect(results['API key']?.status).toBe('ok');
      expect(results['service answers']).toMatchObject({
        status: 'fail',
        detail: expect.stringContaining('401'),
        advice: expect.stringContaining('store it in meeting-pipeline/api-key'),
      });
      expect(results['DLQ events']).toMatchObject({
        status: 'fail',
        detail: expect.stringMatching(/^1 message/),
        advice: expect.stringContaining('meeting-pipeline dlq redrive events'),
      });
      expect(results.quarantine?.status).toBe('ok');
      expect(results['test webhook']).toMatchObject({
        status: 'skipped',
        detail: expect.stringContaining('signing secret'),
      });
      expect(results.alarms).toMatchObject({
        status: 'fail',
        detail: '1 in ALARM: MeetingPipeline-MonitoringEventsDeadLetterQueueNotEmpty-1X2Y',
        advice: expect.stringContaining('runbook'),
      });
      expect(asked).toEqual([expect.objectContaining({ StateValue: 'ALARM', ActionPrefix: ALARM_TOPIC })]);
    } finally {
      await emptyDeadLetterQueue();
    }
  });

  it('names the placeholder left in the API key secret, skips the service check that needs it, and still sends the test webhook', {
    timeout: 400_000,
  }, async () => {
    const results = await runDoctor(
      stackDependencies(
        secretsManager({
          'meeting-pipeline/webhook-signing-secret': local.signingSecret,
          'meeting-pipeline/api-key': '<API_KEY>',
        }),
        cloudWatch([]),
      ),
    );
    const found = byCheck(results);
    expect(found['API key']).toMatchObject({
      status: 'fail',
      detail: 'meeting-pipeline/api-key still holds the placeholder "<API_KEY>"',
      advice: expect.stringContaining('aws secretsmanager put-secret-value --secret-id meeting-pipeline/api-key'),
    });
    expect(found['service answers']?.status).toBe('skipped');
    expect(found['signing secret']?.status).toBe('ok');
    expect(found['test webhook']).toMatchObject({ status: 'ok' });
    expect(found.alarms).toMatchObject({ status: 'ok', detail: 'none in ALARM' });
    expect(results.filter((r) => r.status === 'fail').map((r) => r.check)).toEqual(['API key']);
  });

  it('says how to create a secret that does not exist', { timeout: 60_000 }, async () => {
    const results = byCheck(
      await runDoctor({
        ...stackDependencies(secretsManager({}), cloudWatch([])),
        webhookUrl: undefined,
      }),
    );
    expect(results['signing secret']).toMatchObject({
      status: 'fail',
      detail: 'no secret meeting-pipeline/webhook-signing-secret in this account and region',
      advice: expect.stringContaining(
        'aws secretsmanager create-secret --name meeting-pipeline/webhook-signing-secret',
      ),
    });
  });
});
