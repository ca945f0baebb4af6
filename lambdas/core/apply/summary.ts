import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { writeIfCondition } from '../store/dynamo';
import { keys } from '../store/table-layout';
import { type SummaryUpdateData, summaryText } from '../upstream/webhook-contract';
import { type ApplyContext, arrivalVersion, jsonText } from './context';

/**
 * The summary text and the whole `data` on the meeting; the newest arrival wins,
 * and a late resend of an already applied summary (same key) changes nothing.
 */
export async function applySummaryUpdate(ctx: ApplyContext, data: SummaryUpdateData): Promise<boolean> {
  return writeIfCondition(() =>
    ctx.table.db.send(
      new UpdateCommand({
        TableName: ctx.table.tableName,
        Key: keys.meeting(ctx.botId),
        UpdateExpression:
          'SET botId = :bot, summary = :summary, summaryData = :data, summaryVersion = :version ADD summaryKeys :keys',
        ConditionExpression:
          '(attribute_not_exists(summaryVersion) OR summaryVersion < :version) AND NOT contains(summaryKeys, :key)',
        ExpressionAttributeValues: {
          ':bot': ctx.botId,
          ':summary': summaryText(data) ?? null,
          ':data': jsonText(data),
          ':version': arrivalVersion(ctx),
          ':key': ctx.idempotencyKey,
          ':keys': new Set([ctx.idempotencyKey]),
        },
      }),
    ),
  );
}
