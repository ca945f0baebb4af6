/** GET /meetings/{bot_id}/participants: the participant records, first join and last leave as ISO times. */

import type * as z from 'zod/mini';
import type { TableAccess } from '../store/dynamo';
import { keys, SK_PREFIX } from '../store/table-layout';
import { utcTimestampOrNull } from '../text/utc-timestamp';
import { knownMeeting } from './known-bot';
import type { participantList } from './read-api-contract';
import { EVENTUALLY_CONSISTENT, type Item, itemsWithPrefix, type ReadConsistency } from './table-reads';

export async function readParticipants(
  botId: string,
  table: TableAccess,
  reads: ReadConsistency = EVENTUALLY_CONSISTENT,
): Promise<z.infer<typeof participantList>> {
  await knownMeeting(table, botId);
  const items = await itemsWithPrefix(table, keys.bot(botId), SK_PREFIX.participant, undefined, reads);
  return { bot_id: botId, participants: items.map(toParticipant) };
}

const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);

function toParticipant(item: Item) {
  return {
    participant_uuid: String(item.participantUuid ?? String(item.sk).slice(SK_PREFIX.participant.length)),
    name: text(item.name),
    user_uuid: text(item.userUuid),
    is_host: item.isHost === true,
    // The service's `timestamp_ms` of the first join and last leave: epoch milliseconds.
    joined_at: utcTimestampOrNull(item.firstJoinMs),
    left_at: utcTimestampOrNull(item.lastLeaveMs),
  };
}
