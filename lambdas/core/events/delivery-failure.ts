import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { type TableAccess, writeIfCondition } from '../store/dynamo';
import { keys } from '../store/table-layout';

/** Kept short on the record: the delivery log shows it, the full error is in the consumer's log. */
const MAX_REASON_CHARS = 500;

/**
 * Marks an event's ledger record with why its last delivery failed, for the delivery log. Only on
 * failures (the hot path writes nothing for it); a later success shows through the meeting's items.
 * Never creates a record, and never throws: the failure it records is what the caller reports.
 */
export async function markDeliveryFailed(
  table: TableAccess,
  event: { owner: string; idempotencyKey: string; reason: string; at: Date },
): Promise<void> {
  await writeIfCondition(() =>
    table.db.send(
      new UpdateCommand({
        TableName: table.tableName,
        Key: keys.event(event.owner, event.idempotencyKey),
        UpdateExpression: 'SET failedAt = :at, failureReason = :reason',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: {
          ':at': event.at.toISOString(),
          ':reason': event.reason.slice(0, MAX_REASON_CHARS),
        },
      }),
    ),
  ).catch(() => false);
}
