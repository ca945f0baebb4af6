/**
 * Where the CLI sends its requests: a deployed stack (its CloudFormation outputs,
 * requests signed with SigV4), local mode (`.local/endpoints.json` from `npm run dev`)
 * or a bare API base (`--endpoint`). Resolved once per run.
 */
import { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import { isLoopbackHost } from '../lambdas/core/archive/address-policy';
import { DEAD_LETTER_QUEUES, type DeadLetterQueue, type DeadLetterQueueName } from './dlq/dead-letter-queues';
import { CliError, EXIT, UsageError } from './exit-codes';
import { findLocalEndpointsFile, type LocalEndpoints, lakeMirrorDirOf, readLocalEndpoints } from './local-endpoints';
import { type Fetch, type SigningOptions, signedFetch } from './signed-fetch';
import {
  DEFAULT_STACK_NAME,
  describeStackOutputs,
  dlqOutputs,
  STACK_OUTPUTS,
  type StackOutputs,
} from './stack-outputs';

export interface TargetOptions {
  stack?: string;
  region?: string;
  endpoint?: string;
  local?: boolean;
  endpointsFile?: string;
}

/** Queues, buckets and the table: for `dlq` and `quarantine`, which talk to AWS (or the emulators) directly. */
export interface PipelineResources {
  deadLetterQueues: DeadLetterQueue[];
  eventsQueueUrl?: string;
  /** The topic the stack's alarms notify: they are the alarms with it as an action (a deployed stack's output). */
  alarmTopicArn?: string;
  /** Where archive jobs go (a replay of an ended meeting queues one). */
  archiveQueueUrl?: string;
  payloadBucket?: string;
  tableName?: string;
  signingSecretId?: string;
  /** The stack's own bucket, which holds the meetings lake under `lake/`. */
  recordingsBucket?: string;
  /** The lake's Athena workgroup and Glue database (a deployed stack's outputs). */
  lake?: { workGroup: string; database: string };
  /** Local mode: where `search` and `query` mirror the lake's files for DuckDB (beside the endpoints file). */
  lakeMirrorDir?: string;
  /** Local mode: the webhook signing secret itself, as `npm run dev` wrote it to the endpoints file. */
  signingSecret?: string;
  /** Local mode: the SQS and S3 clients point at the emulators. */
  local: boolean;
}

export interface Target {
  /** For messages: which stack or endpoint. */
  label: string;
  /** The HTTP API's base, no trailing slash. */
  apiBaseUrl: string;
  scheduleUrl(id: string): string;
  /** Signs in AWS; plain on loopback. */
  fetch: Fetch;
  /** Undefined with `--endpoint`, which names only the HTTP API. */
  resources?: PipelineResources;
}

const SCHEDULE_ROUTE = '/schedules/{id}';
const withoutTrailingSlash = (url: string) => url.replace(/\/+$/, '');
const scheduleUrlUnder = (base: string) => (id: string) =>
  `${base}${SCHEDULE_ROUTE.replace('{id}', encodeURIComponent(id))}`;

export function targetFromStackOutputs(stackName: string, outputs: StackOutputs, signing: SigningOptions): Target {
  const scheduleApiUrl = outputs[STACK_OUTPUTS.scheduleApiUrl];
  const base =
    outputs[STACK_OUTPUTS.apiUrl] ??
    outputs[STACK_OUTPUTS.readApiUrl] ??
    (scheduleApiUrl?.endsWith(SCHEDULE_ROUTE) ? scheduleApiUrl.slice(0, -SCHEDULE_ROUTE.length) : undefined);
  if (base === undefined)
    throw new CliError(`Stack ${stackName} has no ${STACK_OUTPUTS.apiUrl} output: deploy the current version.`);
  const sources: Partial<Record<DeadLetterQueueName, string | undefined>> = {
    events: outputs[STACK_OUTPUTS.eventsQueueUrl],
    archive: outputs[STACK_OUTPUTS.archiveQueueUrl],
    erasure: outputs[STACK_OUTPUTS.erasureQueueUrl],
  };
  const deadLetterQueues: DeadLetterQueue[] = [];
  for (const [name, definition] of Object.entries(DEAD_LETTER_QUEUES) as Array<
    [DeadLetterQueueName, (typeof DEAD_LETTER_QUEUES)[DeadLetterQueueName]]
  >) {
    const keys = dlqOutputs(definition.outputName);
    const url = outputs[keys.url];
    if (url === undefined) continue;
    const arn = outputs[keys.arn];
    const sourceQueueUrl = sources[name];
    const eventBusName = name === 'calendar' ? outputs[STACK_OUTPUTS.calendarEventBusName] : undefined;
    deadLetterQueues.push({
      name,
      url,
      ...(arn !== undefined && { arn }),
      ...(sourceQueueUrl !== undefined && { sourceQueueUrl }),
      ...(eventBusName !== undefined && { eventBusName }),
    });
  }
  const optional = (key: keyof typeof STACK_OUTPUTS) => outputs[STACK_OUTPUTS[key]];
  const resources: PipelineResources = { deadLetterQueues, local: false };
  const eventsQueueUrl = optional('eventsQueueUrl');
  const archiveQueueUrl = optional('archiveQueueUrl');
  const alarmTopicArn = optional('alarmTopicArn');
  const payloadBucket = optional('payloadBucket');
  const tableName = optional('tableName');
  const signingSecretId = optional('signingSecretName');
  const recordingsBucket = optional('recordingsBucket');
  const workGroup = optional('lakeWorkGroup');
  const database = optional('lakeDatabase');
  return {
    label: `stack ${stackName} (${signing.region})`,
    apiBaseUrl: withoutTrailingSlash(base),
    scheduleUrl: scheduleApiUrl?.endsWith(SCHEDULE_ROUTE)
      ? (id) => scheduleApiUrl.replace('{id}', encodeURIComponent(id))
      : scheduleUrlUnder(withoutTrailingSlash(base)),
    fetch: signedFetch(signing),
    resources: {
      ...resources,
      ...(eventsQueueUrl !== undefined && { eventsQueueUrl }),
      ...(archiveQueueUrl !== undefined && { archiveQueueUrl }),
      ...(alarmTopicArn !== undefined && { alarmTopicArn }),
      ...(payloadBucket !== undefined && { payloadBucket }),
      ...(tableName !== undefined && { tableName }),
      ...(signingSecretId !== undefined && { signingSecretId }),
      ...(recordingsBucket !== undefined && { recordingsBucket }),
      ...(workGroup !== undefined && database !== undefined && { lake: { workGroup, database } }),
    },
  };
}

export function targetFromLocalEndpoints(file: string, endpoints: LocalEndpoints): Target {
  const base = withoutTrailingSlash(endpoints.readApiUrl ?? endpoints.scheduleApiUrl.replace(/\/schedules\/?$/, ''));
  const { sqs } = endpoints;
  return {
    label: `local mode (${file})`,
    apiBaseUrl: base,
    scheduleUrl: (id) => `${withoutTrailingSlash(endpoints.scheduleApiUrl)}/${encodeURIComponent(id)}`,
    fetch: (url, init) => fetch(url, init),
    resources: {
      deadLetterQueues: [
        { name: 'events', url: sqs.eventsDeadLetterQueueUrl, sourceQueueUrl: sqs.eventsQueueUrl },
        ...(sqs.archiveDeadLetterQueueUrl === undefined
          ? []
          : [{ name: 'archive' as const, url: sqs.archiveDeadLetterQueueUrl, sourceQueueUrl: sqs.archiveQueueUrl }]),
      ],
      eventsQueueUrl: sqs.eventsQueueUrl,
      archiveQueueUrl: sqs.archiveQueueUrl,
      payloadBucket: endpoints.s3.payloadBucket,
      tableName: endpoints.dynamodb.tableName,
      ...(endpoints.signingSecret !== undefined && { signingSecret: endpoints.signingSecret }),
      ...(endpoints.s3.recordingsBucket !== undefined && {
        recordingsBucket: endpoints.s3.recordingsBucket,
        lakeMirrorDir: lakeMirrorDirOf(file, endpoints.s3.recordingsBucket),
      }),
      local: true,
    },
  };
}

/** A bare API base: signed unless it is on this machine. */
export function targetFromEndpoint(endpoint: string, signing: () => Promise<SigningOptions>): Target {
  if (!URL.canParse(endpoint))
    throw new UsageError(`--endpoint takes the API's base URL, not ${JSON.stringify(endpoint)}`);
  const base = withoutTrailingSlash(endpoint);
  const loopback = isLoopbackHost(new URL(endpoint).hostname);
  let signed: Fetch | undefined;
  return {
    label: base,
    apiBaseUrl: base,
    scheduleUrl: scheduleUrlUnder(base),
    fetch: loopback
      ? (url, init) => fetch(url, init)
      : async (url, init) => {
          signed ??= signedFetch(await signing());
          return signed(url, init);
        },
  };
}

/**
 * Points the AWS SDK at the local emulators through the standard variables, as
 * local mode does for the handlers (lambdas/shared/aws-clients.ts reads them).
 */
function useLocalEmulators(endpoints: LocalEndpoints): void {
  const set = (name: string, value: string | undefined) => {
    if (value !== undefined) process.env[name] = value;
  };
  set('AWS_ENDPOINT_URL_SQS', endpoints.sqs.endpoint);
  set('AWS_ENDPOINT_URL_S3', endpoints.s3.endpoint);
  set('AWS_ENDPOINT_URL_DYNAMODB', endpoints.dynamodb.endpoint);
  // The emulators take any credentials; these keep the SDK from looking for real ones.
  process.env.AWS_ACCESS_KEY_ID = 'local';
  process.env.AWS_SECRET_ACCESS_KEY = 'local';
  delete process.env.AWS_SESSION_TOKEN;
  delete process.env.AWS_PROFILE;
}

/** The default AWS credential chain and region, as any SDK client resolves them. */
async function defaultSigning(region: string | undefined): Promise<SigningOptions & { client: CloudFormationClient }> {
  const client = new CloudFormationClient(region === undefined ? {} : { region });
  let resolvedRegion: string;
  try {
    resolvedRegion = await client.config.region();
  } catch {
    throw new UsageError('No AWS region: pass --region or set AWS_REGION (or a profile with a region).');
  }
  return { client, region: resolvedRegion, credentials: client.config.credentials };
}

export async function resolveTarget(options: TargetOptions): Promise<Target> {
  const local = options.local === true || options.endpointsFile !== undefined;
  const chosen = [options.endpoint !== undefined, local, options.stack !== undefined].filter(Boolean).length;
  if (chosen > 1) throw new UsageError('Choose one target: --stack NAME, --endpoint URL or --local.');
  // Through the environment, so every AWS client made later (lambdas/shared's factories too) uses it.
  if (options.region !== undefined) process.env.AWS_REGION = options.region;
  if (options.endpoint !== undefined) return targetFromEndpoint(options.endpoint, () => defaultSigning(options.region));
  if (local) {
    const file = options.endpointsFile ?? findLocalEndpointsFile();
    const endpoints = readLocalEndpoints(file);
    useLocalEmulators(endpoints);
    process.env.AWS_REGION = endpoints.region ?? process.env.AWS_REGION ?? (await localRegion());
    return targetFromLocalEndpoints(file, endpoints);
  }
  const stackName = options.stack ?? DEFAULT_STACK_NAME;
  const signing = await defaultSigning(options.region);
  process.env.AWS_REGION = signing.region;
  return targetFromStackOutputs(stackName, await describeStackOutputs(signing.client, stackName), signing);
}

/** The emulators' region, until endpoints.json names it (loaded only in local mode: it imports the emulator). */
async function localRegion(): Promise<string> {
  return (await import('../local/emulators/fauxqs')).LOCAL_REGION;
}

/** The resources, or a usage error saying which target has them. */
export function requireResources(target: Target, command: string): PipelineResources {
  if (target.resources === undefined)
    throw new CliError(
      `${command} talks to the queues and buckets: use --stack NAME or --local, not --endpoint.`,
      EXIT.usage,
    );
  return target.resources;
}
