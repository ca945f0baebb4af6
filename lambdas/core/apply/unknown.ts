import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '../store/table-layout';
import { type ApplyContext, jsonText } from './context';

/**
 * A trigger we do not know is kept with its raw data, never dropped (when it arrived is in the ledger).
 * True when its item was there already (an earlier delivery).
 */
export async function applyUnknownTrigger(
  ctx: ApplyContext,
  trigger: string,
  data: Record<string, unknown>,
): Promise<boolean> {
  const { Attributes: before } = await ctx.table.db.send(
    new PutCommand({
      TableName: ctx.table.tableName,
      Item: {
        ...keys.unknownEvent(ctx.botId, ctx.idempotencyKey),
        botId: ctx.botId,
        trigger,
        data: jsonText(data),
        idempotencyKey: ctx.idempotencyKey,
      },
      ReturnValues: 'ALL_OLD', // free: tells a redelivery without a read
    }),
  );
  return before !== undefined;
}
