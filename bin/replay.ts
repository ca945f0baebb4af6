#!/usr/bin/env node
/**
 * `npm run replay -- --bot bot_123 [--bot ...] [--rebuild] [--apply] [--force]`:
 * re-applies a bot's stored events (the raw bodies the ledger keeps for the dedup
 * retention). Without --apply it only reports what it would do.
 *
 * Reads the deployed names from the environment, as the function does
 * (TABLE_NAME, ARCHIVE_QUEUE_URL, PAYLOAD_BUCKET: the stack outputs
 * MeetingsTableName, ArchiveQueueUrl and the payload bucket), with the caller's
 * AWS credentials and region.
 */
import { scriptLine } from '../cli/flags';
import { replayDependencies } from '../cli/replay-dependencies';
import { replayBotEvents } from '../lambdas/core/events/replay';

const USAGE =
  'usage: npm run replay -- --bot <bot_id> [--bot <bot_id> ...] [--rebuild] [--apply] [--force]\n' +
  '  without --apply, reports what it would do; with TABLE_NAME, ARCHIVE_QUEUE_URL and PAYLOAD_BUCKET set';
const OPTIONS = {
  bot: { type: 'string', multiple: true },
  rebuild: { type: 'boolean', default: false },
  apply: { type: 'boolean', default: false },
  force: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

const line = scriptLine('replay', OPTIONS);
const { usageError } = line;
if (line.values.help === true) {
  console.log(USAGE);
  process.exit(0);
}
if (line.positionals.length > 0) usageError(`unexpected ${JSON.stringify(line.positionals[0])}: name bots with --bot`);
const { values } = line;
const bots = values.bot ?? [];
if (bots.length === 0) usageError('which bots? name each with --bot <bot_id>');
const replay = replayDependencies(process.env);
if (!replay.ok) {
  console.error(
    `Set TABLE_NAME, ARCHIVE_QUEUE_URL and PAYLOAD_BUCKET (the stack outputs): ${replay.issues.join('; ')}`,
  );
  process.exit(2);
}
const deps = replay.dependencies;
let failed = false;
for (const bot of bots) {
  const report = await replayBotEvents(bot, deps, {
    rebuild: values.rebuild,
    apply: values.apply,
    force: values.force,
  });
  const verb = report.applied ? 're-applied' : 'would be re-applied';
  console.log(
    `${bot}: ${report.applied ? report.replayed : report.events}/${report.events} events ${verb}` +
      (values.rebuild
        ? `; ${report.itemsToClear} webhook-made items ${report.applied ? 'cleared' : 'to clear'} first`
        : ''),
  );
  if (report.missingFromLedger.length > 0)
    console.log(`  the ledger no longer holds: ${report.missingFromLedger.join(', ')}`);
  if (report.refused !== undefined) console.log(`  refused: ${report.refused}`);
  for (const failure of report.failures) console.log(`  ${failure.idempotencyKey}: ${failure.error}`);
  failed ||= report.failures.length > 0 || report.refused !== undefined;
}
if (!values.apply) console.log('dry run: nothing written; pass --apply to write');
process.exit(failed ? 1 : 0);
