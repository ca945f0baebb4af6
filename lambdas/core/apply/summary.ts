import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { summaryText, type SummaryUpdateData } from '../upstream/contract';
import { writeIfCondition } from '../store/dynamo';
import { keys } from '../store/table-layout';
import { arrivalVersion, jsonText, type ApplyContext } from './context';

/** The summary text and the whole `data` on the meeting; the newest arrival wins. */
export async function applySummaryUpdate(ctx: ApplyContext, data: SummaryUpdateData): Promise<void> {
  await writeIfCondition(() =>
    ctx.table.db.send(
      new UpdateCommand({
        TableName: ctx.table.tableName,
        Key: keys.meeting(ctx.botId),
        UpdateExpression: 'SET botId = :bot, summary = :summary, summaryData = :data, summaryVersion = :version',
        ConditionExpression: 'attribute_not_exists(summaryVersion) OR summaryVersion < :version',
        ExpressionAttributeValues: {
          ':bot': ctx.botId,
          ':summary': summaryText(data) ?? null,
          ':data': jsonText(data),
          ':version': arrivalVersion(ctx),
        },
      }),
    ),
  );
}
