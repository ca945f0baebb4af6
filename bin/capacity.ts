#!/usr/bin/env node
/**
 * `npm run capacity -- --meetings N [--aligned] [--utterances U] [-c key=value ...]`:
 * how far a configuration (cdk.json's context and -c overrides, as `cdk deploy`
 * takes them) scales and what it costs. Measures each webhook's cost by running
 * the real code against the local emulators, reads the limits from the
 * synthesized template, and exits 0 when every limit holds, 1 when one does not,
 * 2 on a bad flag.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { calendarReport, DEFAULT_CALENDAR_ASSUMPTIONS, formatCalendarReport } from '../capacity/calendar-load';
import { configFor, deployedLimits } from '../capacity/deployed';
import {
  DEFAULT_LAKE_WORKLOAD,
  formatLakeReport,
  type LakeProfile,
  lakeAssumptionsFor,
  lakeReport,
} from '../capacity/lake-load';
import { measureWebhookCosts } from '../capacity/measure';
import { type Assumptions, capacityReport, DEFAULT_ASSUMPTIONS } from '../capacity/model';
import { formatReport } from '../capacity/report';
import { DEFAULT_UTTERANCES_PER_HOUR } from '../capacity/workload';
import { ConfigError } from '../lib/config';

const HELP = `usage: npm run capacity -- --meetings N [--aligned] [--utterances U] [-c key=value ...]
  --meetings N          concurrent one-hour meetings (default 2000)
  --aligned             meetings start and end on the hour (the peak case)
  --utterances U        transcript webhooks per meeting-hour (default ${DEFAULT_UTTERANCES_PER_HOUR})
  -c key=value          configuration, as with cdk deploy (defaults from cdk.json)
  --account-concurrency N   the account's Lambda concurrency quota (default ${DEFAULT_ASSUMPTIONS.accountConcurrency})
  --recording-mb N      recording size per meeting-hour (default ${DEFAULT_ASSUMPTIONS.recordingMbPerHour})
  --ingress-p99-ms N    ingress p99 duration in AWS (default ${DEFAULT_ASSUMPTIONS.ingressP99Ms}; take it from CloudWatch)
  --batch-ms N          consumer duration per batch in AWS (default ${DEFAULT_ASSUMPTIONS.batchMs})
  --calendar-users N    company calendar users (default ${DEFAULT_CALENDAR_ASSUMPTIONS.users})
  --calendar-events N   events per user in the window (default ${DEFAULT_CALENDAR_ASSUMPTIONS.eventsPerUser})
  --calendar-pushes N   pushed changes per user-hour (default ${DEFAULT_CALENDAR_ASSUMPTIONS.pushesPerUserHour})
  --lake-meetings N     meetings a day written to the lake (default ${DEFAULT_LAKE_WORKLOAD.meetingsPerDay})
  --lake-utterances N   utterances per meeting (default ${DEFAULT_LAKE_WORKLOAD.utterancesPerMeeting})
  --lake-months N       months the lake keeps (default ${DEFAULT_LAKE_WORKLOAD.months})
  --lake-search-days N  days a ranged keyword search covers (default ${DEFAULT_LAKE_WORKLOAD.searchDays})
  --json                the report as JSON
  --write-profile FILE  also write the measured per-webhook profile to FILE
exit status: 0 the configuration holds, 1 it does not, 2 a bad flag`;

function fail(message: string): never {
  process.stderr.write(`capacity: ${message}\n${HELP}\n`);
  process.exit(2);
}

const positive = (name: string, text: string | undefined, fallback: number): number => {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0) fail(`--${name} takes a positive number, not ${JSON.stringify(text)}`);
  return value;
};

let args: ReturnType<typeof parse>;
function parse() {
  return parseArgs({
    options: {
      meetings: { type: 'string' },
      aligned: { type: 'boolean', default: false },
      utterances: { type: 'string' },
      c: { type: 'string', multiple: true, short: 'c' },
      'account-concurrency': { type: 'string' },
      'recording-mb': { type: 'string' },
      'ingress-p99-ms': { type: 'string' },
      'batch-ms': { type: 'string' },
      'calendar-users': { type: 'string' },
      'calendar-events': { type: 'string' },
      'calendar-pushes': { type: 'string' },
      'lake-meetings': { type: 'string' },
      'lake-utterances': { type: 'string' },
      'lake-months': { type: 'string' },
      'lake-search-days': { type: 'string' },
      json: { type: 'boolean', default: false },
      'write-profile': { type: 'string' },
      help: { type: 'boolean', default: false, short: 'h' },
    },
    strict: true,
  });
}
try {
  args = parse();
} catch (error) {
  fail((error as Error).message);
}
if (args.values.help) {
  process.stdout.write(`${HELP}\n`);
  process.exit(0);
}

const overrides: Record<string, string> = {};
for (const pair of args.values.c ?? []) {
  const at = pair.indexOf('=');
  if (at <= 0) fail(`-c takes key=value, not ${JSON.stringify(pair)}`);
  overrides[pair.slice(0, at)] = pair.slice(at + 1);
}
let config: ReturnType<typeof configFor>;
try {
  config = configFor(overrides);
} catch (error) {
  if (error instanceof ConfigError) fail(error.message);
  throw error;
}
const assumptions: Assumptions = {
  ...DEFAULT_ASSUMPTIONS,
  accountConcurrency: positive(
    'account-concurrency',
    args.values['account-concurrency'],
    DEFAULT_ASSUMPTIONS.accountConcurrency,
  ),
  recordingMbPerHour: positive('recording-mb', args.values['recording-mb'], DEFAULT_ASSUMPTIONS.recordingMbPerHour),
  ingressP99Ms: positive('ingress-p99-ms', args.values['ingress-p99-ms'], DEFAULT_ASSUMPTIONS.ingressP99Ms),
  batchMs: positive('batch-ms', args.values['batch-ms'], DEFAULT_ASSUMPTIONS.batchMs),
};
const meetings = positive('meetings', args.values.meetings, 2000);
const utterancesPerHour = positive('utterances', args.values.utterances, DEFAULT_UTTERANCES_PER_HOUR);

const limits = deployedLimits(config);
const consumer = Object.values(limits.functions).find((f) => f.service === 'process-events');
const profile = await measureWebhookCosts({
  batchSize: consumer?.eventSource?.batchSize ?? 10,
  logLevel: String((config as Record<string, unknown>).logLevel ?? 'INFO'),
});
if (args.values['write-profile'] !== undefined)
  writeFileSync(args.values['write-profile'], `${JSON.stringify(profile, null, 2)}\n`);
const report = capacityReport({
  meetings,
  aligned: args.values.aligned,
  utterancesPerHour,
  config,
  limits,
  profile,
  assumptions,
});
const calendar = calendarReport(config, {
  ...DEFAULT_CALENDAR_ASSUMPTIONS,
  users: positive('calendar-users', args.values['calendar-users'], DEFAULT_CALENDAR_ASSUMPTIONS.users),
  eventsPerUser: positive(
    'calendar-events',
    args.values['calendar-events'],
    DEFAULT_CALENDAR_ASSUMPTIONS.eventsPerUser,
  ),
  pushesPerUserHour: positive(
    'calendar-pushes',
    args.values['calendar-pushes'],
    DEFAULT_CALENDAR_ASSUMPTIONS.pushesPerUserHour,
  ),
});
// The lake's bytes per row and per column, as `npm run bench -- lake` measured them (the reviewed copy).
const lakeProfile = JSON.parse(
  readFileSync(new URL('../capacity/lake-profile.json', import.meta.url), 'utf8'),
) as LakeProfile;
const lake = lakeReport(
  lakeAssumptionsFor(config, {
    meetingsPerDay: positive('lake-meetings', args.values['lake-meetings'], DEFAULT_LAKE_WORKLOAD.meetingsPerDay),
    utterancesPerMeeting: positive(
      'lake-utterances',
      args.values['lake-utterances'],
      DEFAULT_LAKE_WORKLOAD.utterancesPerMeeting,
    ),
    months: positive('lake-months', args.values['lake-months'], DEFAULT_LAKE_WORKLOAD.months),
    searchDays: positive('lake-search-days', args.values['lake-search-days'], DEFAULT_LAKE_WORKLOAD.searchDays),
    rewriteShare: DEFAULT_LAKE_WORKLOAD.rewriteShare,
  }),
  lakeProfile,
);
const lakeHolds = lake.checks.every((check) => check.holds);
process.stdout.write(
  args.values.json
    ? `${JSON.stringify({ ...report, calendar, lake }, null, 2)}\n`
    : `${[...formatReport(report), '', ...formatCalendarReport(calendar), '', ...formatLakeReport(lake)].join('\n')}\n`,
);
process.exit(report.holds && calendar.holds && lakeHolds ? 0 : 1);
