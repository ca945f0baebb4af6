/**
 * Heals webhooks the service never delivered (it gives up after about three quick
 * attempts). Finds meetings whose state is not final and has not changed for a
 * while, asks the service for each bot, and applies what it learns as a
 * `bot.state_change` with a deterministic idempotency key through the same
 * processing as webhooks, so it dedups like any other event. Final meetings
 * with no archive record get an archive job. Work per run is bounded.
 */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { ARCHIVABLE_STATES, isFinalState } from '../apply/state-order';
import type { ArchiveQueue } from '../archive/archive-job';
import { type ProcessDependencies, processQueuedEvent } from '../events/process-event';
import type { TableAccess } from '../store/dynamo';
import { GSI, keys, padMicros } from '../store/table-layout';
import { METRICS, type Telemetry } from '../telemetry';
import { NotFoundError, UnauthorizedError, type UpstreamClient } from '../upstream/client';
import type { Bot } from '../upstream/rest-contract';
import { BOT_STATES } from '../upstream/webhook-contract';

export interface ReconcileDependencies {
  table: TableAccess;
  upstream: Pick<UpstreamClient, 'getBot'>;
  processing: ProcessDependencies;
  archive: ArchiveQueue;
  telemetry: Telemetry;
  now(): number;
  /** A meeting whose state has not changed for this long is checked. */
  staleAfterMs: number;
  /** Meetings checked at most per run (and, separately, archive jobs queued at most). */
  maxMeetings: number;
}

export interface ReconcileReport {
  checked: number;
  healed: Array<{ botId: string; from: string; to: string }>;
  missing: string[];
  failures: Array<{ botId: string; error: string }>;
  archiveJobs: string[];
}

interface StoredMeeting {
  botId: string;
  state: string;
}

const NON_FINAL_STATES = BOT_STATES.filter((state) => !isFinalState(state));

export async function reconcileMeetings(deps: ReconcileDependencies): Promise<ReconcileReport> {
  const report: ReconcileReport = { checked: 0, healed: [], missing: [], failures: [], archiveJobs: [] };
  const cutoff = padMicros((deps.now() - deps.staleAfterMs) * 1000);

  const stale = await staleMeetings(deps.table, NON_FINAL_STATES, cutoff, deps.maxMeetings, false);
  for (const meeting of stale) {
    report.checked++;
    let bot: Bot;
    try {
      bot = await deps.upstream.getBot(meeting.botId);
    } catch (error) {
      if (error instanceof UnauthorizedError) throw error; // nothing will work until the key is replaced
      if (error instanceof NotFoundError) report.missing.push(meeting.botId);
      else
        report.failures.push({ botId: meeting.botId, error: error instanceof Error ? error.message : String(error) });
      continue;
    }
    if (bot.state === undefined || bot.state === meeting.state) continue;
    await applyObservedState(meeting, bot, deps);
    report.healed.push({ botId: meeting.botId, from: meeting.state, to: bot.state });
  }

  for (const meeting of await staleMeetings(deps.table, ARCHIVABLE_STATES, cutoff, deps.maxMeetings, true)) {
    await deps.archive.send({ bot_id: meeting.botId, reason: meeting.state });
    report.archiveJobs.push(meeting.botId);
  }

  if (report.healed.length > 0) deps.telemetry.metrics.emit(METRICS.reconcilerHealed, report.healed.length);
  deps.telemetry.log.info('reconciler run', {
    checked: report.checked,
    healed: report.healed,
    missing: report.missing,
    failures: report.failures.length,
    archive_jobs: report.archiveJobs.length,
  });
  return report;
}

/** What the service says, as the webhook it would have sent: keyed by bot, state and time, so a repeat dedups. */
async function applyObservedState(meeting: StoredMeeting, bot: Bot, deps: ReconcileDependencies): Promise<void> {
  const observedAt = latestEventTime(bot) ?? new Date(deps.now()).toISOString();
  const envelope = {
    idempotency_key: `reconciler:${meeting.botId}:${bot.state}:${observedAt}`,
    bot_id: meeting.botId,
    bot_metadata: bot.metadata ?? null,
    trigger: 'bot.state_change',
    data: {
      event_type: 'reconciled',
      event_sub_type: null,
      event_metadata: { source: 'reconciler' },
      old_state: meeting.state,
      new_state: bot.state,
      created_at: observedAt,
    },
  };
  await processQueuedEvent(
    {
      messageId: envelope.idempotency_key,
      body: JSON.stringify(envelope),
      attributes: { received_at: new Date(deps.now()).toISOString(), body_location: 'inline' },
    },
    deps.processing,
  );
}

function latestEventTime(bot: Bot): string | undefined {
  const times = (bot.events ?? [])
    .map((event) => event.created_at)
    .filter((at): at is string => typeof at === 'string' && !Number.isNaN(Date.parse(at)));
  return times.sort((a, b) => Date.parse(a) - Date.parse(b)).at(-1);
}

/** Meetings in `states` unchanged since `cutoff`, oldest first, at most `limit`; optionally only those not archived. */
async function staleMeetings(
  table: TableAccess,
  states: readonly string[],
  cutoff: string,
  limit: number,
  unarchivedOnly: boolean,
): Promise<StoredMeeting[]> {
  const found: StoredMeeting[] = [];
  for (const state of states) {
    let cursor: Record<string, unknown> | undefined;
    let pages = 0;
    do {
      const page = await table.db.send(
        new QueryCommand({
          TableName: table.tableName,
          IndexName: GSI.byState.name,
          KeyConditionExpression: '#pk = :pk AND #sk < :cutoff',
          ...(unarchivedOnly && { FilterExpression: 'attribute_not_exists(#archive)' }),
          ExpressionAttributeNames: {
            '#pk': GSI.byState.partitionKey,
            '#sk': GSI.byState.sortKey,
            ...(unarchivedOnly && { '#archive': 'archive' }),
          },
          ExpressionAttributeValues: { ':pk': keys.meetingsInState(state), ':cutoff': cutoff },
          Limit: limit - found.length,
          ExclusiveStartKey: cursor,
        }),
      );
      for (const item of page.Items ?? []) found.push({ botId: String(item.botId), state: String(item.state) });
      cursor = page.LastEvaluatedKey;
      pages++;
      // A filtered query may read whole pages of archived meetings; a few pages per state is enough per run.
    } while (cursor !== undefined && found.length < limit && pages < 5);
    if (found.length >= limit) break;
  }
  return found;
}
