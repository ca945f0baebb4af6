/** `quarantine list|redrive`: webhooks refused for their signature, kept in the payload bucket. */
import { defineCommand, print, printJson } from '../command';
import { CliError, EXIT } from '../exit-codes';
import {
  listQuarantined,
  quarantineListText,
  quarantineRedriveSettings,
  redriveQuarantined,
  redriveReportText,
} from '../quarantine-tasks';
import { requireResources } from '../target';

export const quarantineList = defineCommand({
  words: ['quarantine', 'list'],
  summary:
    'Webhooks the ingress refused for their signature (kept under quarantine/ in the payload bucket, a folder per bot named).',
  options: {},
  async run({ values, target }) {
    const { payloadBucket } = requireResources(await target(), 'quarantine list');
    if (payloadBucket === undefined) throw new CliError('This target names no payload bucket (PayloadBucketName).');
    const entries = await listQuarantined(payloadBucket);
    if (values.json === true)
      printJson(
        entries.map(({ key, entry }) => ({
          key,
          received_at: entry.received_at,
          reason: entry.reason,
          bytes: Buffer.byteLength(entry.body),
          sha256: entry.sha256,
        })),
      );
    else print(quarantineListText(entries));
    return undefined;
  },
});

export const quarantineRedrive = defineCommand({
  words: ['quarantine', 'redrive'],
  summary: `Queue the quarantined webhooks that verify with the signing secret as stored now.
The others stay; event processing drops any that were applied already.`,
  usage: '[--dry-run] [--signing-secret-id NAME]',
  flags: `  --dry-run               check only: say what would be queued
  --signing-secret-id ID  the signing secret's name (default: the stack output SigningSecretName, or
                          SIGNING_SECRET_ID). In local mode the secret itself: SIGNING_SECRET,
                          else the one in the endpoints file npm run dev wrote`,
  options: { 'dry-run': { type: 'boolean' }, 'signing-secret-id': { type: 'string' } },
  async run({ values, target }) {
    const resources = requireResources(await target(), 'quarantine redrive');
    const dryRun = values['dry-run'] === true;
    const report = await redriveQuarantined(quarantineRedriveSettings(resources, values['signing-secret-id']), dryRun);
    if (values.json === true) printJson(report);
    else print(redriveReportText(report, dryRun));
    return report.failed.length > 0 ? EXIT.error : undefined;
  },
});
