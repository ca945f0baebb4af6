/**
 * The quarantine's caps, shared by every ingress instance: one counter item per minute in
 * the table (entries and bytes, one conditional update per body kept), and one per bot
 * and day. The ingress calls this only for a body that passed every cheap check and failed
 * the HMAC, so unsigned and malformed requests never touch the table.
 *
 * Under a flood the counter must not become the bottleneck or the bill: once an instance
 * sees the minute's cap reached it stops writing until the next minute, so a minute costs
 * at most the cap plus one refused update per instance, whatever the request rate (and
 * ~10 writes a second on one item is far below a partition's 1,000). The per-bot counter
 * is written only after the minute's cap admitted the body, so it is bounded the same way.
 */
import { type DynamoDBClient, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { isConditionFailed } from '../store/condition';
import { keys, TTL_ATTRIBUTE } from '../store/table-layout';
import { type QuarantineCap, type QuarantineLimits, quarantineBotHash } from './quarantine';

/** Counters outlive their window by this much (TTL deletes lazily; nothing reads an old window). */
const COUNTER_GRACE_SECONDS = 3600;

export function tableQuarantineCap(
  db: DynamoDBClient,
  tableName: string,
  limits: Pick<QuarantineLimits, 'maxEntriesPerMinute' | 'maxBytesPerMinute' | 'maxEntriesPerBotPerDay'>,
): QuarantineCap {
  /** The minute this instance saw full: nothing more is counted (or written) in it here. */
  let fullMinute = -1;

  /** Adds one body to a counter unless it holds `maxEntries` (or, given, would pass `maxBytes`). */
  const count = async (
    key: { pk: string; sk: string },
    expiresAt: number,
    bytes: number,
    cap: { maxEntries: number; maxBytes?: number },
  ): Promise<boolean> => {
    const bytesCheck = cap.maxBytes === undefined ? '' : ' AND #bytes <= :bytesLeft';
    try {
      await db.send(
        new UpdateItemCommand({
          TableName: tableName,
          Key: { pk: { S: key.pk }, sk: { S: key.sk } },
          UpdateExpression: 'ADD entries :one, #bytes :bytes SET #ttl = :ttl',
          ConditionExpression: `attribute_not_exists(entries) OR (entries < :max${bytesCheck})`,
          ExpressionAttributeNames: { '#bytes': 'bytes', '#ttl': TTL_ATTRIBUTE },
          ExpressionAttributeValues: {
            ':one': { N: '1' },
            ':bytes': { N: String(bytes) },
            ':ttl': { N: String(expiresAt) },
            ':max': { N: String(cap.maxEntries) },
            ...(cap.maxBytes !== undefined && { ':bytesLeft': { N: String(cap.maxBytes - bytes) } }),
          },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailed(error)) return false;
      throw error;
    }
  };

  return {
    async admit({ bytes, owner, at }) {
      const minute = Math.floor(at.getTime() / 60_000);
      if (minute === fullMinute) return 'per-minute';
      // Larger than a whole minute's bytes: never kept (the counter's first write would not check it),
      // and it says nothing of how full the minute is.
      if (bytes > limits.maxBytesPerMinute) return 'per-minute';
      const minuteAdmits = await count(
        keys.quarantineMinute(minute),
        (minute + 1) * 60 + COUNTER_GRACE_SECONDS,
        bytes,
        { maxEntries: limits.maxEntriesPerMinute, maxBytes: limits.maxBytesPerMinute },
      );
      if (!minuteAdmits) {
        fullMinute = minute;
        return 'per-minute';
      }
      if (owner === undefined) return undefined;
      const day = at.toISOString().slice(0, 10);
      const dayEnds = Math.floor(Date.parse(`${day}T00:00:00Z`) / 1000) + 86_400;
      const botAdmits = await count(
        keys.quarantineBotDay(quarantineBotHash(owner), day),
        dayEnds + COUNTER_GRACE_SECONDS,
        bytes,
        { maxEntries: limits.maxEntriesPerBotPerDay },
      );
      return botAdmits ? undefined : 'per-bot';
    },
  };
}
