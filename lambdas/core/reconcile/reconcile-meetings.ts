/**
 * Heals webhooks the service never delivered (it gives up after about three quick
 * attempts). Finds meetings whose state is not final and has not changed for a
 * while, asks the service for each bot, and applies what it learns as a
 * `bot.state_change` with a deterministic idempotency key through the same apply
 * core and ledger as webhooks, so it dedups like any other event and replays.
 * Final meetings with no archive record get an archive job. A bot our launcher
 * created is in the state index from its launch (state-change.ts,
 * recordLaunchedMeeting), due at its join time, so one never heard from is
 * checked too; one the service still holds `scheduled` for a later time waits
 * for that time.
 *
 * Built to keep healing at scale: each run takes the meetings checked longest
 * ago (a `reconciledAt` stamp), so permanently stale bots cannot fill every run;
 * a bot the service no longer knows is set aside after a few checks (counted,
 * alarmed); one meeting's failure is its own; calls to the service run a few at a
 * time; and a meeting gets a bounded number of backstop archive jobs. The state
 * index holds only unarchived final meetings (the archive removes its keys), so
 * the backstop reads no archived ones.
 */
import { QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { SERVICE_EVENTS_FIELD } from '../apply/meeting-outcome-item';
import { ARCHIVABLE_STATES, isFinalState, isoToMicros } from '../apply/state-order';
import type { ArchiveQueue } from '../archive/archive-job';
import { applyValidatedEvent, type ProcessDependencies } from '../events/process-event';
import { RECONCILER_KEY_PREFIX } from '../events/webhook-domain-events';
import { type TableAccess, writeIfCondition } from '../store/dynamo';
import { GSI, keys, padMicros } from '../store/table-layout';
import { METRICS, type Telemetry } from '../telemetry';
import { NotFoundError, UnauthorizedError, type UpstreamClient } from '../upstream/client';
import type { Bot } from '../upstream/rest-contract';
import { BOT_STATES, type StateChangeData, type WebhookEnvelope } from '../upstream/webhook-contract';

export interface ReconcileDependencies {
  table: TableAccess;
  upstream: Pick<UpstreamClient, 'getBot'>;
  processing: ProcessDependencies;
  archive: ArchiveQueue;
  telemetry: Telemetry;
  now(): number;
  /** A meeting whose state has not changed for this long is checked (and not again within this long). */
  staleAfterMs: number;
  /** Meetings checked at most per run (and, separately, archive jobs queued at most). */
  maxMeetings: number;
  /** Calls to the service in flight at once. */
  concurrency?: number;
}

export interface ReconcileReport {
  checked: number;
  /** States read from the service and applied as events: each one the consumer's metrics count once. */
  observed: number;
  healed: Array<{ botId: string; from: string; to: string }>;
  missing: string[];
  /** Bots the service answered 404 for `UNKNOWN_AFTER_MISSES` checks running: set aside. */
  unknown: string[];
  failures: Array<{ botId: string; error: string }>;
  archiveJobs: string[];
  /** Final meetings whose backstop jobs are used up (`MAX_BACKSTOP_JOBS`) and still unarchived. */
  archiveGivenUp: string[];
}

interface StoredMeeting {
  botId: string;
  state: string;
}

const NON_FINAL_STATES = BOT_STATES.filter((state) => !isFinalState(state));
/** 404s in a row after which a bot is taken to be gone from the service. */
export const UNKNOWN_AFTER_MISSES = 3;
/** Archive jobs the backstop queues for one meeting at most; after that it needs a person. */
export const MAX_BACKSTOP_JOBS = 3;
/** Index pages read per state partition and run: a bound on the work, not on what gets its turn. */
const MAX_PAGES_PER_PARTITION = 20;

export async function reconcileMeetings(deps: ReconcileDependencies): Promise<ReconcileReport> {
  const report: ReconcileReport = {
    checked: 0,
    observed: 0,
    healed: [],
    missing: [],
    unknown: [],
    failures: [],
    archiveJobs: [],
    archiveGivenUp: [],
  };
  const cutoff = padMicros((deps.now() - deps.staleAfterMs) * 1000);
  const recheckBefore = new Date(deps.now() - deps.staleAfterMs).toISOString();

  const stale = await staleMeetings(deps.table, NON_FINAL_STATES, cutoff, deps.maxMeetings, recheckBefore);
  await inParallel(stale, deps.concurrency ?? 4, async (meeting) => {
    report.checked++;
    try {
      await checkMeeting(meeting, deps, report);
    } catch (error) {
      if (error instanceof UnauthorizedError) throw error; // nothing will work until the key is replaced
      report.failures.push({ botId: meeting.botId, error: error instanceof Error ? error.message : String(error) });
    }
  });

  for (const meeting of await staleMeetings(deps.table, ARCHIVABLE_STATES, cutoff, deps.maxMeetings, undefined)) {
    try {
      if (await countBackstopJob(deps.table, meeting.botId)) {
        await deps.archive.send({ bot_id: meeting.botId, reason: meeting.state });
        report.archiveJobs.push(meeting.botId);
      } else {
        report.archiveGivenUp.push(meeting.botId);
      }
    } catch (error) {
      report.failures.push({ botId: meeting.botId, error: error instanceof Error ? error.message : String(error) });
    }
  }

  const { metrics } = deps.telemetry;
  if (report.healed.length > 0) metrics.emit(METRICS.reconcilerHealed, report.healed.length);
  if (report.observed > 0) metrics.emit(METRICS.reconcilerObserved, report.observed);
  if (report.unknown.length > 0) metrics.emit(METRICS.reconcilerUnknownBot, report.unknown.length);
  if (report.failures.length > 0) metrics.emit(METRICS.reconcilerFailed, report.failures.length);
  if (report.archiveGivenUp.length > 0) metrics.emit(METRICS.archiveBackstopExhausted, report.archiveGivenUp.length);
  deps.telemetry.log.info('reconciler run', {
    checked: report.checked,
    healed: report.healed,
    missing: report.missing,
    unknown: report.unknown,
    failures: report.failures,
    archive_jobs: report.archiveJobs.length,
    archive_given_up: report.archiveGivenUp,
  });
  return report;
}

async function checkMeeting(meeting: StoredMeeting, deps: ReconcileDependencies, report: ReconcileReport) {
  let bot: Bot;
  try {
    bot = await deps.upstream.getBot(meeting.botId);
  } catch (error) {
    if (!(error instanceof NotFoundError)) throw error;
    report.missing.push(meeting.botId);
    if (await countMiss(deps, meeting.botId)) report.unknown.push(meeting.botId);
    return;
  }
  await stamp(deps, meeting.botId, 'SET reconciledAt = :now, serviceMisses = :zero', { ':zero': 0 });
  if (bot.state === undefined) return;
  if (bot.state === meeting.state) {
    if (bot.state === 'scheduled') await dueAtJoinTime(meeting.botId, bot, deps);
    return;
  }
  const observedAt = latestEventTime(bot);
  // Without an event time the observation cannot be ordered against webhooks; a later run may see one.
  if (observedAt === undefined) throw new Error(`the service reports ${bot.state} without an event time`);
  report.observed++;
  if (await applyObservedState(meeting, { bot, state: bot.state, at: observedAt }, deps))
    report.healed.push({ botId: meeting.botId, from: meeting.state, to: bot.state });
}

/**
 * The service still waits to start the bot: if its join time is ahead (a schedule
 * moved after the launch), the meeting is not due before then, rather than
 * asking again every run until it is.
 */
async function dueAtJoinTime(botId: string, bot: Bot, deps: ReconcileDependencies): Promise<void> {
  const joinAt = normalizedTime(bot.join_at);
  if (joinAt === undefined || isoToMicros(joinAt) <= deps.now() * 1000) return;
  await writeIfCondition(() =>
    deps.table.db.send(
      new UpdateCommand({
        TableName: deps.table.tableName,
        Key: keys.meeting(botId),
        UpdateExpression: 'SET #stateSk = :due',
        // Only while it is indexed as scheduled: a state applied meanwhile keeps its own place.
        ConditionExpression: '#statePk IN (:scheduled, :scheduledUnsharded)',
        ExpressionAttributeNames: { '#statePk': GSI.byState.partitionKey, '#stateSk': GSI.byState.sortKey },
        ExpressionAttributeValues: {
          ':due': keys.meetingAt(isoToMicros(joinAt), botId),
          ':scheduled': keys.meetingsInState('scheduled', botId),
          ':scheduledUnsharded': keys.unshardedState('scheduled'),
        },
      }),
    ),
  );
}

/** Counts a 404; true when it is the one that sets the bot aside (out of the state index, marked unknown). */
async function countMiss(deps: ReconcileDependencies, botId: string): Promise<boolean> {
  const now = new Date(deps.now()).toISOString();
  const { Attributes } = await deps.table.db.send(
    new UpdateCommand({
      TableName: deps.table.tableName,
      Key: keys.meeting(botId),
      UpdateExpression: 'SET reconciledAt = :now ADD serviceMisses :one',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':now': now, ':one': 1 },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  // A second write only for the miss that reaches the limit (one a run, at most, per bot).
  if (Number(Attributes?.serviceMisses ?? 0) < UNKNOWN_AFTER_MISSES) return false;
  return writeIfCondition(() =>
    deps.table.db.send(
      new UpdateCommand({
        TableName: deps.table.tableName,
        Key: keys.meeting(botId),
        UpdateExpression: 'SET unknownToService = :now REMOVE #statePk, #stateSk',
        ConditionExpression: 'attribute_not_exists(unknownToService)',
        ExpressionAttributeNames: { '#statePk': GSI.byState.partitionKey, '#stateSk': GSI.byState.sortKey },
        ExpressionAttributeValues: { ':now': now },
      }),
    ),
  );
}

async function stamp(
  deps: ReconcileDependencies,
  botId: string,
  update: string,
  values: Record<string, unknown>,
): Promise<void> {
  await deps.table.db.send(
    new UpdateCommand({
      TableName: deps.table.tableName,
      Key: keys.meeting(botId),
      UpdateExpression: update,
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':now': new Date(deps.now()).toISOString(), ...values },
    }),
  );
}

/** Takes one of the meeting's backstop jobs; false when they are used up. */
function countBackstopJob(table: TableAccess, botId: string): Promise<boolean> {
  return writeIfCondition(() =>
    table.db.send(
      new UpdateCommand({
        TableName: table.tableName,
        Key: keys.meeting(botId),
        UpdateExpression: 'ADD backstopArchiveJobs :one',
        ConditionExpression: 'attribute_not_exists(backstopArchiveJobs) OR backstopArchiveJobs < :max',
        ExpressionAttributeValues: { ':one': 1, ':max': MAX_BACKSTOP_JOBS },
      }),
    ),
  );
}

/** Runs `work` over `items`, at most `limit` at a time. */
async function inParallel<T>(items: T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++] as T);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/**
 * What the service says, as the webhook it would have sent: keyed by bot, state
 * and time, so a repeat dedups. True when it became the meeting's state.
 */
async function applyObservedState(
  meeting: StoredMeeting,
  observed: { bot: Bot; state: string; at: string },
  deps: ReconcileDependencies,
): Promise<boolean> {
  const data: StateChangeData = {
    event_type: 'reconciled',
    event_sub_type: null,
    // The bot's own events ride along (the outcome reads their types and sub-types): with every webhook
    // lost, they are all we know of why the meeting went as it did.
    event_metadata: { source: 'reconciler', [SERVICE_EVENTS_FIELD]: serviceEvents(observed.bot) },
    old_state: meeting.state,
    new_state: observed.state,
    created_at: observed.at,
  };
  const envelope: WebhookEnvelope = {
    idempotency_key: `${RECONCILER_KEY_PREFIX}${meeting.botId}:${observed.state}:${observed.at}`,
    bot_id: meeting.botId,
    bot_metadata: observed.bot.metadata ?? null,
    trigger: 'bot.state_change',
    data,
  };
  const outcome = await applyValidatedEvent(
    {
      webhook: { trigger: 'bot.state_change', envelope, data },
      // The body the ledger keeps, so a replay applies the observation again.
      text: JSON.stringify(envelope),
      receivedAt: new Date(deps.now()).toISOString(),
    },
    deps.processing,
  );
  return outcome.effects?.stateApplied === true;
}

/**
 * The bot's events as the state changes' fields name them, times as webhooks spell them, in the service's
 * order; one without a type or a readable time is left out (it can be ordered against nothing).
 */
function serviceEvents(bot: Bot): Array<{ event_type: string; event_sub_type: string | null; created_at: string }> {
  return (bot.events ?? []).flatMap((event) => {
    const createdAt = normalizedTime(event.created_at);
    if (event.type === undefined || createdAt === undefined) return [];
    return [{ event_type: event.type, event_sub_type: event.sub_type ?? null, created_at: createdAt }];
  });
}

/**
 * The bot's latest event time, as the webhook contract spells it (ISO 8601 with
 * `Z`): the REST API's times are normalized first (`+0000`, a space separator),
 * and one that cannot be read is skipped rather than aborting the run.
 */
function latestEventTime(bot: Bot): string | undefined {
  let latest: { micros: number; iso: string } | undefined;
  for (const event of bot.events ?? []) {
    const iso = normalizedTime(event.created_at);
    if (iso === undefined) continue;
    const micros = isoToMicros(iso);
    if (latest === undefined || micros > latest.micros) latest = { micros, iso };
  }
  return latest?.iso;
}

/** `2026-11-20 10:00:00.123456+0000` and the like as `2026-11-20T10:00:00.123456Z` (valid ones kept); undefined if unreadable. */
export function normalizedTime(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  // Already as webhooks spell it: kept, so the same event has the same spelling either way.
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?(Z|[+-]\d{2}:\d{2})$/.test(value)) return value;
  const match = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}:\d{2})(\.\d{1,6})?(Z|[+-]\d{2}:?\d{2})$/.exec(value.trim());
  if (match === null) return undefined;
  const [, date, time, fraction = '', zone = 'Z'] = match;
  const offset =
    zone === 'Z' ? 0 : (zone.startsWith('-') ? -1 : 1) * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(-2)));
  const ms = Date.parse(`${date}T${time}Z`) - offset * 60_000;
  if (Number.isNaN(ms)) return undefined;
  return `${new Date(ms).toISOString().slice(0, 19)}${fraction.padEnd(fraction === '' ? 0 : 7, '0')}Z`;
}

/**
 * Meetings in `states` unchanged since `cutoff`, oldest first, at most `limit`;
 * with `recheckBefore`, only those not checked since then (the others had their turn).
 * A state's meetings are spread over the index's shards: each is read in due order
 * and the oldest of all are taken, as if they were one partition.
 */
async function staleMeetings(
  table: TableAccess,
  states: readonly string[],
  cutoff: string,
  limit: number,
  recheckBefore: string | undefined,
): Promise<StoredMeeting[]> {
  const found: StoredMeeting[] = [];
  for (const state of states) {
    const wanted = limit - found.length;
    const partitions = await Promise.all(
      keys
        .stateIndexPartitions(state)
        .map((partition) => staleInPartition(table, partition, cutoff, wanted, recheckBefore)),
    );
    const oldest = partitions
      .flat()
      .sort((a, b) => (a.due < b.due ? -1 : a.due > b.due ? 1 : 0))
      .slice(0, wanted);
    for (const { botId, state: shown } of oldest) found.push({ botId, state: shown });
    if (found.length >= limit) break;
  }
  return found;
}

/** Up to `limit` due meetings of one index partition, in due order. */
async function staleInPartition(
  table: TableAccess,
  partition: string,
  cutoff: string,
  limit: number,
  recheckBefore: string | undefined,
): Promise<Array<StoredMeeting & { due: string }>> {
  const found: Array<StoredMeeting & { due: string }> = [];
  let cursor: Record<string, unknown> | undefined;
  let pages = 0;
  do {
    const page = await table.db.send(
      new QueryCommand({
        TableName: table.tableName,
        IndexName: GSI.byState.name,
        KeyConditionExpression: '#pk = :pk AND #sk < :cutoff',
        FilterExpression:
          recheckBefore === undefined
            ? 'attribute_not_exists(#archive)'
            : 'attribute_not_exists(reconciledAt) OR reconciledAt < :recheck',
        ExpressionAttributeNames: {
          '#pk': GSI.byState.partitionKey,
          '#sk': GSI.byState.sortKey,
          ...(recheckBefore === undefined && { '#archive': 'archive' }),
        },
        ExpressionAttributeValues: {
          ':pk': partition,
          ':cutoff': cutoff,
          ...(recheckBefore !== undefined && { ':recheck': recheckBefore }),
        },
        ExclusiveStartKey: cursor,
      }),
    );
    for (const item of page.Items ?? []) {
      if (found.length < limit)
        found.push({ botId: String(item.botId), state: String(item.state), due: String(item[GSI.byState.sortKey]) });
    }
    cursor = page.LastEvaluatedKey;
    pages++;
  } while (cursor !== undefined && found.length < limit && pages < MAX_PAGES_PER_PARTITION);
  return found;
}
