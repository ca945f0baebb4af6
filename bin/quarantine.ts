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
 * `meeting-pipeline quarantine` does the same from the stack's outputs.
 */
import { scriptLine } from '../cli/flags';
import { listQuarantined, quarantineListText, redriveQuarantined, redriveReportText } from '../cli/quarantine-tasks';

const USAGE = `usage: npm run quarantine -- list | redrive [--dry-run]
  with PAYLOAD_BUCKET, EVENTS_QUEUE_URL, TABLE_NAME and SIGNING_SECRET_ID (or SIGNING_SECRET) set`;

const OPTIONS = {
  'dry-run': { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

const line = scriptLine('quarantine', OPTIONS);
const { usageError } = line;
const { values } = line;
const [command, extra] = line.positionals;
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}
if (command !== 'list' && command !== 'redrive')
  usageError(command === undefined ? 'list or redrive?' : `no command ${JSON.stringify(command)}: list or redrive`);
if (extra !== undefined) usageError(`unexpected ${JSON.stringify(extra)} after ${command}`);
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

if (command === 'list') {
  console.log(quarantineListText(await listQuarantined(PAYLOAD_BUCKET)));
  process.exit(0);
}

if (SIGNING_SECRET_ID === undefined && SIGNING_SECRET === undefined) {
  console.error(`Set SIGNING_SECRET_ID (the secret's name) or, in local mode, SIGNING_SECRET.\n${USAGE}`);
  process.exit(2);
}
const report = await redriveQuarantined(
  {
    payloadBucket: PAYLOAD_BUCKET,
    eventsQueueUrl: EVENTS_QUEUE_URL ?? '',
    tableName: TABLE_NAME ?? '',
    signingSecret: SIGNING_SECRET !== undefined ? { value: SIGNING_SECRET } : { id: SIGNING_SECRET_ID ?? '' },
    ...(process.env.MAX_BODY_BYTES !== undefined && { maxBodyBytes: Number(process.env.MAX_BODY_BYTES) }),
    ...(process.env.DEDUP_RETENTION_DAYS !== undefined && {
      dedupRetentionDays: Number(process.env.DEDUP_RETENTION_DAYS),
    }),
  },
  values['dry-run'],
);
console.log(redriveReportText(report, values['dry-run']));
process.exit(report.failed.length > 0 ? 1 : 0);
