/**
 * GET /meetings: a day's meetings, newest first, from the day listing (table-layout.ts): each
 * shard's partition read from the cursor on, merged by time, then the meetings' items in one
 * batch read. `day` defaults to today (UTC); `state` keeps the meetings whose current state it is,
 * `outcome` those whose outcome has that status, so a filtered page may come back shorter than `limit`
 * (still with a cursor when more is left).
 */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { TableAccess } from '../store/dynamo';
import { DAY_LISTING_SHARDS, keys } from '../store/table-layout';
import { LIST_ENTRY_ATTRIBUTES, meetingListEntry } from './meeting-entry';
import { meetingItems } from './meeting-items';
import { decodeCursor, encodeCursor } from './page-cursor';
import { listingDay, outcomeFilter, pageLimit, type QueryParams, stateFilter } from './query-params';
import type { MeetingListEntry } from './read-api-contract';
import type { ReadDependencies } from './read-dependencies';

/** Batches of listing items a filtered page looks at, at most, before it answers with what it found. */
const FILTERED_SCAN_ROUNDS = 5;

interface Listed {
  sk: string;
  botId: string;
}

export async function listMeetings(
  params: QueryParams,
  deps: Pick<ReadDependencies, 'table' | 'now'>,
): Promise<{ meetings: MeetingListEntry[]; next_cursor: string | null }> {
  const day = listingDay(params, deps.now());
  const state = stateFilter(params);
  const outcome = outcomeFilter(params);
  const limit = pageLimit(params);
  const scope = `meetings|${day}|${state ?? ''}${outcome === undefined ? '' : `|${outcome}`}`;
  let after = decodeCursor(params.cursor, scope);

  const meetings: MeetingListEntry[] = [];
  let more = true;
  const filtered = state !== undefined || outcome !== undefined;
  const rounds = filtered ? FILTERED_SCAN_ROUNDS : 1;
  for (let round = 0; more && meetings.length < limit && round < rounds; round++) {
    const batch = await listedAfter(deps.table, day, after, limit - meetings.length);
    more = batch.more;
    const items = await meetingItems(
      deps.table,
      batch.listed.map((l) => l.botId),
      LIST_ENTRY_ATTRIBUTES,
    );
    for (const listed of batch.listed) {
      const entry = meetingListEntry(listed.botId, items.get(listed.botId));
      after = listed.sk;
      if (
        (state === undefined || entry.state === state) &&
        (outcome === undefined || entry.outcome?.status === outcome)
      )
        meetings.push(entry);
    }
  }
  return { meetings, next_cursor: more && after !== undefined ? encodeCursor(scope, after) : null };
}

/** The next `count` listed meetings older than `after`, across the day's shards. */
async function listedAfter(
  table: TableAccess,
  day: string,
  after: string | undefined,
  count: number,
): Promise<{ listed: Listed[]; more: boolean }> {
  const shards = await Promise.all(
    Array.from({ length: DAY_LISTING_SHARDS }, (_, shard) =>
      table.db.send(
        new QueryCommand({
          TableName: table.tableName,
          KeyConditionExpression: after === undefined ? 'pk = :pk' : 'pk = :pk AND sk < :after',
          ExpressionAttributeValues: { ':pk': keys.meetingsOnDay(day, shard), ...(after && { ':after': after }) },
          ProjectionExpression: 'sk, botId',
          ScanIndexForward: false,
          Limit: count,
        }),
      ),
    ),
  );
  const merged = shards
    .flatMap((page) => page.Items ?? [])
    .map((item) => ({ sk: String(item.sk), botId: String(item.botId) }))
    .sort((a, b) => (a.sk < b.sk ? 1 : a.sk > b.sk ? -1 : 0));
  const more = merged.length > count || shards.some((page) => page.LastEvaluatedKey !== undefined);
  return { listed: merged.slice(0, count), more };
}
