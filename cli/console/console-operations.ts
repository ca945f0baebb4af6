/**
 * What the console does besides passing API routes on: the CLI's own operations on the
 * target's resources (dead-letter queues) and its lake search, answered as JSON for the pages.
 * Each is the function the CLI command calls, so the console has no second path to the data.
 */

import { replayBotEvents } from '../../lambdas/core/events/replay';
import { LakeQueryFailedError, LakeQueryRefusedError } from '../../lambdas/core/lake/lake-engine';
import { LakeInputError, type TranscriptSearchInput } from '../../lambdas/core/lake/lake-questions-contract';
import { searchTranscripts } from '../../lambdas/core/lake/lake-search';
import { sqsClient } from '../../lambdas/shared/aws-clients';
import { DEAD_LETTER_QUEUES, type DeadLetterQueueName } from '../dlq/dead-letter-queues';
import { inspectQueue } from '../dlq/inspect';
import { redriveDeadLetters } from '../dlq/redrive';
import { alarmsInAlarm } from '../doctor/alarm-check';
import { CliError } from '../exit-codes';
import { lakeEngineFor } from '../lake-engine';
import { listQuarantined, quarantineRedriveSettings, redriveQuarantined } from '../quarantine-tasks';
import { replayDependencies } from '../replay-dependencies';
import type { Target } from '../target';

/** The console's own routes (below /api): reads, then changes (refused with --read-only). */
export const OPERATION_READS = {
  deadLetterQueues: 'GET /dead-letter-queues',
  quarantine: 'GET /quarantine',
  alarms: 'GET /alarms',
  search: 'GET /search',
} as const;
export const OPERATION_CHANGES = {
  redriveDeadLetters: 'POST /dead-letter-queues/{name}/redrive',
  replayMeeting: 'POST /meetings/{bot_id}/replay',
  redriveQuarantine: 'POST /quarantine/redrive',
} as const;

/** A refusal the page shows as is: its status and reason. */
export class OperationRefused extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export interface DeadLetterQueueView {
  name: DeadLetterQueueName;
  holds: string;
  redrives_to: string;
  approximate_messages: number;
  in_flight: number;
  sample: { message_id: string; body: string } | null;
}

function resourcesOf(target: Target) {
  if (target.resources === undefined)
    throw new OperationRefused(
      400,
      'needs-stack-or-local',
      'Dead-letter queues need a stack (--stack) or local mode (--local); --endpoint names only the HTTP API',
    );
  return target.resources;
}

export async function listDeadLetterQueues(target: Target): Promise<DeadLetterQueueView[]> {
  const sqs = sqsClient();
  return Promise.all(
    resourcesOf(target).deadLetterQueues.map(async (queue) => {
      const depth = await inspectQueue(sqs, queue.url);
      return {
        name: queue.name,
        holds: DEAD_LETTER_QUEUES[queue.name].holds,
        redrives_to: DEAD_LETTER_QUEUES[queue.name].redrive,
        approximate_messages: depth.messages,
        in_flight: depth.inFlight,
        sample: depth.sample === null ? null : { message_id: depth.sample.messageId, body: depth.sample.body },
      };
    }),
  );
}

export async function redriveDeadLetterQueue(target: Target, name: string) {
  const queue = resourcesOf(target).deadLetterQueues.find((q) => q.name === name);
  if (queue === undefined)
    throw new OperationRefused(404, 'no-such-queue', `This target has no ${name} dead-letter queue`);
  const report = await redriveDeadLetters(queue, sqsClient(), {});
  return { name: report.name, via: report.via, moved: report.moved, failed: report.failed };
}

/** The lake's keyword search, as `meeting-pipeline search` asks it (Athena, or DuckDB in local mode). */
export async function searchLake(target: Target, query: URLSearchParams) {
  const limit = query.get('limit');
  const input: TranscriptSearchInput = { words: query.get('words') ?? '' };
  for (const key of ['from', 'to', 'speaker', 'cursor'] as const) {
    const value = query.get(key);
    if (value !== null && value !== '') input[key] = value;
  }
  if (limit !== null) input.limit = Number(limit);
  let engine: Awaited<ReturnType<typeof lakeEngineFor>>;
  try {
    engine = await lakeEngineFor(target);
  } catch (error) {
    throw new OperationRefused(400, 'no-lake', (error as Error).message);
  }
  try {
    return await searchTranscripts(engine, input);
  } catch (error) {
    if (error instanceof LakeInputError || error instanceof LakeQueryRefusedError)
      throw new OperationRefused(400, 'invalid-search', error.message);
    if (error instanceof LakeQueryFailedError)
      throw new OperationRefused(502, 'search-failed', `The search failed: ${error.message}`);
    throw error;
  } finally {
    engine.close();
  }
}

/**
 * Re-applies a meeting's stored webhooks (the ledger keeps their bodies for the dedup retention),
 * as `npm run replay -- --bot <bot>` does; `apply` false reports what it would do. Applying drops
 * nothing: what was applied already is recognised and skipped.
 */
export async function replayMeeting(target: Target, botId: string, apply: boolean) {
  const resources = resourcesOf(target);
  const replay = replayDependencies({
    TABLE_NAME: resources.tableName,
    ARCHIVE_QUEUE_URL: resources.archiveQueueUrl,
    PAYLOAD_BUCKET: resources.payloadBucket,
  });
  if (!replay.ok)
    throw new OperationRefused(
      400,
      'cannot-replay',
      'This target names no table, payload bucket or archive queue (the stack outputs MeetingsTableName, PayloadBucketName, ArchiveQueueUrl)',
    );
  const dependencies = replay.dependencies;
  const report = await replayBotEvents(botId, dependencies, { rebuild: false, apply });
  return {
    bot_id: report.botId,
    applied: report.applied,
    events: report.events,
    replayed: report.replayed,
    missing_from_ledger: report.missingFromLedger,
    failures: report.failures.map((f) => ({ idempotency_key: f.idempotencyKey, error: f.error })),
  };
}

/** Webhooks the ingress refused for their signature, kept in the payload bucket (`quarantine list`). */
export async function listQuarantine(target: Target) {
  const { payloadBucket } = resourcesOf(target);
  if (payloadBucket === undefined)
    throw new OperationRefused(400, 'no-payload-bucket', 'This target names no payload bucket (PayloadBucketName)');
  const entries = await listQuarantined(payloadBucket);
  return entries.map(({ key, entry }) => ({
    key,
    received_at: entry.received_at,
    reason: entry.reason,
    bytes: Buffer.byteLength(entry.body),
    sha256: entry.sha256,
  }));
}

/** Queues the quarantined webhooks that verify with the secret as stored now (`quarantine redrive`). */
export async function redriveQuarantine(target: Target, apply: boolean) {
  let settings: ReturnType<typeof quarantineRedriveSettings>;
  try {
    settings = quarantineRedriveSettings(resourcesOf(target), undefined);
  } catch (error) {
    if (error instanceof CliError) throw new OperationRefused(400, 'cannot-redrive', error.message);
    throw error;
  }
  const report = await redriveQuarantined(settings, !apply);
  return {
    applied: apply,
    checked: report.checked,
    redriven: report.redriven,
    still_refused: report.stillRefused,
    failed: report.failed,
  };
}

/** The stack's alarms in ALARM (those notifying its alarm topic); local mode has no CloudWatch. */
export async function listFiringAlarms(
  target: Target,
): Promise<{ available: true; firing: string[] } | { available: false; reason: string }> {
  const resources = target.resources;
  if (resources === undefined || resources.local)
    return { available: false, reason: 'local mode has no CloudWatch alarms' };
  if (resources.alarmTopicArn === undefined)
    return { available: false, reason: 'the stack has no AlarmTopicArn output: deploy the current version' };
  const { CloudWatchClient } = await import('@aws-sdk/client-cloudwatch');
  const cloudWatch = new CloudWatchClient({});
  try {
    return { available: true, firing: await alarmsInAlarm(cloudWatch, resources.alarmTopicArn) };
  } finally {
    cloudWatch.destroy();
  }
}
