/**
 * The delivery log: every webhook of a bot (GET /meetings/{bot_id}/events) or of an object
 * without a bot (GET /events?calendar_id=…), from the ledger records under it. A record is its
 * event's first delivery (applied, failed or pending, see delivery-outcomes.ts); each later
 * delivery the ingress noted on it is listed as a duplicate. Oldest first, paged.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type * as z from 'zod/mini';
import type { TableAccess } from '../store/dynamo';
import { EVENT_SK_PREFIX, keys, TRANSCRIPT_FINAL_ATTRIBUTE } from '../store/table-layout';
import { utcTimestamp } from '../text/utc-timestamp';
import { RELATED_OBJECT_ID_FIELDS } from '../upstream/webhook-contract';
import { type AppliedEvidence, botEvidence, objectEvidence, showsApplied } from './delivery-outcomes';
import { knownMeeting } from './known-bot';
import { decodeCursor, encodeCursor } from './page-cursor';
import { pageLimit, type QueryParams } from './query-params';
import type { deliveryLog, deliveryView } from './read-api-contract';
import { badRequest, notFound } from './read-errors';
import { type Item, itemsWithPrefix } from './table-reads';

type Delivery = z.infer<typeof deliveryView>;
type DeliveryLog = z.infer<typeof deliveryLog>;

const RECORD_ATTRIBUTES = {
  expression: 'sk, #trigger, receivedAt, #status, redeliveries, failedAt, failureReason, bodyBr',
  names: { '#trigger': 'trigger', '#status': 'status' },
};

export async function meetingDeliveryLog(botId: string, params: QueryParams, table: TableAccess): Promise<DeliveryLog> {
  const limit = pageLimit(params);
  const after = decodeCursor(params.cursor, `events|bot|${botId}`);
  await knownMeeting(table, botId);
  const [records, items, meeting] = await Promise.all([
    itemsWithPrefix(table, keys.eventsOfBot(botId), EVENT_SK_PREFIX, RECORD_ATTRIBUTES),
    itemsWithPrefix(table, keys.bot(botId), '', {
      expression: 'sk, appliedKeys, summaryKeys, idempotencyKey',
    }),
    table.db.send(
      new GetCommand({
        TableName: table.tableName,
        Key: keys.meeting(botId),
        ProjectionExpression: '#final',
        ExpressionAttributeNames: { '#final': TRANSCRIPT_FINAL_ATTRIBUTE },
      }),
    ),
  ]);
  const evidence = botEvidence(items, meeting.Item?.[TRANSCRIPT_FINAL_ATTRIBUTE] !== undefined);
  return page(deliveries(records, evidence), limit, after, `events|bot|${botId}`);
}

/** The object a GET /events asks about: exactly one of its id parameters. */
export function relatedObjectOf(params: QueryParams): string {
  const given = Object.entries(RELATED_OBJECT_ID_FIELDS).filter(([, field]) => params[field] !== undefined);
  const names = Object.values(RELATED_OBJECT_ID_FIELDS).join(', ');
  const [only] = given;
  if (given.length !== 1 || only === undefined) throw badRequest('invalid-filter', `pass exactly one of ${names}`);
  const id = params[only[1]] ?? '';
  if (id === '') throw badRequest('invalid-filter', `${only[1]} must not be empty`);
  return `${only[0]}:${id}`;
}

export async function objectDeliveryLog(params: QueryParams, table: TableAccess): Promise<DeliveryLog> {
  const object = relatedObjectOf(params);
  const limit = pageLimit(params);
  const scope = `events|object|${object}`;
  const after = decodeCursor(params.cursor, scope);
  const [records, kept] = await Promise.all([
    itemsWithPrefix(table, keys.eventsOfBot(object), EVENT_SK_PREFIX, RECORD_ATTRIBUTES),
    itemsWithPrefix(table, keys.relatedObject(object), EVENT_SK_PREFIX, { expression: 'sk' }),
  ]);
  if (records.length === 0 && kept.length === 0) throw notFound('not-found', `no webhook about ${object} was received`);
  return page(deliveries(records, objectEvidence(kept)), limit, after, scope);
}

/** A delivery's place in the log: its time, then its key, then first delivery before repeats. */
type Position = [at: string, key: string, repeat: number];

interface Positioned {
  position: Position;
  delivery: Delivery;
}

function deliveries(records: readonly Item[], evidence: AppliedEvidence): Positioned[] {
  const all: Positioned[] = [];
  for (const record of records) {
    const key = String(record.sk).slice(EVENT_SK_PREFIX.length);
    const trigger = String(record.trigger);
    const receivedAt = String(record.receivedAt);
    const applied = showsApplied(record, evidence);
    const failed = !applied && typeof record.failedAt === 'string';
    all.push({
      position: [receivedAt, key, 0],
      delivery: {
        idempotency_key: key,
        trigger,
        received_at: utcTimestamp(receivedAt),
        outcome: applied ? 'applied' : failed ? 'failed' : 'pending',
        ...(failed && typeof record.failureReason === 'string' && { failure_reason: record.failureReason }),
      },
    });
    const repeats = Array.isArray(record.redeliveries) ? record.redeliveries.map(String) : [];
    repeats.forEach((at, i) => {
      all.push({
        position: [at, key, i + 1],
        delivery: { idempotency_key: key, trigger, received_at: utcTimestamp(at), outcome: 'duplicate' },
      });
    });
  }
  return all.sort((a, b) => comparePositions(a.position, b.position));
}

function comparePositions(a: Position, b: Position): number {
  for (let i = 0; i < a.length; i++) {
    const [x, y] = [a[i] as string | number, b[i] as string | number];
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}

function page(all: Positioned[], limit: number, after: string | undefined, scope: string): DeliveryLog {
  let from = 0;
  if (after !== undefined) {
    const position = parsePosition(after);
    from = all.findIndex((entry) => comparePositions(entry.position, position) > 0);
    if (from === -1) from = all.length;
  }
  const taken = all.slice(from, from + limit);
  const last = taken.at(-1);
  return {
    events: taken.map((entry) => entry.delivery),
    next_cursor:
      from + limit < all.length && last !== undefined ? encodeCursor(scope, JSON.stringify(last.position)) : null,
  };
}

function parsePosition(text: string): Position {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    value = undefined;
  }
  if (
    Array.isArray(value) &&
    value.length === 3 &&
    typeof value[0] === 'string' &&
    typeof value[1] === 'string' &&
    typeof value[2] === 'number'
  ) {
    return value as Position;
  }
  throw badRequest(
    'invalid-cursor',
    'cursor is not one this list gave out: pass next_cursor from the previous page unchanged',
  );
}
