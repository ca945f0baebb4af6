/**
 * `meeting-pipeline doctor`'s checks, Lambda-free and with every client passed in, so a
 * deployed stack, local mode and the tests run the same code. Every check runs whatever
 * another found; one that needs what failed says so and is skipped.
 */
import type { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import type { S3Client } from '@aws-sdk/client-s3';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { DeadLetterQueue } from '../dlq/dead-letter-queues';
import type { Fetch } from '../signed-fetch';
import { checkAlarms } from './alarm-check';
import { type CheckResult, failed, skipped } from './check';
import { checkDeadLetterQueue, checkQuarantine } from './queue-checks';
import { checkApiKey, checkSigningSecret, type SecretReading } from './secret-checks';
import { checkService } from './service-check';
import { webhookRoundTrip } from './webhook-round-trip';

export interface DoctorDependencies {
  signingSecret: SecretReading;
  apiKey: SecretReading;
  /** The service's API root (`…/api/v1/`); undefined when the target does not say. */
  serviceApiUrl: string | undefined;
  webhookUrl: string | undefined;
  /** Plain fetch: the service and the webhook URL. */
  fetch: typeof fetch;
  /** The pipeline's HTTP API (read and erase routes); signed in AWS. */
  api: { apiBaseUrl: string; fetch: Fetch };
  sqs: Pick<SQSClient, 'send'>;
  deadLetterQueues: ReadonlyArray<Pick<DeadLetterQueue, 'name' | 'url'>>;
  s3: Pick<S3Client, 'send'>;
  payloadBucket: string | undefined;
  /** The stack's alarms, or why there are none to check (local mode). */
  alarms: { cloudWatch: Pick<CloudWatchClient, 'send'>; topicArn: string } | { skip: string };
  /** A bot id no bot has, for the probes and the test webhook: `bot_doctor_…`. */
  botId: string;
  /** How long the test webhook may take to be applied. */
  webhookWaitMs: number;
  pollMs: number;
  sleep: (ms: number) => Promise<void>;
  now: () => number;
}

export const DOCTOR_BOT_PREFIX = 'bot_doctor_';

export async function runDoctor(deps: DoctorDependencies): Promise<CheckResult[]> {
  const results: CheckResult[] = [];
  const signing = await checkSigningSecret(deps.signingSecret);
  const apiKey = await checkApiKey(deps.apiKey);
  results.push(signing.result, apiKey.result);

  if (deps.serviceApiUrl === undefined)
    results.push(
      failed(
        'service answers',
        "this target does not name the service's API root",
        'deploy the current version of the stack (output UpstreamBaseUrl), or restart npm run dev',
      ),
    );
  else if (apiKey.key === undefined) results.push(skipped('service answers', 'not checked: the API key is not usable'));
  else
    results.push(
      ...(await checkService({
        baseUrl: deps.serviceApiUrl,
        apiKey: apiKey.key,
        apiKeyName: deps.apiKey.name,
        fetch: deps.fetch,
        probeBotId: deps.botId,
      })),
    );

  // Found before the test webhook, so what they count is what the pipeline held already.
  if (deps.deadLetterQueues.length === 0)
    results.push(failed('dead-letter queues', 'this target names none', 'deploy the current version of the stack'));
  for (const queue of deps.deadLetterQueues) results.push(await checkDeadLetterQueue(deps.sqs, queue));
  results.push(
    deps.payloadBucket === undefined
      ? failed('quarantine', 'this target names no payload bucket', 'deploy the current version of the stack')
      : await checkQuarantine(deps.s3, deps.payloadBucket),
  );

  if (deps.webhookUrl === undefined)
    results.push(
      failed(
        'test webhook',
        'this target names no webhook URL',
        'deploy the current version of the stack, or restart npm run dev',
      ),
    );
  else if (signing.keys?.[0] === undefined)
    results.push(skipped('test webhook', 'not sent: the signing secret is not usable'));
  else
    results.push(
      await webhookRoundTrip({
        webhookUrl: deps.webhookUrl,
        signingKey: signing.keys[0],
        fetch: deps.fetch,
        api: deps.api,
        botId: deps.botId,
        waitMs: deps.webhookWaitMs,
        pollMs: deps.pollMs,
        sleep: deps.sleep,
        now: deps.now,
      }),
    );

  results.push(
    'skip' in deps.alarms
      ? skipped('alarms', deps.alarms.skip)
      : await checkAlarms(deps.alarms.cloudWatch, deps.alarms.topicArn),
  );
  return results;
}
