/** The doctor's dependencies for a deployed stack (AWS SDK clients) and for local mode (the emulators). */
import { randomBytes } from 'node:crypto';
import { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { sqsClient } from '../../lambdas/shared/aws-clients';
import { s3Client } from '../../lambdas/shared/s3-client';
import { DEFAULT_SECRET_NAMES } from '../../lib/config';
import { CliError, EXIT } from '../exit-codes';
import type { LocalEndpoints } from '../local-endpoints';
import type { StackOutputs } from '../stack-outputs';
import { STACK_OUTPUTS } from '../stack-outputs';
import type { Target } from '../target';
import { DOCTOR_BOT_PREFIX, type DoctorDependencies } from './run-doctor';
import { type SecretReading, secretsManagerSecret } from './secret-checks';

export interface DoctorTiming {
  webhookWaitMs: number;
}

function common(target: Target, timing: DoctorTiming) {
  const resources = target.resources;
  if (resources === undefined)
    throw new CliError('doctor checks a whole deployment: use --stack NAME or --local.', EXIT.usage);
  return {
    fetch: (input: string | URL | Request, init?: RequestInit) => fetch(input, init),
    api: { apiBaseUrl: target.apiBaseUrl, fetch: target.fetch },
    sqs: sqsClient(),
    deadLetterQueues: resources.deadLetterQueues,
    s3: s3Client(),
    payloadBucket: resources.payloadBucket,
    botId: `${DOCTOR_BOT_PREFIX}${randomBytes(6).toString('hex')}`,
    webhookWaitMs: timing.webhookWaitMs,
    pollMs: 1_000,
    sleep: (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)),
    now: () => Date.now(),
  };
}

export function stackDoctor(target: Target, outputs: StackOutputs, timing: DoctorTiming): DoctorDependencies {
  const secrets = new SecretsManagerClient({});
  const topicArn = outputs[STACK_OUTPUTS.alarmTopicArn];
  return {
    ...common(target, timing),
    signingSecret: secretsManagerSecret(
      secrets,
      outputs[STACK_OUTPUTS.signingSecretName] ?? DEFAULT_SECRET_NAMES.signing,
    ),
    apiKey: secretsManagerSecret(secrets, outputs[STACK_OUTPUTS.apiKeySecretName] ?? DEFAULT_SECRET_NAMES.apiKey),
    serviceApiUrl: outputs[STACK_OUTPUTS.upstreamBaseUrl],
    webhookUrl: outputs[STACK_OUTPUTS.webhookUrl],
    alarms:
      topicArn === undefined
        ? { skip: `the stack has no ${STACK_OUTPUTS.alarmTopicArn} output: deploy the current version` }
        : { cloudWatch: new CloudWatchClient({}), topicArn },
  };
}

/** A value local mode wrote to its endpoints file (or, for an older file, the environment variable). */
function localSecret(file: string, field: string, value: string | undefined, variable: string): SecretReading {
  return {
    name: `${field} in ${file}`,
    async read() {
      const found = value ?? process.env[variable];
      if (found === undefined) throw new Error(`${file} has no ${field} and ${variable} is not set`);
      return found;
    },
    howToSet: () => `restart npm run dev, which writes ${field} to ${file}`,
    readAdvice: `restart npm run dev, which writes ${field} (an endpoints file from before it did: set ${variable})`,
  };
}

export function localDoctor(
  target: Target,
  file: string,
  endpoints: LocalEndpoints,
  timing: DoctorTiming,
): DoctorDependencies {
  return {
    ...common(target, timing),
    signingSecret: localSecret(file, 'signingSecret', endpoints.signingSecret, 'SIGNING_SECRET'),
    apiKey: localSecret(file, 'serviceApiKey', endpoints.serviceApiKey, 'UPSTREAM_API_KEY'),
    serviceApiUrl: endpoints.serviceApiUrl,
    webhookUrl: endpoints.webhookUrl,
    alarms: { skip: 'skipped: local mode has no CloudWatch alarms' },
  };
}
