/**
 * When an event was first accepted. The service re-sends a webhook when our answer
 * was slow or failed, and it may send an utterance's draft again after its
 * correction; the version that orders such re-sends must not depend on which
 * delivery got here, or got processed, first. So the ingress records the first
 * acceptance of each idempotency key (a conditional put) and every delivery of the
 * key carries that time; the consumer orders by it whatever order it sees.
 *
 * Uses the plain DynamoDB client: the ingress bundle stays small (no document
 * marshalling for a three-attribute item).
 */
import { type DynamoDBClient, GetItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { isConditionFailed } from '../store/dynamo';
import { keys, TTL_ATTRIBUTE } from '../store/table-layout';

export interface AcceptanceLog {
  /** Records `acceptedAt` for the key unless an earlier delivery did; returns the first time. */
  firstAcceptedAt(idempotencyKey: string, acceptedAt: string): Promise<string>;
}

export function tableAcceptanceLog(
  db: DynamoDBClient,
  tableName: string,
  options: { retentionSeconds: number; now(): number },
): AcceptanceLog {
  return {
    async firstAcceptedAt(idempotencyKey, acceptedAt) {
      const key = keys.acceptance(idempotencyKey);
      try {
        await db.send(
          new PutItemCommand({
            TableName: tableName,
            Item: {
              pk: { S: key.pk },
              sk: { S: key.sk },
              acceptedAt: { S: acceptedAt },
              [TTL_ATTRIBUTE]: { N: String(Math.floor(options.now() / 1000) + options.retentionSeconds) },
            },
            ConditionExpression: 'attribute_not_exists(pk)',
          }),
        );
        return acceptedAt;
      } catch (error) {
        if (!isConditionFailed(error)) throw error;
      }
      const { Item } = await db.send(
        new GetItemCommand({
          TableName: tableName,
          Key: { pk: { S: key.pk }, sk: { S: key.sk } },
          ConsistentRead: true,
          ProjectionExpression: 'acceptedAt',
        }),
      );
      // Expired between the two calls: this delivery is the first one left.
      return Item?.acceptedAt?.S ?? acceptedAt;
    },
  };
}

/**
 * Acceptance times as ISO 8601 with microseconds, strictly increasing within this
 * process: two webhooks accepted in the same millisecond keep their order (the
 * digits past the millisecond count them). Strings compare in time order.
 */
export function acceptanceClock(now: () => Date): () => string {
  let lastMs = -1;
  let sameMs = 0;
  return () => {
    const ms = now().getTime();
    if (ms > lastMs) {
      lastMs = ms;
      sameMs = 0;
    } else {
      sameMs = Math.min(sameMs + 1, 999); // a clock stepping back keeps counting on the last millisecond
    }
    return `${new Date(lastMs).toISOString().slice(0, 23)}${String(sameMs).padStart(3, '0')}Z`;
  };
}
