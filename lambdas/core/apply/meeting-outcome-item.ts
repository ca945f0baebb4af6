/**
 * Keeps the meeting item's `outcome` up to date: derived again from every stored state change of the
 * meeting (and whether its schedule was cancelled), so it does not depend on the order events were
 * applied in, and writing it twice writes the same value.
 */
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { deriveMeetingOutcome, type MeetingOutcome, type OutcomeEvent } from '../outcome/meeting-outcome';
import { FINAL_OUTCOME_STATUSES } from '../outcome/outcome-reasons';
import { queryAllWithPrefix, type TableAccess, writeIfCondition } from '../store/dynamo';
import { ERASURE_ATTRIBUTE, keys, OUTCOME_ATTRIBUTE, SK_PREFIX } from '../store/table-layout';

export { OUTCOME_ATTRIBUTE };

/** On the meeting item beside the outcome: how many facts it was derived from (they only grow). */
const OUTCOME_BASIS_ATTRIBUTE = 'outcomeBasis';
/** On the meeting item when its schedule was cancelled and the bot deleted before it started. */
export const CANCELLED_ATTRIBUTE = 'cancelledAt';

/**
 * Where the reconciler puts the bot's own `events` list (`GET bots/{id}`) in the metadata of the state
 * change it records: `{event_type, event_sub_type, created_at}` each, times as webhooks spell them.
 */
export const SERVICE_EVENTS_FIELD = 'service_events';

export interface RefreshedOutcome {
  outcome: MeetingOutcome;
  /**
   * This write made the outcome final (the item held none, or one not final): true for one write per
   * meeting, so a redelivery or a concurrent delivery does not count the meeting again. A final outcome
   * corrected later (its join event arrived after its end) is not counted again: the first one counts.
   */
  becameFinal: boolean;
}

/**
 * Derives the meeting's outcome and writes it on its item; undefined when the meeting has no item (or is
 * erased). A write derived from fewer facts than the one on the item (a concurrent, earlier read) is
 * refused, so the newest knowledge stays.
 */
export async function refreshMeetingOutcome(table: TableAccess, botId: string): Promise<RefreshedOutcome | undefined> {
  const [history, { Item: meeting }] = await Promise.all([
    queryAllWithPrefix(table, keys.bot(botId), SK_PREFIX.stateChange, {
      projection: {
        expression: 'eventType, eventSubType, oldState, newState, createdAt, eventMetadata',
      },
    }),
    table.db.send(
      new GetCommand({
        TableName: table.tableName,
        Key: keys.meeting(botId),
        ConsistentRead: true,
        ProjectionExpression: '#erasure, #cancelled, #outcome, pk',
        ExpressionAttributeNames: {
          '#erasure': ERASURE_ATTRIBUTE,
          '#cancelled': CANCELLED_ATTRIBUTE,
          '#outcome': OUTCOME_ATTRIBUTE,
        },
      }),
    ),
  ]);
  if (meeting === undefined || meeting[ERASURE_ATTRIBUTE] !== undefined) return undefined;
  const cancelled = meeting[CANCELLED_ATTRIBUTE] !== undefined;
  const outcome = deriveMeetingOutcome(history.flatMap(outcomeEventsOf), { cancelled });
  // Most state changes leave the outcome as it was (in the meeting, still): no write, no index copy.
  if (sameOutcome(meeting[OUTCOME_ATTRIBUTE], outcome)) return { outcome, becameFinal: false };
  let replaced: unknown;
  const written = await writeIfCondition(async () => {
    const { Attributes } = await table.db.send(
      new UpdateCommand({
        TableName: table.tableName,
        Key: keys.meeting(botId),
        UpdateExpression: 'SET #outcome = :outcome, #basis = :basis',
        ConditionExpression:
          'attribute_exists(pk) AND attribute_not_exists(#erasure) AND (attribute_not_exists(#basis) OR #basis <= :basis)',
        ExpressionAttributeNames: {
          '#outcome': OUTCOME_ATTRIBUTE,
          '#basis': OUTCOME_BASIS_ATTRIBUTE,
          '#erasure': ERASURE_ATTRIBUTE,
        },
        ExpressionAttributeValues: {
          ':outcome': { ...outcome },
          ':basis': history.length + (cancelled ? 1 : 0),
        },
        // Free: the outcome this write replaced, read atomically, so only one writer sees it not final.
        ReturnValues: 'UPDATED_OLD',
      }),
    );
    replaced = Attributes?.[OUTCOME_ATTRIBUTE];
  });
  return { outcome, becameFinal: written && isFinal(outcome) && !isFinal(replaced) };
}

function isFinal(outcome: unknown): boolean {
  if (typeof outcome !== 'object' || outcome === null) return false;
  const { status } = outcome as Record<string, unknown>;
  return FINAL_OUTCOME_STATUSES.some((final) => final === status);
}

function sameOutcome(stored: unknown, outcome: MeetingOutcome): boolean {
  if (typeof stored !== 'object' || stored === null) return false;
  const { status, reason, sentence } = stored as Record<string, unknown>;
  return status === outcome.status && reason === outcome.reason && sentence === outcome.sentence;
}

/**
 * The meeting's schedule was cancelled and its bot deleted before it started: says so on the meeting item
 * (the first time kept) and derives the outcome again. A bot with no meeting item yet gets none.
 */
export async function recordMeetingCancelled(
  table: TableAccess,
  botId: string,
  at: string,
): Promise<RefreshedOutcome | undefined> {
  await writeIfCondition(() =>
    table.db.send(
      new UpdateCommand({
        TableName: table.tableName,
        Key: keys.meeting(botId),
        UpdateExpression: 'SET #cancelled = :at',
        ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(#cancelled)',
        ExpressionAttributeNames: { '#cancelled': CANCELLED_ATTRIBUTE },
        ExpressionAttributeValues: { ':at': at },
      }),
    ),
  );
  return refreshMeetingOutcome(table, botId);
}

/** A stored state change as the derivation reads it, followed by the service's events it carried, if any. */
export function outcomeEventsOf(item: Record<string, unknown>): OutcomeEvent[] {
  if (typeof item.eventType !== 'string' || typeof item.createdAt !== 'string') return [];
  const metadata = parsedMetadata(item.eventMetadata);
  const own: OutcomeEvent = {
    event_type: item.eventType,
    event_sub_type: typeof item.eventSubType === 'string' ? item.eventSubType : null,
    old_state: typeof item.oldState === 'string' ? item.oldState : null,
    new_state: typeof item.newState === 'string' ? item.newState : null,
    created_at: item.createdAt,
    event_metadata: metadata ?? null,
  };
  const carried = metadata?.[SERVICE_EVENTS_FIELD];
  return [own, ...(Array.isArray(carried) ? carried.flatMap(serviceEvent) : [])];
}

function serviceEvent(value: unknown): OutcomeEvent[] {
  if (typeof value !== 'object' || value === null) return [];
  const { event_type, event_sub_type, created_at } = value as Record<string, unknown>;
  if (typeof event_type !== 'string' || typeof created_at !== 'string') return [];
  return [{ event_type, event_sub_type: typeof event_sub_type === 'string' ? event_sub_type : null, created_at }];
}

function parsedMetadata(text: unknown): Record<string, unknown> | undefined {
  if (typeof text !== 'string') return undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
