/**
 * Retention (`meetingRetentionDays`): a daily run finds meetings listed more than N days
 * ago through the day listing (MEETINGS#<day>#<shard>, oldest day first) and queues their
 * erasure, at most `maxMeetings` a run so that one run never floods the erasure queue; the
 * rest are the next run's. Each erasure deletes its day-listing item, so a day whose
 * partitions are empty is done: the run keeps that as its mark and starts after it next time.
 * A listing of a meeting already erased is deleted, not queued (leftOverListing).
 * The lake's day partitions before the cutoff's day go first, whole (dropLakeDays): the erasures
 * queued then find no lake rows, instead of each rewriting its day's compacted files.
 */
import { DeleteCommand, GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { LakeObjects } from '../lake/lake-contract';
import { dropLakeDays, type LakeDaysDropped } from '../lake/lake-retention';
import type { TableAccess } from '../store/dynamo';
import { DAY_LISTING_SHARDS, keys, padMicros } from '../store/table-layout';
import { readErasureMark } from '../store/tombstone';
import { METRICS, type Telemetry } from '../telemetry';
import type { ErasureQueue } from './erasure-job';

export interface RetentionSettings {
  retentionDays: number;
  /** Erasures queued at most per run. */
  maxMeetings: number;
}

export interface RetentionDependencies {
  table: TableAccess;
  queue: ErasureQueue;
  telemetry: Telemetry;
  now(): Date;
  /** The lake: its days before the cutoff's are dropped whole (the erase function always passes it). */
  lake?: LakeObjects;
}

export interface RetentionRun {
  /** Meetings listed before this time are erased. */
  cutoff: string;
  queued: number;
  /** The oldest day that may still hold such meetings, kept for the next run. */
  mark: string;
  /** The lake's partitions dropped (days before the cutoff's day). */
  lake?: LakeDaysDropped;
}

/** Erasures one run queues at most: a day's backlog at 10,000 meetings a month drains in a few runs. */
export const RETENTION_MAX_MEETINGS_PER_RUN = 500;

const DAY_MS = 86_400_000;
/**
 * How far before the cutoff the first run looks (no mark yet): a meeting is listed at its join
 * time or first state, and the service takes join times at most 3 years ahead.
 */
export const FIRST_RUN_LOOKBACK_DAYS = 3 * 366;

const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const nextDay = (day: string) => dayOf(Date.parse(`${day}T00:00:00Z`) + DAY_MS);

export async function runRetention(settings: RetentionSettings, deps: RetentionDependencies): Promise<RetentionRun> {
  const cutoffMs = deps.now().getTime() - settings.retentionDays * DAY_MS;
  const lastDay = dayOf(cutoffMs);
  // Every meeting of a day before the cutoff's was listed before the cutoff.
  const lake =
    deps.lake === undefined
      ? undefined
      : await dropLakeDays(lastDay, { objects: deps.lake, telemetry: deps.telemetry });
  const start = (await readMark(deps.table)) ?? dayOf(cutoffMs - FIRST_RUN_LOOKBACK_DAYS * DAY_MS);
  let queued = 0;
  let mark = start;
  let emptySoFar = true;
  for (let day = start; day <= lastDay && queued < settings.maxMeetings; day = nextDay(day)) {
    let found = 0;
    for (let shard = 0; shard < DAY_LISTING_SHARDS && queued < settings.maxMeetings; shard++) {
      for (const { botId, key } of await listedBefore(
        deps.table,
        day,
        shard,
        cutoffMs,
        settings.maxMeetings - queued,
      )) {
        if (await leftOverListing(deps, botId, key)) continue;
        await deps.queue.send({ kind: 'erase', bot_id: botId, reason: 'retention' });
        queued++;
        found++;
      }
    }
    // The cutoff's own day fills up until it is past: never marked done.
    if (emptySoFar && found === 0 && day < lastDay) mark = nextDay(day);
    else emptySoFar = false;
  }
  if (mark !== start) await writeMark(deps.table, mark);
  const run: RetentionRun = { cutoff: new Date(cutoffMs).toISOString(), queued, mark, ...(lake && { lake }) };
  deps.telemetry.log.info('retention run', {
    cutoff: run.cutoff,
    queued,
    mark,
    limit: settings.maxMeetings,
    ...(lake && { lake_days_dropped: lake.days.length, lake_objects_dropped: lake.objects }),
  });
  deps.telemetry.metrics.emit(METRICS.retentionErasuresQueued, queued);
  return run;
}

/**
 * A listing of a meeting already erased (a writer listed it after both sweeps): deleted here, counted
 * as a late write, and not queued, so an erased bot is never queued again day after day. A meeting
 * still `erasing` is queued: its erasure may have stopped half way, and the job completes it.
 */
async function leftOverListing(
  deps: RetentionDependencies,
  botId: string,
  key: { pk: string; sk: string },
): Promise<boolean> {
  if ((await readErasureMark(deps.table, botId))?.status !== 'erased') return false;
  await deps.table.db.send(new DeleteCommand({ TableName: deps.table.tableName, Key: key }));
  deps.telemetry.log.warn('listing of an erased meeting removed', { bot_id: botId, listing: key.pk });
  deps.telemetry.metrics.emit(METRICS.erasedLateWritesRemoved, 1);
  return true;
}

type Listing = { botId: string; key: { pk: string; sk: string } };

/** Bots of one day partition listed before the cutoff (on the cutoff's own day, only the earlier ones). */
async function listedBefore(
  table: TableAccess,
  day: string,
  shard: number,
  cutoffMs: number,
  limit: number,
): Promise<Listing[]> {
  const bots: Listing[] = [];
  let cursor: Record<string, unknown> | undefined;
  do {
    const page = await table.db.send(
      new QueryCommand({
        TableName: table.tableName,
        KeyConditionExpression: 'pk = :pk AND sk < :cutoff',
        ExpressionAttributeValues: { ':pk': keys.meetingsOnDay(day, shard), ':cutoff': padMicros(cutoffMs * 1000) },
        ProjectionExpression: 'pk, sk, botId',
        Limit: limit - bots.length,
        ExclusiveStartKey: cursor,
      }),
    );
    for (const item of page.Items ?? []) {
      if (typeof item.botId === 'string')
        bots.push({ botId: item.botId, key: { pk: String(item.pk), sk: String(item.sk) } });
    }
    cursor = page.LastEvaluatedKey;
  } while (cursor !== undefined && bots.length < limit);
  return bots;
}

async function readMark(table: TableAccess): Promise<string | undefined> {
  const { Item } = await table.db.send(
    new GetCommand({ TableName: table.tableName, Key: keys.retentionMark(), ConsistentRead: true }),
  );
  return typeof Item?.oldestDay === 'string' ? Item.oldestDay : undefined;
}

async function writeMark(table: TableAccess, oldestDay: string): Promise<void> {
  await table.db.send(new PutCommand({ TableName: table.tableName, Item: { ...keys.retentionMark(), oldestDay } }));
}
