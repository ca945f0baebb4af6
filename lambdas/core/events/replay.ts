/**
 * Re-applies a bot's stored events from the ledger (raw bodies kept for the dedup
 * retention). Applying is idempotent, so a replay restores what is missing and
 * changes nothing that is right. With `rebuild`, what the webhooks made is cleared
 * first so the current code rebuilds it; what they did not make (the archive
 * record and its final transcript, the launch fields, the archive marker,
 * participants filled from the service) is kept.
 *
 * Safe by default: nothing is written unless `apply` is set, and a rebuild is
 * refused while the meeting shows events the ledger no longer holds (they
 * expired), since it would lose them. Webhooks keep arriving while it runs: a
 * rebuild reads the ledger again after re-applying and applies what came
 * meanwhile, so nothing applied during the rebuild is undone by its clearing.
 */
import { BatchWriteCommand, GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { applyWebhook } from '../apply/apply-webhook';
import { recordLaunchedMeeting } from '../apply/state-change';
import { GSI, keys, MEETING_SK, SK_PREFIX, SUMMARY_SK, TRANSCRIPT_FINAL_ATTRIBUTE } from '../store/table-layout';
import type { StoredEvent } from './event-ledger';
import { decodeWebhook, type ProcessDependencies } from './process-event';

export interface ReplayOptions {
  rebuild: boolean;
  /** Write; without it the report says what would happen. */
  apply: boolean;
  /** Rebuild even though the ledger lacks events the meeting shows (they are lost). */
  force?: boolean;
}

export interface ReplayReport {
  botId: string;
  applied: boolean;
  /** Events the ledger holds for the bot. */
  events: number;
  replayed: number;
  /** Events the meeting's items name that the ledger no longer holds (expired), up to 20. */
  missingFromLedger: string[];
  /** Items a rebuild clears (or cleared) before re-applying. */
  itemsToClear: number;
  /** Why a rebuild was not done, when it was refused. */
  refused?: string;
  failures: Array<{ idempotencyKey: string; error: string }>;
}

/** Meeting attributes only the webhooks write; everything else on the meeting is kept by a rebuild. */
const WEBHOOK_MEETING_ATTRIBUTES = [
  'state',
  'stateAt',
  'stateOrder',
  'lastEventAt',
  'lastEventMicros',
  // The meeting's index entry follows its state (the launcher's too: restored below).
  GSI.byState.partitionKey,
  GSI.byState.sortKey,
  // The day-index keys earlier releases wrote (the index is gone). Their summary on the meeting
  // stays: no ledger record of this release can write it again.
  'gsi1pk',
  'gsi1sk',
] as const;

type Item = Record<string, unknown>;

export async function replayBotEvents(
  botId: string,
  deps: ProcessDependencies,
  options: ReplayOptions,
): Promise<ReplayReport> {
  // The items first: the ledger records an event before applying it, so every key they name was
  // in the ledger before this read of it, and only truly expired events count as missing.
  const items = await botItems(botId, deps);
  const events = await deps.ledger.eventsOfBot(botId);
  const inLedger = new Set(events.map((event) => event.idempotencyKey));
  const missing = [...keysNamedBy(items)].filter((key) => !inLedger.has(key));
  // Once the archive took the service's transcript, every line is its (webhooks would not write them again).
  const transcriptFinal = items.some(
    (item) => item.sk === MEETING_SK && item[TRANSCRIPT_FINAL_ATTRIBUTE] !== undefined,
  );
  const toClear = items.filter(
    (item) => madeByWebhooks(item) && !(transcriptFinal && String(item.sk).startsWith(SK_PREFIX.utterance)),
  );
  const report: ReplayReport = {
    botId,
    applied: false,
    events: events.length,
    replayed: 0,
    missingFromLedger: missing.slice(0, 20),
    itemsToClear: options.rebuild ? toClear.length : 0,
    failures: [],
  };
  if (options.rebuild && missing.length > 0 && options.force !== true) {
    report.refused =
      `the meeting shows ${missing.length} event(s) the ledger no longer holds (expired after the dedup retention); ` +
      'a rebuild would lose what they wrote. Replay without --rebuild, or pass --force to rebuild anyway.';
    return report;
  }
  if (!options.apply) return report;

  report.applied = true;
  if (options.rebuild) await clear(botId, toClear, deps);
  // A webhook applied after the ledger was read may have been cleared with the rest: every event the
  // ledger gained meanwhile is applied again (the ledger records an event before it is applied).
  const replayed = new Set<string>();
  for (let pending = events, round = 0; pending.length > 0; round++) {
    if (round === MAX_CATCH_UP_ROUNDS) {
      report.failures.push({
        idempotencyKey: pending[0]?.idempotencyKey ?? '',
        error: `the bot kept receiving webhooks through ${MAX_CATCH_UP_ROUNDS} rounds of replay; run the replay again`,
      });
      break;
    }
    for (const event of pending) {
      replayed.add(event.idempotencyKey);
      try {
        await reapply(botId, event, deps);
        report.replayed++;
      } catch (error) {
        report.failures.push({
          idempotencyKey: event.idempotencyKey,
          error: error instanceof Error ? error.message : String(error),
        });
      }
    }
    if (!options.rebuild) break;
    pending = (await deps.ledger.eventsOfBot(botId)).filter((event) => !replayed.has(event.idempotencyKey));
  }
  report.events = replayed.size;
  await restoreDerivedState(botId, deps);
  return report;
}

/** Times a rebuild reads the ledger again for events that arrived while it ran. */
const MAX_CATCH_UP_ROUNDS = 5;

/**
 * What the replayed events do not give back: a launched meeting never heard from
 * shows its launch state again (so the reconciler still sees it), and an archived
 * meeting leaves the state index again (the backstop reads only unarchived ones).
 */
async function restoreDerivedState(botId: string, deps: ProcessDependencies): Promise<void> {
  const { Item: meeting } = await deps.table.db.send(
    new GetCommand({ TableName: deps.table.tableName, Key: keys.meeting(botId), ConsistentRead: true }),
  );
  if (meeting === undefined) return;
  if (meeting.archive !== undefined && meeting[GSI.byState.partitionKey] !== undefined) {
    await deps.table.db.send(
      new UpdateCommand({
        TableName: deps.table.tableName,
        Key: keys.meeting(botId),
        UpdateExpression: 'REMOVE #statePk, #stateSk',
        ExpressionAttributeNames: { '#statePk': GSI.byState.partitionKey, '#stateSk': GSI.byState.sortKey },
      }),
    );
  }
  const { scheduleId, scheduledJoinAt, meetingUrl } = meeting;
  if (
    meeting.state === undefined &&
    meeting.archive === undefined &&
    typeof scheduleId === 'string' &&
    typeof scheduledJoinAt === 'string' &&
    typeof meetingUrl === 'string'
  ) {
    await recordLaunchedMeeting(deps.table, {
      botId,
      scheduleId,
      joinAt: scheduledJoinAt,
      meetingUrl,
      state: undefined,
    });
  }
}

async function reapply(botId: string, event: StoredEvent, deps: ProcessDependencies): Promise<void> {
  const text =
    'inline' in event.body ? event.body.inline : (await deps.payloads.read(event.body.stored)).toString('utf8');
  await applyWebhook(
    decodeWebhook(text),
    {
      table: deps.table,
      botId,
      idempotencyKey: event.idempotencyKey,
      receivedAt: event.receivedAt,
      largeValues: deps.payloads,
    },
    deps.archive,
  );
}

/** Idempotency keys the bot's items record having seen. */
function keysNamedBy(items: Item[]): Set<string> {
  const named = new Set<string>();
  for (const item of items) {
    if (typeof item.idempotencyKey === 'string') named.add(item.idempotencyKey);
    for (const set of [item.appliedKeys, item.summaryKeys]) {
      if (set instanceof Set) for (const key of set) named.add(String(key));
    }
  }
  return named;
}

/** Items the webhooks wrote and a rebuild writes again (not the final transcript nor filled participants). */
function madeByWebhooks(item: Item): boolean {
  const sk = String(item.sk);
  if (sk === MEETING_SK) return false; // its webhook attributes are removed, the item stays
  if (sk === SUMMARY_SK) return true;
  if (item.finalized === true || item.filledFrom === 'archive') return false;
  return Object.values(SK_PREFIX).some((prefix) => sk.startsWith(prefix));
}

async function botItems(botId: string, deps: ProcessDependencies): Promise<Item[]> {
  const items: Item[] = [];
  let cursor: Record<string, unknown> | undefined;
  do {
    const page = await deps.table.db.send(
      new QueryCommand({
        TableName: deps.table.tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': keys.bot(botId) },
        ConsistentRead: true,
        ExclusiveStartKey: cursor,
      }),
    );
    items.push(...(page.Items ?? []));
    cursor = page.LastEvaluatedKey;
  } while (cursor !== undefined);
  return items;
}

async function clear(botId: string, items: Item[], deps: ProcessDependencies): Promise<void> {
  const { db, tableName } = deps.table;
  await db
    .send(
      new UpdateCommand({
        TableName: tableName,
        Key: keys.meeting(botId),
        UpdateExpression: `REMOVE ${WEBHOOK_MEETING_ATTRIBUTES.map((_, i) => `#a${i}`).join(', ')}`,
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeNames: Object.fromEntries(WEBHOOK_MEETING_ATTRIBUTES.map((name, i) => [`#a${i}`, name])),
      }),
    )
    .catch((error: unknown) => {
      if (!(error instanceof Error && error.name === 'ConditionalCheckFailedException')) throw error;
    });
  for (let i = 0; i < items.length; i += 25) {
    let requests = items.slice(i, i + 25).map((item) => ({ DeleteRequest: { Key: { pk: item.pk, sk: item.sk } } }));
    for (let attempt = 0; requests.length > 0; attempt++) {
      if (attempt > 8) throw new Error(`could not delete ${requests.length} items of ${botId}`);
      const result = await db.send(new BatchWriteCommand({ RequestItems: { [tableName]: requests } }));
      requests = (result.UnprocessedItems?.[tableName] ?? []) as typeof requests;
      if (requests.length > 0) await new Promise((resolve) => setTimeout(resolve, 50 * 2 ** attempt));
    }
  }
}
