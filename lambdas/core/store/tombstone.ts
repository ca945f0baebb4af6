/**
 * A meeting's tombstone: once its erasure begins, the meeting item holds only the bot id
 * and the erasure's state (ERASURE_ATTRIBUTE), and every writer that reads the meeting
 * drops what it brings. Here, not in erase/, because the consumer, the archive and the
 * read API check it and erase/ imports them.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { TableAccess } from './dynamo';
import { ERASURE_ATTRIBUTE, keys } from './table-layout';

export interface ErasureMark {
  receiptId: string;
  requestedAt: string;
  /** `erasing` from the intent on (webhooks are dropped already), `erased` once the receipt is complete. */
  status: 'erasing' | 'erased';
  /** When the receipt was completed. */
  erasedAt?: string;
}

/** The erasure mark of a meeting item read with it, if any. */
export const erasureOf = (meeting: Record<string, unknown> | undefined): ErasureMark | undefined =>
  meeting?.[ERASURE_ATTRIBUTE] as ErasureMark | undefined;

/** One consistent read of the meeting item's mark: for writers that do not read the meeting anyway. */
export async function readErasureMark(table: TableAccess, botId: string): Promise<ErasureMark | undefined> {
  const { Item } = await table.db.send(
    new GetCommand({
      TableName: table.tableName,
      Key: keys.meeting(botId),
      ConsistentRead: true,
      ProjectionExpression: '#erasure',
      ExpressionAttributeNames: { '#erasure': ERASURE_ATTRIBUTE },
    }),
  );
  return erasureOf(Item);
}

/** The reason a reader gives for an erased meeting (the read API's 404). */
export const erasedMessage = (botId: string, mark: ErasureMark): string =>
  `meeting ${botId} was erased${mark.erasedAt === undefined ? ' (erasure in progress)' : ` at ${mark.erasedAt}`}, receipt ${mark.receiptId}`;
