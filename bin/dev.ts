#!/usr/bin/env node
/**
 * `npm run dev`: the whole pipeline on this machine against a simulated meeting
 * assistant service; see the README's quick start. `npm run dev -- --help` lists the flags.
 */
import { accessSync, constants, rmSync, statSync } from 'node:fs';
import { type FlagValues, parseLine } from '../cli/flags';
import { DEFAULT_ENDPOINTS_FILE, type LocalEndpoints } from '../cli/local-endpoints';
import { isLoopbackHost } from '../lambdas/core/archive/address-policy';
import type { ProviderEndpoints } from '../lambdas/core/calendar/company/provider-contract';
import { DEFAULT_EVENTS_FILE } from '../local/event-log-publisher';
import { acquireInstanceLock, describeHolder } from '../local/instance-lock';
import { readCredentialsFile } from '../local/local-credentials';
import type { MeetingCheck } from '../local/local-stack';
import { portProblem } from '../local/port-check';
import { privateFolder, writePrivateFile } from '../local/private-files';
import {
  anyEndpointFlag,
  type ProviderEndpointFlags,
  providerEndpointsFromFlags,
} from '../local/provider-endpoint-flags';
import type { ReadBack } from '../local/read-back';

const HELP = `npm run dev -- [flags]: the pipeline locally against a simulated meeting assistant service

  --meetings N        demo meetings to schedule, 1 to 50 (default 1)
  --chaos             duplicate, reorder and drop a share of webhooks (the reconciler heals), and add three meetings
                      the bot never records: never admitted (Teams), denied (Zoom), ended while in the lobby (Zoom)
  --once              exit when every meeting is archived: 0 only if each stored meeting matches what was played
  --serve             no demo: keep the stack up and print its endpoints
  --resume            keep the previous run's data (.local/dynamodb, .local/events.jsonl); default: start clean
  --rate-limit N      the simulated service answers 429 with Retry-After past N POSTs a minute (default 3000)
  --step-ms N         milliseconds between steps of a simulated meeting (default 700)
  --recording-mb N    size of each simulated recording in MiB (default 5)
  --upstream URL      with --serve: run against this service (its API root, ending in /api/v1/) instead of the
                      simulated one: a vendor sandbox, or \`npm run simulator\`. UPSTREAM_API_KEY holds its API key and
                      SIGNING_SECRET its webhook signing secret; http:// only for a service on this machine
  --port N            port of the local webhook and schedule API (default: any free port)
  --calendar SOURCE   no demo: register an ICS feed (a file, served from 127.0.0.1, an https URL, or \`sample\`: a feed
                      dated from today) as calendar "dev", print each occurrence's decision and reason for the next
                      14 days, sync it, and say what the sync scheduled (and why not, when nothing)
  --calendar-simulators
                      no demo: start the Google Calendar and Microsoft Graph simulators on 127.0.0.1 with a sample
                      tenant each (five users; a weekly series across a DST change with a moved and a cancelled
                      instance, an all-hands in all five calendars, a declined meeting, one without a link, one
                      moved later), point the provider endpoints at them and register calendars "google-sample"
                      and "microsoft-sample"; not with the four endpoint flags below
  --calendar-secrets FILE
                      credentials of company calendars: a JSON object, secret name -> value (a service-account key
                      JSON, an app's client secret), read at each sync; the name is a source's credentials_secret
  --google-api URL    root of Google's Calendar (calendar/v3) and Directory (admin/directory/v1) APIs
                      (default: Google's own hosts)
  --google-token-url URL
                      Google's OAuth 2.0 token endpoint (default https://oauth2.googleapis.com/token)
  --microsoft-graph URL
                      Microsoft Graph with its version (default https://graph.microsoft.com/v1.0; a national
                      cloud's own, e.g. https://graph.microsoft.us/v1.0)
  --microsoft-login URL
                      the Entra login host (default https://login.microsoftonline.com)
                      Endpoint URLs are https (plain http only on this machine), without ?query or credentials.
  --help              this text

The endpoints (webhook URL, schedule API, emulators) are printed and written to .local/endpoints.json.
One local mode runs per folder: a second \`npm run dev\` there is refused while the first runs (.local/dev.lock).
Ctrl-C (or SIGTERM) stops it at any moment, start-up included, and exits 0.
SIGNING_SECRET (base64) chooses the signing secret; otherwise one is generated and printed.`;

/** A flag problem is one line for a person, never a stack trace. */
function usageError(message: string): never {
  oneLineExit(`${message} (npm run dev -- --help lists the flags)`);
}

/** Why this run cannot start, in one line, and exit 2. */
function oneLineExit(message: string): never {
  console.error(`npm run dev: ${message}`);
  process.exit(2);
}

function portMessage(port: number, problem: string): string {
  return problem === 'EADDRINUSE'
    ? `port ${port} is in use on 127.0.0.1 (another program, or another local mode, listens there); choose another --port or leave --port out for any free port`
    : `port ${port} cannot be bound on 127.0.0.1 (${problem}); choose another --port or leave --port out for any free port`;
}

const DEV_OPTIONS = {
  meetings: { type: 'string', default: '1' },
  chaos: { type: 'boolean', default: false },
  once: { type: 'boolean', default: false },
  serve: { type: 'boolean', default: false },
  resume: { type: 'boolean', default: false },
  'step-ms': { type: 'string', default: '700' },
  'recording-mb': { type: 'string', default: '5' },
  'rate-limit': { type: 'string' },
  upstream: { type: 'string' },
  port: { type: 'string' },
  calendar: { type: 'string' },
  'calendar-simulators': { type: 'boolean', default: false },
  'calendar-secrets': { type: 'string' },
  'google-api': { type: 'string' },
  'google-token-url': { type: 'string' },
  'microsoft-graph': { type: 'string' },
  'microsoft-login': { type: 'string' },
  help: { type: 'boolean', default: false },
} as const;
type DevFlags = FlagValues<typeof DEV_OPTIONS>;
/** One line for any mistake: a typo gets the closest flag; `--meetings -3` is a value, refused below. */
function parse(): DevFlags {
  try {
    const { values, positionals } = parseLine(process.argv.slice(2), DEV_OPTIONS);
    if (positionals.length > 0) usageError(`unexpected ${JSON.stringify(positionals[0])}: local mode takes flags only`);
    return values;
  } catch (error) {
    usageError((error as Error).message.split('\n')[0] ?? 'bad flags');
  }
}
const values = parse();
if (values.help) {
  console.log(HELP);
  process.exit(0);
}
/** A whole number within bounds, or a one-line error naming the flag. */
function wholeNumber(flag: string, text: string, min: number, max: number): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < min || value > max)
    usageError(`--${flag} takes a whole number from ${min} to ${max}, not ${JSON.stringify(text)}`);
  return value;
}
const meetings = wholeNumber('meetings', values.meetings, 1, 50);
const stepMs = wholeNumber('step-ms', values['step-ms'], 10, 60_000);
const recordingMb = wholeNumber('recording-mb', values['recording-mb'], 1, 2048);
const port = values.port === undefined ? undefined : wholeNumber('port', values.port, 1, 65_535);
const upstream = values.upstream === undefined ? undefined : upstreamOf(values.upstream);

/** The external service to run against: checked here so a mistake is one line, not a failure later. */
function upstreamOf(text: string): { baseUrl: string; apiKey: string } {
  if (!values.serve) usageError('--upstream runs with --serve (the service plays the meetings, not this demo)');
  if (!URL.canParse(text)) usageError(`--upstream takes the service's API root URL, not ${JSON.stringify(text)}`);
  const url = new URL(text);
  if (!url.pathname.endsWith('/api/v1/')) usageError(`--upstream must end in /api/v1/: ${text}`);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopbackHost(url.hostname)))
    usageError(`--upstream must be https (plain http only for a service on this machine): ${text}`);
  const apiKey = process.env.UPSTREAM_API_KEY;
  if (apiKey === undefined || apiKey === '') usageError('--upstream needs the service API key in UPSTREAM_API_KEY');
  if (process.env.SIGNING_SECRET === undefined)
    usageError('--upstream needs the webhook signing secret in SIGNING_SECRET');
  return { baseUrl: url.href, apiKey };
}
const rateLimit =
  values['rate-limit'] === undefined ? undefined : wholeNumber('rate-limit', values['rate-limit'], 1, 100_000);
const calendarSimulators = values['calendar-simulators'];
const providerEndpoints = providerEndpointsOf(values);

/** Where the company calendar providers are: the flags' URLs (checked), or the simulators'. */
function providerEndpointsOf(flags: ProviderEndpointFlags): ProviderEndpoints {
  if (calendarSimulators && anyEndpointFlag(flags))
    usageError(
      '--calendar-simulators points the provider endpoints at the simulators: leave out --google-api, --google-token-url, --microsoft-graph and --microsoft-login',
    );
  const result = providerEndpointsFromFlags(flags);
  if ('problem' in result) usageError(result.problem);
  return result.endpoints;
}
/** `--calendar`: `sample`, an http(s) URL, or a readable file here (checked now, before anything starts). */
function calendarSource(source: string | undefined): void {
  if (source === undefined || source === 'sample' || /^https?:\/\//.test(source)) return;
  let problem: string | undefined;
  try {
    if (!statSync(source).isFile()) problem = 'is not a file';
    else accessSync(source, constants.R_OK);
  } catch (error) {
    problem = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'does not exist' : 'cannot be read';
  }
  if (problem !== undefined)
    usageError(`--calendar ${source} ${problem}: give an ICS file, an https URL, or sample (a feed dated from today)`);
}
calendarSource(values.calendar);
const calendarSecretsFile = values['calendar-secrets'];
if (calendarSecretsFile !== undefined) {
  const secrets = readCredentialsFile(calendarSecretsFile);
  if (!(secrets instanceof Map)) usageError(`--calendar-secrets: ${secrets.problem}`);
}

// Nothing is reset until this run has the folder to itself and its port: a refusal leaves the other run's data alone.
// The operator's alone: it holds the signing secret, the service's API key and the meetings.
privateFolder('.local');
const locked = acquireInstanceLock('.local');
if ('heldBy' in locked)
  oneLineExit(
    `local mode already runs in this folder (${describeHolder(locked.heldBy)}); stop it first (Ctrl-C in its terminal, or kill ${locked.heldBy.pid}; if that process is not local mode, delete .local/dev.lock)`,
  );
const { lock } = locked;
process.on('exit', () => lock.release());

// Ctrl-C (SIGINT) or SIGTERM, at any moment: "stopping…" once, then what runs (waits, timers, pollers) ends before
// the emulators, and the run exits 0: it stopped as asked. A second Ctrl-C joins the stop under way.
let stopping = false;
/** Set once start-up is over; before that every emulator and server is in this process and ends with it. */
let stopServices: (() => Promise<void>) | undefined;
async function shutdown(code: number): Promise<void> {
  if (stopping) return;
  stopping = true;
  console.log('\nstopping…');
  // From here a call to an emulator that is going away fails as expected: nothing of it is printed.
  process.on('uncaughtException', () => undefined);
  process.on('unhandledRejection', () => undefined);
  await stopServices?.().catch(() => undefined);
  process.exit(code);
}
process.on('SIGINT', () => void shutdown(0));
process.on('SIGTERM', () => void shutdown(0));
if (port !== undefined) {
  const problem = await portProblem(port);
  if (problem !== undefined) oneLineExit(portMessage(port, problem));
}

// Loaded once the checks pass: a refusal is quick, and its one line is all it prints.
const { runCalendarDemo } = await import('../local/calendar-feed-demo');
const { LOCAL_REGION } = await import('../local/emulators/fauxqs');
const { newSigningSecret, startLocalStack } = await import('../local/local-stack');
const { readBack } = await import('../local/read-back');
const { localCredentials } = await import('../local/local-credentials');
const { DEFAULT_CHAOS, NO_CHAOS } = await import('../local/simulator/webhook-sender');

const dataDir = '.local/dynamodb';
if (!values.resume) {
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(DEFAULT_EVENTS_FILE, { force: true });
}
const signingSecret = process.env.SIGNING_SECRET ?? newSigningSecret();

console.log(
  `meeting-pipeline local mode: emulators, real handlers, ${upstream === undefined ? 'simulated meeting assistant service' : `the service at ${upstream.baseUrl}`}\n`,
);
// The simulators come first: the company calendars' endpoints and credentials are theirs.
const companyTenant = calendarSimulators
  ? await (await import('../local/company-tenant/company-tenant'))
      .startCompanyTenant()
      .catch((error: unknown) =>
        oneLineExit(`the calendar simulators cannot start: ${error instanceof Error ? error.message : String(error)}`),
      )
  : undefined;
const companyCalendars = {
  endpoints: companyTenant?.endpoints ?? providerEndpoints,
  credentials: localCredentials({
    ...(companyTenant !== undefined && { values: companyTenant.secrets }),
    ...(calendarSecretsFile !== undefined && { file: calendarSecretsFile }),
  }),
};
const stack = await startLocalStack({
  dataDir,
  eventsFile: DEFAULT_EVENTS_FILE,
  endpointsFile: DEFAULT_ENDPOINTS_FILE,
  signingSecret,
  chaos: values.chaos ? DEFAULT_CHAOS : NO_CHAOS,
  stepMs,
  recordingBytes: recordingMb * 1024 * 1024,
  reconcileEveryMs: 2_000,
  staleAfterMs: 5_000,
  seed: Date.now() % 1_000_000,
  ...(rateLimit !== undefined && { postsPerMinute: rateLimit }),
  ...(upstream !== undefined && { upstream }),
  ...(port !== undefined && { httpPort: port }),
  companyCalendars,
  print: (line) => console.log(line),
}).catch((error: unknown) => {
  // Another program may take the port between the check above and the bind.
  const code = (error as NodeJS.ErrnoException).code;
  if (port !== undefined && code === 'EADDRINUSE') oneLineExit(portMessage(port, code));
  throw error;
});
const endpoints = {
  webhookUrl: stack.webhookUrl,
  scheduleApiUrl: stack.scheduleApiUrl,
  readApiUrl: stack.readApiUrl,
  serviceApiUrl: stack.apiBaseUrl,
  region: LOCAL_REGION,
  signingSecret,
  serviceApiKey: stack.serviceApiKey,
  eventsFile: stack.eventsFile,
  dynamodb: { endpoint: process.env.AWS_ENDPOINT_URL_DYNAMODB, tableName: stack.resources.tableName },
  s3: {
    endpoint: process.env.AWS_ENDPOINT_URL_S3,
    payloadBucket: stack.resources.payloadBucket,
    recordingsBucket: stack.recordingsBucket,
  },
  sqs: {
    endpoint: process.env.AWS_ENDPOINT_URL_SQS,
    eventsQueueUrl: stack.resources.eventsQueueUrl,
    eventsDeadLetterQueueUrl: stack.resources.eventsDeadLetterQueueUrl,
    archiveQueueUrl: stack.resources.archiveQueueUrl,
    archiveDeadLetterQueueUrl: stack.resources.archiveDeadLetterQueueUrl,
  },
} satisfies LocalEndpoints;
writePrivateFile(DEFAULT_ENDPOINTS_FILE, `${JSON.stringify(endpoints, null, 2)}\n`);
lock.describe({ 'webhook URL': stack.webhookUrl, 'read API': stack.readApiUrl });
console.log(`  webhook URL       ${stack.webhookUrl}`);
console.log(`  schedule API      PUT/GET/DELETE ${stack.scheduleApiUrl}/{id}  (no auth on loopback)`);
console.log(`  read API          GET ${stack.readApiUrl}/meetings…  (npx --no-install meeting-pipeline --local …)`);
console.log(`  calendars         PUT/GET/DELETE ${stack.calendarApiUrl}/calendars/{id}, …/sync, …/preview`);
console.log(`  domain events     ${stack.eventsFile}  (one PutEvents entry a line)`);
console.log(
  `  emulators         DynamoDB ${endpoints.dynamodb.endpoint}, SQS and S3 ${endpoints.sqs.endpoint}  (all in .local/endpoints.json)`,
);
console.log(
  `  signing secret    ${process.env.SIGNING_SECRET ? '(from SIGNING_SECRET)' : `${signingSecret}  (set SIGNING_SECRET to choose one)`}`,
);
console.log(`  ${upstream === undefined ? 'simulated service' : 'service          '} ${stack.apiBaseUrl}`);
console.log(
  `  table             ${stack.resources.tableName} (${values.resume ? 'resumed' : 'fresh'}, data in ${dataDir})`,
);
if (companyTenant !== undefined || anyEndpointFlag(values) || calendarSecretsFile !== undefined)
  console.log(
    `  company calendars Google ${companyCalendars.endpoints.googleCalendarApi}, Graph ${companyCalendars.endpoints.microsoftGraph}${companyTenant === undefined ? '' : ' (the simulators)'}; secrets: ${[companyTenant && 'the sample tenant', calendarSecretsFile].filter(Boolean).join(' and ') || 'none (--calendar-secrets FILE)'}`,
  );
console.log('');

stopServices = async () => {
  await stack.stop();
  await companyTenant?.stop();
};

await runMode().catch(async (error: unknown) => {
  // Ctrl-C stopped the stack under the demo's wait or calls: shutdown exits.
  if (stopping) return;
  console.error(`npm run dev: ${error instanceof Error ? error.message : String(error)}`);
  await shutdown(1);
});

/** The calendar demo, serving, or the meetings demo, as the flags say. */
async function runMode(): Promise<void> {
  if (values.calendar !== undefined || companyTenant !== undefined) {
    if (values.calendar !== undefined)
      try {
        await runCalendarDemo({
          source: values.calendar,
          apiUrl: stack.calendarApiUrl,
          print: console.log,
          stamp: stack.stamp,
        });
      } catch (error) {
        console.error(`calendar: ${error instanceof Error ? error.message : String(error)}`);
        await shutdown(1);
      }
    if (companyTenant !== undefined) {
      const { runCompanyCalendarDemo } = await import('../local/company-calendar-demo');
      await runCompanyCalendarDemo({
        tenant: companyTenant,
        ...(stack.runCompanyCalendars !== undefined && { runOnce: stack.runCompanyCalendars }),
        apiUrl: stack.calendarApiUrl,
        print: console.log,
        stamp: stack.stamp,
      });
    }
    console.log('\nThe stack stays up; scheduled bots launch at their times. Ctrl-C stops.');
  } else if (values.serve) {
    console.log('Serving. POST signed webhooks to the URL above; Ctrl-C stops.');
  } else {
    const { demoMeetings } = await import('../local/demo-meetings');
    const demo = demoMeetings(Date.now().toString(36), meetings, values.chaos);
    const scheduleIds = demo.map((meeting) => meeting.scheduleId);
    for (const [i, { scheduleId: id, meetingUrl, scenario }] of demo.entries()) {
      const joinAt = new Date(Date.now() + 4_000 + i * 1_500);
      const result = await stack.scheduleMeeting(id, joinAt, meetingUrl, scenario);
      if ('error' in result) throw new Error(`scheduling ${id} failed: ${result.error.message}`);
      console.log(
        `${stack.stamp()}  schedule ${id}: join at ${joinAt.toISOString()}, launch at ${result.schedule.launchAt}${scenario === undefined ? '' : ` (${scenario})`}`,
      );
    }
    const archived = await stack.waitUntilArchived(scheduleIds, 60_000 + scheduleIds.length * 10_000);
    await stack.sender.drain();
    const checks = await stack.check(scheduleIds);
    printSummary(checks, archived);
    const readBacks = await readBackMeetings(checks);
    const ok = archived && checks.every((c) => c.ok) && readBacks.every((r) => r.problems.length === 0);
    if (values.once) await shutdown(ok ? 0 : 1);
    else console.log('\nThe stack stays up (webhook URL above). Ctrl-C stops.');
  }
}

function printSummary(checks: MeetingCheck[], archived: boolean): void {
  const { stats } = stack.sender;
  console.log(
    `\nwebhooks: ${stats.sent} sent, ${stats.duplicated} duplicated, ${stats.dropped} dropped, ${stats.delivered} delivered`,
  );
  console.log(
    `events: ${stack.counts.get('EventApplied') ?? 0} applied, ${stack.counts.get('EventDuplicate') ?? 0} duplicates skipped, ${stack.counts.get('ReconcilerHealed') ?? 0} healed by the reconciler\n`,
  );
  for (const check of checks) {
    const scenario = stack.played.get(check.botId)?.scenario;
    console.log(
      `${check.ok ? 'OK  ' : 'FAIL'} ${check.scheduleId} → ${check.botId}${scenario ? ` (played: ${scenario})` : ''}`,
    );
    console.log(`     state ${check.state}, ${check.utterances} utterances, ${check.participants} participants`);
    console.log(`     summary ${check.summary === undefined ? 'none' : `"${check.summary.slice(0, 70)}"`}`);
    if (check.recording)
      console.log(
        `     recording ${check.recording.key}, ${check.recording.bytes} bytes, sha256 ${check.recording.sha256.slice(0, 16)}…`,
      );
    for (const problem of check.problems) console.log(`     ✗ ${problem}`);
  }
  if (!archived) console.log('\nNot every meeting was archived in time.');
}

/** Reads each meeting back as a customer's system would: the read API, the recording link, the events file. */
async function readBackMeetings(checks: MeetingCheck[]): Promise<ReadBack[]> {
  const results: ReadBack[] = [];
  console.log(`\nread back through the read API (${stack.readApiUrl}) and ${stack.eventsFile}:`);
  for (const { botId } of checks) {
    const result = await readBack(botId, {
      readApiUrl: stack.readApiUrl,
      eventsFile: stack.eventsFile,
      acceptedKeys: stack.sender.acceptedKeys.get(botId) ?? new Set(),
      recorded: stack.played.get(botId)?.recording !== null,
    }).catch((error: unknown) => ({ botId, problems: [String(error)] }) as ReadBack);
    results.push(result);
    console.log(`${result.problems.length === 0 ? 'OK  ' : 'FAIL'} ${botId}`);
    if (result.transcripts !== undefined) {
      const sizes = Object.entries(result.transcripts).map(([format, t]) => `${format} ${t.bytes} B`);
      console.log(`     transcript: ${sizes.join(', ')}`);
      for (const line of result.transcripts.vtt.preview.filter((l) => l !== '')) console.log(`       ${line}`);
    }
    if (result.recording !== undefined)
      console.log(
        `     recording link: ${result.recording.bytes} bytes, sha256 ${result.recording.sha256.slice(0, 16)}… ${result.recording.matchesArchive ? 'matches the archive' : 'DIFFERS from the archive'}`,
      );
    if (result.deliveries !== undefined) {
      const outcomes = Object.entries(result.deliveries.byOutcome).map(([outcome, n]) => `${n} ${outcome}`);
      console.log(`     delivery log: ${result.deliveries.webhooks} webhooks (${outcomes.join(', ')})`);
    }
    if (result.events !== undefined) console.log(`     domain events: ${result.events.join(', ')}`);
    for (const problem of result.problems) console.log(`     ✗ ${problem}`);
  }
  return results;
}
