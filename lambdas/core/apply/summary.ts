import { createHash } from 'node:crypto';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { writeIfCondition } from '../store/dynamo';
import { keys } from '../store/table-layout';
import { type SummaryUpdateData, summaryTextField } from '../upstream/webhook-contract';
import { type ApplyContext, arrivalVersion, jsonText, rememberAppliedKey } from './context';

/** Where summaries too large for their item are kept, in the payload bucket (no expiry on this prefix). */
export const SUMMARY_PREFIX = 'summaries/';

/**
 * Summary text up to this size is kept on the summary item; a larger one goes to
 * S3 with a pointer on the item. An item holds 400 KB in all, and the service
 * offers no way to fetch a summary again, so it must never be refused.
 */
export const SUMMARY_INLINE_BYTES = 64 * 1024;

export interface StoredSummary {
  bucket: string;
  key: string;
  bytes: number;
  sha256: string;
}

/**
 * The summary text once (inline, or in S3 with a pointer) and the rest of `data`
 * beside it, on the meeting's summary item; the one first accepted last wins, and
 * a late resend of an already applied summary (same key) changes nothing. Not on
 * the meeting item: that one is in the state index, and every update of it would
 * write the text into the index copy again.
 */
export async function applySummaryUpdate(
  ctx: ApplyContext,
  data: SummaryUpdateData,
): Promise<{ written: boolean; seenBefore: boolean; current: boolean }> {
  const field = summaryTextField(data);
  const text = field === undefined ? null : (data[field] as string);
  const rest = field === undefined ? data : Object.fromEntries(Object.entries(data).filter(([name]) => name !== field));
  const stored =
    text !== null && Buffer.byteLength(text, 'utf8') > SUMMARY_INLINE_BYTES ? await storeText(ctx, text) : null;

  const written = await writeIfCondition(() =>
    ctx.table.db.send(
      new UpdateCommand({
        TableName: ctx.table.tableName,
        Key: keys.summary(ctx.botId),
        UpdateExpression:
          stored === null
            ? 'SET botId = :bot, summary = :summary, summaryData = :data, summaryVersion = :version ADD summaryKeys :keys REMOVE summaryStored'
            : 'SET botId = :bot, summaryStored = :stored, summaryData = :data, summaryVersion = :version ADD summaryKeys :keys REMOVE summary',
        ConditionExpression:
          '(attribute_not_exists(summaryVersion) OR summaryVersion < :version) AND NOT contains(summaryKeys, :key)',
        ExpressionAttributeValues: {
          ':bot': ctx.botId,
          ...(stored === null ? { ':summary': text } : { ':stored': stored }),
          ':data': jsonText(rest),
          ':version': arrivalVersion(ctx),
          ':key': ctx.idempotencyKey,
          ':keys': new Set([ctx.idempotencyKey]),
        },
      }),
    ),
  );
  const seenBefore = !written && (await rememberAppliedKey(ctx, keys.summary(ctx.botId), 'summaryKeys'));
  // A redelivery asks whether its summary is still the stored one: its summary.ready may not be out yet.
  const current = written || (seenBefore && (await storedVersion(ctx)) === arrivalVersion(ctx));
  return { written, seenBefore, current };
}

async function storedVersion(ctx: ApplyContext): Promise<unknown> {
  const { Item } = await ctx.table.db.send(
    new GetCommand({
      TableName: ctx.table.tableName,
      Key: keys.summary(ctx.botId),
      ConsistentRead: true,
      ProjectionExpression: 'summaryVersion',
    }),
  );
  return Item?.summaryVersion;
}

/** Content-addressed, so a redelivery writes the same object again. */
async function storeText(ctx: ApplyContext, text: string): Promise<StoredSummary> {
  if (ctx.largeValues === undefined) throw new Error('a summary over the inline size needs a store for large values');
  const bytes = Buffer.from(text, 'utf8');
  const sha256 = createHash('sha256').update(bytes).digest();
  const key = `${SUMMARY_PREFIX}${ctx.botId}/${sha256.toString('hex')}.txt`;
  await ctx.largeValues.put(key, bytes, sha256);
  return { bucket: ctx.largeValues.bucket, key, bytes: bytes.length, sha256: sha256.toString('hex') };
}
