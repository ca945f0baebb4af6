#!/usr/bin/env node
/**
 * `npm run quarantine -- list | redrive [--dry-run]`: webhooks the ingress refused
 * for their signature (kept in the payload bucket under quarantine/). `redrive`
 * checks each against the signing secret(s) as stored now and queues those that
 * verify; event processing drops any that were applied already.
 *
 * Reads the deployed names from the environment with the caller's AWS credentials
 * (PAYLOAD_BUCKET, EVENTS_QUEUE_URL, SIGNING_SECRET_ID: the stack outputs
 * PayloadBucketName, EventsQueueUrl and the signing secret's name). In local mode,
 * SIGNING_SECRET holds the secret itself and AWS_ENDPOINT_URL_* point at the emulators.
 */
import { parseArgs } from 'node:util';
import { redriveQuarantine } from '../lambdas/core/ingress/redrive-quarantine';
import { SQS_MAX_MESSAGE_BYTES } from '../lambdas/core/queue/queued-event';
import { staticSecret } from '../lambdas/core/secrets';
import { silentTelemetry } from '../lambdas/core/telemetry';
import { ingressDependencies } from '../lambdas/ingress/adapter';
import { sqsClient } from '../lambdas/shared/aws-clients';
import { dynamoClient } from '../lambdas/shared/dynamo-plain-client';
import { s3Client } from '../lambdas/shared/s3-client';
import { s3PayloadStore } from '../lambdas/shared/s3-payloads-on-demand';
import { s3Quarantine } from '../lambdas/shared/s3-quarantine';
import { secretsManagerSource } from '../lambdas/shared/secrets-manager';
import { DEFAULT_MAX_WEBHOOK_BODY_BYTES } from '../lib/config';

const USAGE = `usage: npm run quarantine -- list | redrive [--dry-run]
  with PAYLOAD_BUCKET, EVENTS_QUEUE_URL, TABLE_NAME and SIGNING_SECRET_ID (or SIGNING_SECRET) set`;

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { 'dry-run': { type: 'boolean', default: false }, help: { type: 'boolean', default: false } },
});
const command = positionals[0];
if (values.help || (command !== 'list' && command !== 'redrive')) {
  console.error(USAGE);
  process.exit(values.help ? 0 : 2);
}
const { PAYLOAD_BUCKET, EVENTS_QUEUE_URL, TABLE_NAME, SIGNING_SECRET_ID, SIGNING_SECRET } = process.env;
if (
  PAYLOAD_BUCKET === undefined ||
  (command === 'redrive' && (EVENTS_QUEUE_URL === undefined || TABLE_NAME === undefined))
) {
  console.error(
    `Set PAYLOAD_BUCKET${command === 'redrive' ? ', EVENTS_QUEUE_URL and TABLE_NAME' : ''} (the stack outputs).\n${USAGE}`,
  );
  process.exit(2);
}
const quarantine = s3Quarantine(s3Client(), PAYLOAD_BUCKET);

if (command === 'list') {
  const keys = await quarantine.list();
  for (const key of keys) {
    const entry = await quarantine.read(key);
    console.log(`${entry.received_at}  ${entry.reason.padEnd(26)}  ${String(entry.body.length).padStart(8)} B  ${key}`);
  }
  console.log(`${keys.length} quarantined`);
  process.exit(0);
}

if (SIGNING_SECRET_ID === undefined && SIGNING_SECRET === undefined) {
  console.error(`Set SIGNING_SECRET_ID (the secret's name) or, in local mode, SIGNING_SECRET.\n${USAGE}`);
  process.exit(2);
}
const signingSecret =
  SIGNING_SECRET !== undefined ? staticSecret(SIGNING_SECRET) : secretsManagerSource(SIGNING_SECRET_ID ?? '', 0);
const ingress = ingressDependencies(
  {
    EVENTS_QUEUE_URL: EVENTS_QUEUE_URL ?? '',
    PAYLOAD_BUCKET,
    SIGNING_SECRET_ID: SIGNING_SECRET_ID ?? 'local',
    MAX_BODY_BYTES: Number(process.env.MAX_BODY_BYTES ?? DEFAULT_MAX_WEBHOOK_BODY_BYTES),
    INLINE_MESSAGE_LIMIT_BYTES: SQS_MAX_MESSAGE_BYTES,
    SECRET_CACHE_SECONDS: 0,
    TABLE_NAME: TABLE_NAME ?? '',
    DEDUP_RETENTION_DAYS: Number(process.env.DEDUP_RETENTION_DAYS ?? 7),
  },
  { sqs: sqsClient(), payloads: s3PayloadStore(PAYLOAD_BUCKET), signingSecret, db: dynamoClient() },
  silentTelemetry,
);
const report = await redriveQuarantine(quarantine, ingress, { dryRun: values['dry-run'] });
const verb = values['dry-run'] ? 'would be re-driven' : 're-driven';
for (const key of report.redriven) console.log(`${verb.padEnd(18)} ${key}`);
for (const key of report.stillRefused) console.log(`${'still refused'.padEnd(18)} ${key}`);
for (const { key, reason } of report.failed) console.log(`${'failed'.padEnd(18)} ${key}: ${reason}`);
console.log(
  `${report.checked} checked: ${report.redriven.length} ${verb}, ${report.stillRefused.length} still refused, ${report.failed.length} failed`,
);
process.exit(report.failed.length > 0 ? 1 : 0);
