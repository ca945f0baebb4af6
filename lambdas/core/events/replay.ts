/**
 * Re-applies a bot's stored events from the ledger (raw bodies kept for the dedup
 * retention). Applying is idempotent, so a replay restores what is missing and
 * changes nothing that is right; with `rebuild`, the bot's items are deleted
 * first, so the meeting is rebuilt from its events by the current code.
 */
import { BatchWriteCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { applyWebhook } from '../apply/apply-webhook';
import { keys } from '../store/table-layout';
import { decodeWebhook, type ProcessDependencies } from './process-event';

export interface ReplayReport {
  botId: string;
  events: number;
  replayed: number;
  deletedItems: number;
  failures: Array<{ idempotencyKey: string; error: string }>;
}

export async function replayBotEvents(
  botId: string,
  deps: ProcessDependencies,
  options: { rebuild: boolean },
): Promise<ReplayReport> {
  const events = await deps.ledger.eventsOfBot(botId);
  const deletedItems = options.rebuild ? await deleteBotItems(botId, deps) : 0;
  const report: ReplayReport = { botId, events: events.length, replayed: 0, deletedItems, failures: [] };
  for (const event of events) {
    try {
      const text =
        'inline' in event.body ? event.body.inline : (await deps.payloads.read(event.body.stored)).toString('utf8');
      const webhook = decodeWebhook(text);
      await applyWebhook(
        webhook,
        {
          table: deps.table,
          botId,
          idempotencyKey: event.idempotencyKey,
          receivedAt: event.receivedAt,
          largeValues: deps.payloads,
        },
        deps.archive,
      );
      report.replayed++;
    } catch (error) {
      report.failures.push({
        idempotencyKey: event.idempotencyKey,
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }
  return report;
}

async function deleteBotItems(botId: string, deps: ProcessDependencies): Promise<number> {
  const { db, tableName } = deps.table;
  let deleted = 0;
  let cursor: Record<string, unknown> | undefined;
  do {
    const page = await db.send(
      new QueryCommand({
        TableName: tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': keys.bot(botId) },
        ProjectionExpression: 'pk, sk',
        ExclusiveStartKey: cursor,
      }),
    );
    const items = page.Items ?? [];
    for (let i = 0; i < items.length; i += 25) {
      let requests = items.slice(i, i + 25).map((Key) => ({ DeleteRequest: { Key } }));
      for (let attempt = 0; requests.length > 0; attempt++) {
        if (attempt > 8) throw new Error(`could not delete ${requests.length} items of ${botId}`);
        const result = await db.send(new BatchWriteCommand({ RequestItems: { [tableName]: requests } }));
        requests = (result.UnprocessedItems?.[tableName] ?? []) as typeof requests;
        if (requests.length > 0) await new Promise((resolve) => setTimeout(resolve, 50 * 2 ** attempt));
      }
    }
    deleted += items.length;
    cursor = page.LastEvaluatedKey;
  } while (cursor !== undefined);
  return deleted;
}
