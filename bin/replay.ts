#!/usr/bin/env node
/**
 * `npm run replay -- --bot bot_123 [--bot ...] [--rebuild]`: re-applies a bot's
 * stored events (the raw bodies the ledger keeps for the dedup retention).
 *
 * Reads the deployed names from the environment, as the function does
 * (TABLE_NAME, ARCHIVE_QUEUE_URL, PAYLOAD_BUCKET: the stack outputs
 * MeetingsTableName, ArchiveQueueUrl and the payload bucket), with the caller's
 * AWS credentials and region.
 */
import { parseArgs } from 'node:util';
import { replayBotEvents } from '../lambdas/core/events/replay';
import { silentTelemetry } from '../lambdas/core/telemetry';
import { describeIssues } from '../lambdas/core/validation';
import { processEventsDependencies } from '../lambdas/process-events/adapter';
import { processEventsEnvironmentSchema } from '../lambdas/process-events/environment';
import { sqsClient } from '../lambdas/shared/aws-clients';
import { documentClient } from '../lambdas/shared/dynamo-client';
import { s3Client } from '../lambdas/shared/s3-client';

const { values } = parseArgs({
  options: { bot: { type: 'string', multiple: true }, rebuild: { type: 'boolean', default: false } },
});
const bots = values.bot ?? [];
if (bots.length === 0) {
  console.error(
    'usage: npm run replay -- --bot <bot_id> [--bot <bot_id> ...] [--rebuild]\n  with TABLE_NAME, ARCHIVE_QUEUE_URL and PAYLOAD_BUCKET set',
  );
  process.exit(2);
}
const env = processEventsEnvironmentSchema.safeParse({
  DEDUP_RETENTION_DAYS: '7',
  ...process.env,
});
if (!env.success) {
  console.error(
    `Set TABLE_NAME, ARCHIVE_QUEUE_URL and PAYLOAD_BUCKET (the stack outputs): ${describeIssues(env.error).join('; ')}`,
  );
  process.exit(2);
}
const deps = processEventsDependencies(
  env.data,
  { db: documentClient(), sqs: sqsClient(), s3: s3Client() },
  silentTelemetry,
);
let failed = false;
for (const bot of bots) {
  const report = await replayBotEvents(bot, deps, { rebuild: values.rebuild });
  console.log(
    `${bot}: ${report.replayed}/${report.events} events re-applied${values.rebuild ? `, ${report.deletedItems} items deleted first` : ''}`,
  );
  for (const failure of report.failures) console.log(`  ${failure.idempotencyKey}: ${failure.error}`);
  failed ||= report.failures.length > 0;
}
process.exit(failed ? 1 : 0);
