import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { PayloadStore } from '../queue/payload-store';
import { type TableAccess, writeIfCondition } from '../store/dynamo';

/** What every apply step knows about the event it applies. */
export interface ApplyContext {
  table: TableAccess;
  botId: string;
  idempotencyKey: string;
  /** When the ingress first accepted the webhook (ISO 8601). */
  receivedAt: string;
  /** Where a value too large for an item goes (a long summary); S3 in AWS and local mode. */
  largeValues?: PayloadStore;
  /**
   * False when the ledger already held this event: its key is on the item already, nothing to remember.
   * Undefined when unknown (the ingress recorded it): the items tell whether an earlier delivery applied it.
   */
  firstDelivery?: boolean;
}

/**
 * A re-send refused as older is still remembered on the item, so that a manual
 * resend of it after the dedup records expired (accepted anew, with a new time)
 * is refused too. Only on the item that exists; the cost is paid by refusals.
 * True when the item knew the key already (or the ledger said it was seen): a redelivery.
 */
export async function rememberAppliedKey(
  ctx: ApplyContext,
  key: Record<string, string>,
  keySet: 'appliedKeys' | 'summaryKeys',
): Promise<boolean> {
  if (ctx.firstDelivery === false) return true;
  const remembered = await writeIfCondition(() =>
    ctx.table.db.send(
      new UpdateCommand({
        TableName: ctx.table.tableName,
        Key: key,
        UpdateExpression: 'ADD #keys :keys',
        ConditionExpression: 'attribute_exists(pk) AND NOT contains(#keys, :key)',
        ExpressionAttributeNames: { '#keys': keySet },
        ExpressionAttributeValues: { ':keys': new Set([ctx.idempotencyKey]), ':key': ctx.idempotencyKey },
      }),
    ),
  );
  return !remembered;
}

/**
 * Version of an event among re-sends of the same thing (a corrected utterance, a
 * new summary): the one first accepted last wins (`receivedAt` is the event's
 * first acceptance by the ingress, the same on every delivery), ties broken by key so that every order
 * of processing ends the same way. Items written by version also keep the set of
 * keys applied to them, so redelivering an applied event never counts as newer.
 */
export const arrivalVersion = (ctx: ApplyContext): string => `${ctx.receivedAt}#${ctx.idempotencyKey}`;

/** Arbitrary JSON is kept as text: DynamoDB numbers cannot hold every JSON number. */
export const jsonText = (value: unknown): string | null =>
  value === undefined || value === null ? null : JSON.stringify(value);
