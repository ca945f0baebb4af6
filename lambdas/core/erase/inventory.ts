/**
 * Taking stock of a meeting before anything is deleted: the receipt's counts come from
 * here, so a retry after a crash half way through the deletions reports what the
 * erasure found, not what was left. Objects found only through other items (a ledger
 * record's claim-checked body, a quarantine entry of the first layout) are named exactly,
 * so they are still found once those items are gone.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { isoToMicros } from '../apply/state-order';
import { SUMMARY_PREFIX } from '../apply/summary';
import { archiveKeys } from '../archive/recording-store';
import { calendarOfSchedule } from '../calendar/calendar-ids';
import { LEGACY_QUARANTINE_PREFIX, quarantineBotPrefix, quarantineOwner } from '../ingress/quarantine';
import type { LakeObjects } from '../lake/lake-contract';
import { countLakeTraces, type LakeEraseDependencies } from '../lake/lake-erasure';
import { lakeDayOf } from '../lake/lake-layout';
import type { ClaimCheckPointer } from '../queue/queued-event';
import { versionsOfKey } from '../store/object-versions';
import { keys } from '../store/table-layout';
import type { EraseDependencies } from './erase-dependencies';
import type { ErasureCounts } from './receipt';
import { partitionItems } from './table-sweep';

/** What the meeting item said before it became the tombstone: kept on it until the erasure completes. */
export interface ErasureLeads {
  listedAt?: string;
  scheduleId?: string;
  /** The lake day the meeting's rows were written under (its LAKE_ATTRIBUTE), when they were. */
  lakeDay?: string;
}

/** The payload bucket's objects of the meeting named by key (claim checks, first-layout quarantine entries). */
export interface ErasurePlan extends ErasureLeads {
  counts?: ErasureCounts;
  payloadKeys?: string[];
}

/**
 * Prefixes that hold only the meeting's objects. Its quarantine folder holds every refused body that
 * names the bot (forged or not, all kept for it), so the erasure lists that folder, not the quarantine.
 */
export const meetingPrefixes = (botId: string, deps: Pick<EraseDependencies, 'payloadBucket' | 'recordingsBucket'>) => [
  { bucket: deps.payloadBucket, prefix: `${SUMMARY_PREFIX}${botId}/` },
  { bucket: deps.payloadBucket, prefix: quarantineBotPrefix(botId) },
  { bucket: deps.recordingsBucket, prefix: archiveKeys.meeting(botId) },
];

export async function takeStock(
  botId: string,
  leads: ErasureLeads,
  deps: EraseDependencies,
): Promise<Required<Pick<ErasurePlan, 'counts' | 'payloadKeys'>>> {
  const { table, objects } = deps;
  const meetingItems = await partitionItems(table, keys.bot(botId));
  const ledger = await partitionItems(table, keys.eventsOfBot(botId), ['bodyRef']);
  const payloadKeys = [...new Set([...claimCheckKeys(ledger, deps), ...(await quarantinedKeys(botId, deps))])];

  let payloadObjects = 0;
  for (const key of payloadKeys) payloadObjects += (await versionsOfKey(objects, deps.payloadBucket, key)).length;
  let recordingObjects = 0;
  for (const { bucket, prefix } of meetingPrefixes(botId, deps)) {
    const found = (await objects.listVersions(bucket, prefix)).length;
    if (bucket === deps.recordingsBucket) recordingObjects += found;
    else payloadObjects += found;
  }

  const lake =
    deps.lake === undefined ? undefined : await countLakeTraces(botId, lakeDaysOf(leads), lakeOf(deps, deps.lake));
  return {
    payloadKeys,
    counts: {
      meeting_items: meetingItems.length,
      ledger_records: ledger.length,
      payload_objects: payloadObjects,
      recording_objects: recordingObjects,
      day_listings: leads.listedAt !== undefined && (await exists(deps, dayListingKey(botId, leads.listedAt))) ? 1 : 0,
      schedule_links: leads.scheduleId !== undefined && (await scheduleNames(deps, leads.scheduleId, botId)) ? 1 : 0,
      calendar_feeds: (await feedCopyKey(leads, deps)) !== undefined ? 1 : 0,
      lake_rows: lake?.lake_rows ?? 0,
      lake_objects: lake?.lake_objects ?? 0,
      query_results: lake?.query_results ?? 0,
      ...(deps.lakeCopies !== undefined && { lake_copies: await deps.lakeCopies.filesHolding(botId) }),
    },
  };
}

/**
 * The lake days that may hold the meeting's rows: the one its rows were written under, and the day
 * of each listing time known (the writer files a meeting under its listing time's day).
 */
export function lakeDaysOf(plan: { listedAt?: string | readonly string[]; lakeDay?: string }): string[] {
  const listed = [plan.listedAt ?? []].flat().map((at) => lakeDayOf(at));
  return [...new Set([...(plan.lakeDay === undefined ? [] : [plan.lakeDay]), ...listed])];
}

/** The lake maintenance's view of the erase dependencies. */
export const lakeOf = (deps: EraseDependencies, objects: LakeObjects): LakeEraseDependencies => ({
  table: deps.table,
  objects,
  telemetry: deps.telemetry,
  now: deps.now,
});

/** The payload bucket's claim-checked bodies the ledger records point to. */
export function claimCheckKeys(
  ledger: readonly Record<string, unknown>[],
  deps: Pick<EraseDependencies, 'payloadBucket'>,
): string[] {
  return ledger.flatMap((record) => {
    const pointer = (record.bodyRef as ClaimCheckPointer | undefined)?.claimCheck;
    return pointer !== undefined && pointer.bucket === deps.payloadBucket ? [pointer.key] : [];
  });
}

export const dayListingKey = (botId: string, listedAt: string) => keys.dayListing(isoToMicros(listedAt), botId);

/**
 * The stored copy of the feed of the calendar that scheduled the meeting, when there is one. Dropped
 * whole rather than edited: one event may be a series, and a copy edited under the server's validators
 * would make the next unchanged (304) sync see the event as cancelled. Dropping costs one full fetch.
 */
export async function feedCopyKey(
  leads: Pick<ErasureLeads, 'scheduleId'>,
  deps: EraseDependencies,
): Promise<Record<string, string> | undefined> {
  const calendarId = leads.scheduleId === undefined ? undefined : calendarOfSchedule(leads.scheduleId);
  if (calendarId === undefined) return undefined;
  const key = keys.calendarFeed(calendarId);
  return (await exists(deps, key)) ? key : undefined;
}

async function exists(deps: EraseDependencies, key: Record<string, string>): Promise<boolean> {
  const { Item } = await deps.table.db.send(
    new GetCommand({ TableName: deps.table.tableName, Key: key, ConsistentRead: true, ProjectionExpression: 'pk' }),
  );
  return Item !== undefined;
}

async function scheduleNames(deps: EraseDependencies, scheduleId: string, botId: string): Promise<boolean> {
  const { Item } = await deps.table.db.send(
    new GetCommand({
      TableName: deps.table.tableName,
      Key: keys.schedule(scheduleId),
      ConsistentRead: true,
      ProjectionExpression: 'botId',
    }),
  );
  return Item?.botId === botId;
}

/**
 * Entries of the quarantine's first layout (keyed by content alone, no longer written): each is read
 * and kept if its body names the bot. Only until they expire (the quarantine retention after the
 * upgrade); from then on this is one empty listing. Entries of today's layout are found by prefix
 * (meetingPrefixes); those filed as unbound name no bot, so they were never any meeting's.
 */
async function quarantinedKeys(botId: string, deps: EraseDependencies): Promise<string[]> {
  const found: string[] = [];
  for (const key of await deps.quarantine.list(LEGACY_QUARANTINE_PREFIX)) {
    const entry = await deps.quarantine.read(key);
    if (namesBot(entry.body, botId)) found.push(key);
  }
  return found;
}

function namesBot(body: string, botId: string): boolean {
  try {
    return quarantineOwner(JSON.parse(body)) === botId;
  } catch {
    return false;
  }
}
