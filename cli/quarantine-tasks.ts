/**
 * Listing and re-driving quarantined webhooks (lambdas/core/ingress/quarantine.ts):
 * shared by `meeting-pipeline quarantine` and `npm run quarantine`.
 */
import type { QuarantineEntry } from '../lambdas/core/ingress/quarantine';
import { type RedriveReport, redriveQuarantine } from '../lambdas/core/ingress/redrive-quarantine';
import { SQS_MAX_MESSAGE_BYTES } from '../lambdas/core/queue/queued-event';
import { staticSecret } from '../lambdas/core/secrets';
import { silentTelemetry } from '../lambdas/core/telemetry';
import { ingressDependencies } from '../lambdas/ingress/adapter';
import { DEFAULT_QUARANTINE_ENVIRONMENT } from '../lambdas/ingress/environment';
import { sqsClient } from '../lambdas/shared/aws-clients';
import { dynamoClient } from '../lambdas/shared/dynamo-plain-client';
import { s3Client } from '../lambdas/shared/s3-client';
import { s3PayloadStore } from '../lambdas/shared/s3-payloads-on-demand';
import { s3Quarantine } from '../lambdas/shared/s3-quarantine';
import { secretsManagerSource } from '../lambdas/shared/secrets-manager';
import { DEFAULT_MAX_WEBHOOK_BODY_BYTES } from '../lib/config';
import { CliError, EXIT } from './exit-codes';
import type { PipelineResources } from './target';

export interface RedriveSettings {
  payloadBucket: string;
  eventsQueueUrl: string;
  tableName: string;
  /** The secret's name in Secrets Manager, or (local mode) the base64 secret itself. */
  signingSecret: { id: string } | { value: string };
  /** As the ingress is deployed with; the defaults are the stack's. */
  maxBodyBytes?: number;
  dedupRetentionDays?: number;
}

export async function listQuarantined(payloadBucket: string): Promise<Array<{ key: string; entry: QuarantineEntry }>> {
  const quarantine = s3Quarantine(s3Client(), payloadBucket);
  const entries: Array<{ key: string; entry: QuarantineEntry }> = [];
  for (const key of await quarantine.list()) entries.push({ key, entry: await quarantine.read(key) });
  return entries;
}

export async function redriveQuarantined(settings: RedriveSettings, dryRun: boolean): Promise<RedriveReport> {
  const { signingSecret } = settings;
  const secret =
    'value' in signingSecret ? staticSecret(signingSecret.value) : secretsManagerSource(signingSecret.id, 0);
  const ingress = ingressDependencies(
    {
      EVENTS_QUEUE_URL: settings.eventsQueueUrl,
      PAYLOAD_BUCKET: settings.payloadBucket,
      SIGNING_SECRET_ID: 'id' in signingSecret ? signingSecret.id : 'local',
      MAX_BODY_BYTES: settings.maxBodyBytes ?? DEFAULT_MAX_WEBHOOK_BODY_BYTES,
      INLINE_MESSAGE_LIMIT_BYTES: SQS_MAX_MESSAGE_BYTES,
      SECRET_CACHE_SECONDS: 0,
      TABLE_NAME: settings.tableName,
      // The stack's default retention (lib/config.ts); a deployment with another one passes it.
      DEDUP_RETENTION_DAYS: settings.dedupRetentionDays ?? 7,
      // A re-drive keeps nothing in quarantine; the caps are the ingress's.
      ...DEFAULT_QUARANTINE_ENVIRONMENT,
    },
    { sqs: sqsClient(), payloads: s3PayloadStore(settings.payloadBucket), signingSecret: secret, db: dynamoClient() },
    silentTelemetry,
  );
  return redriveQuarantine(s3Quarantine(s3Client(), settings.payloadBucket), ingress, { dryRun });
}

export function quarantineListText(entries: Array<{ key: string; entry: QuarantineEntry }>): string {
  return [
    ...entries.map(
      ({ key, entry }) =>
        `${entry.received_at}  ${entry.reason.padEnd(26)}  ${String(entry.body.length).padStart(8)} B  ${key}`,
    ),
    `${entries.length} quarantined`,
  ].join('\n');
}

export function redriveReportText(report: RedriveReport, dryRun: boolean): string {
  const verb = dryRun ? 'would be re-driven' : 're-driven';
  return [
    ...report.redriven.map((key) => `${verb.padEnd(18)} ${key}`),
    ...report.stillRefused.map((key) => `${'still refused'.padEnd(18)} ${key}`),
    ...report.failed.map(({ key, reason }) => `${'failed'.padEnd(18)} ${key}: ${reason}`),
    `${report.checked} checked: ${report.redriven.length} ${verb}, ${report.stillRefused.length} still refused, ${report.failed.length} failed`,
  ].join('\n');
}

/** What a re-drive needs from the target: its bucket, queue and table, and the signing secret (or its name). */
export function quarantineRedriveSettings(
  resources: PipelineResources,
  secretIdFlag: string | undefined,
): RedriveSettings {
  const { payloadBucket, eventsQueueUrl, tableName } = resources;
  if (payloadBucket === undefined || eventsQueueUrl === undefined || tableName === undefined)
    throw new CliError(
      'This target lacks the payload bucket, events queue or table (outputs PayloadBucketName, EventsQueueUrl, MeetingsTableName).',
    );
  const secretId = secretIdFlag ?? process.env.SIGNING_SECRET_ID ?? resources.signingSecretId;
  // Local mode: SIGNING_SECRET when set (a secret being tried), else the one npm run dev wrote to the endpoints file.
  const secretValue = resources.local ? (process.env.SIGNING_SECRET ?? resources.signingSecret) : undefined;
  if (secretValue === undefined && secretId === undefined)
    throw new CliError(
      resources.local
        ? 'The endpoints file holds no signing secret (it is from before npm run dev wrote one): set SIGNING_SECRET to the secret npm run dev printed, or restart npm run dev.'
        : "Pass --signing-secret-id (the signing secret's name in Secrets Manager).",
      EXIT.usage,
    );
  return {
    payloadBucket,
    eventsQueueUrl,
    tableName,
    signingSecret: secretValue !== undefined ? { value: secretValue } : { id: secretId ?? '' },
  };
}
