/**
 * Erasing a meeting: one call removes it from every store the pipeline writes and
 * answers with a receipt. Crash-safe and idempotent, in three steps:
 *  1. the intent: the meeting item is replaced by the tombstone (no personal data;
 *     from then on every webhook of the bot is acknowledged and dropped), holding
 *     what it takes to find the rest (the day listing's time, the schedule id);
 *  2. stock is taken once (the receipt's counts) and everything is deleted: a retry
 *     re-runs the deletions, which find what is left;
 *  3. the receipt is completed on the tombstone, and a second call returns it.
 *
 * A writer that read "no tombstone" just before the intent may still write after the
 * sweep (a consumer mid-batch, an archive mid-upload). So a second sweep is scheduled,
 * delayed past the longest such writer's timeout (resweepErasedMeeting).
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { domainEvents } from '../domain-events/catalogue';
import { writeIfCondition } from '../store/dynamo';
import { ERASURE_ATTRIBUTE, keys } from '../store/table-layout';
import { type ErasureMark, erasureOf } from '../store/tombstone';
import { METRICS } from '../telemetry';
import { NotFoundError } from '../upstream/client';
import { DATA_DELETED_STATE } from '../upstream/webhook-contract';
import type { EraseDependencies } from './erase-dependencies';
import { type ErasurePlan, takeStock } from './inventory';
import { type ErasureReason, type ErasureReceipt, retainedCopies, type UpstreamErasure } from './receipt';
import { sweepMeeting } from './sweep';
import { readTombstone, writeIntent } from './tombstone-writes';

/** The tombstone's erasure attribute in full: the mark every reader checks, and the receipt once complete. */
export interface ErasureState extends ErasureMark {
  reason: ErasureReason;
  receipt?: ErasureReceipt;
}

export async function eraseMeeting(
  botId: string,
  reason: ErasureReason,
  deps: EraseDependencies,
): Promise<ErasureReceipt> {
  let tombstone = await readTombstone(deps.table, botId);
  const done = erasureOf(tombstone) as ErasureState | undefined;
  if (done?.receipt !== undefined) return done.receipt;
  if (done === undefined) tombstone = await writeIntent(botId, reason, tombstone, deps);
  const state = erasureOf(tombstone) as ErasureState;
  if (state.receipt !== undefined) return state.receipt; // another call completed it meanwhile
  let plan = (tombstone?.erasurePlan ?? {}) as ErasurePlan;

  if (plan.counts === undefined) {
    plan = { ...plan, ...(await takeStock(botId, plan, deps)) };
    await deps.table.db.send(
      new UpdateCommand({
        TableName: deps.table.tableName,
        Key: keys.meeting(botId),
        UpdateExpression: 'SET erasurePlan.counts = :counts, erasurePlan.payloadKeys = :payloadKeys',
        ConditionExpression: '#erasure.receiptId = :receipt',
        ExpressionAttributeNames: { '#erasure': ERASURE_ATTRIBUTE },
        ExpressionAttributeValues: {
          ':counts': plan.counts,
          ':payloadKeys': plan.payloadKeys,
          ':receipt': state.receiptId,
        },
      }),
    );
  }
  await sweepMeeting(botId, plan, deps);
  const upstream = await eraseUpstream(botId, deps);
  await deps.resweep.schedule(botId);

  const erasedAt = deps.now();
  const receipt: ErasureReceipt = {
    receipt_id: state.receiptId,
    bot_id: botId,
    reason: state.reason,
    requested_at: state.requestedAt,
    erased_at: erasedAt.toISOString(),
    counts: plan.counts ?? emptyCounts(),
    retained: retainedCopies(erasedAt, deps.retained),
    upstream,
  };
  // Published before the receipt is completed: a failure leaves the erasure open, and its retry publishes.
  await deps.events.publish([
    domainEvents.erased({
      bot_id: botId,
      receipt_id: receipt.receipt_id,
      erased_at: receipt.erased_at,
      counts: { ...receipt.counts },
    }),
  ]);
  const completed = await writeIfCondition(() =>
    deps.table.db.send(
      new UpdateCommand({
        TableName: deps.table.tableName,
        Key: keys.meeting(botId),
        UpdateExpression:
          'SET #erasure.#status = :erased, #erasure.erasedAt = :at, #erasure.receipt = :receipt REMOVE erasurePlan',
        ConditionExpression: '#erasure.receiptId = :id AND #erasure.#status = :erasing',
        ExpressionAttributeNames: { '#erasure': ERASURE_ATTRIBUTE, '#status': 'status' },
        ExpressionAttributeValues: {
          ':erased': 'erased',
          ':erasing': 'erasing',
          ':at': receipt.erased_at,
          ':receipt': receipt,
          ':id': state.receiptId,
        },
      }),
    ),
  );
  if (!completed) {
    // A concurrent call completed it first: its receipt is the one.
    const stored = erasureOf(await readTombstone(deps.table, botId)) as ErasureState | undefined;
    if (stored?.receipt !== undefined) return stored.receipt;
  }
  deps.telemetry.log.info('meeting erased', {
    bot_id: botId,
    receipt_id: receipt.receipt_id,
    reason,
    ...receipt.counts,
  });
  deps.telemetry.metrics.emit(METRICS.meetingErased, 1, { reason });
  return receipt;
}

/**
 * The second sweep, after any writer that missed the tombstone has timed out: whatever
 * it wrote is deleted, and the tombstone is written back bare (a late state change may
 * have set attributes on it). Counted, since it means a race happened.
 */
export async function resweepErasedMeeting(botId: string, deps: EraseDependencies): Promise<number> {
  const tombstone = await readTombstone(deps.table, botId);
  const state = erasureOf(tombstone) as ErasureState | undefined;
  if (state?.receipt === undefined) return 0; // not erased (yet): the erasure's own retry sweeps
  const listedAt = typeof tombstone?.listedAt === 'string' ? tombstone.listedAt : undefined;
  const { items, objects } = await sweepMeeting(botId, { listedAt }, deps);
  const extra = Object.keys(tombstone ?? {}).filter((name) => !TOMBSTONE_ATTRIBUTES.has(name));
  if (extra.length > 0) {
    await writeIfCondition(() =>
      deps.table.db.send(
        new UpdateCommand({
          TableName: deps.table.tableName,
          Key: keys.meeting(botId),
          UpdateExpression: `REMOVE ${extra.map((_, i) => `#x${i}`).join(', ')}`,
          ConditionExpression: '#erasure.receiptId = :id',
          ExpressionAttributeNames: {
            '#erasure': ERASURE_ATTRIBUTE,
            ...Object.fromEntries(extra.map((name, i) => [`#x${i}`, name])),
          },
          ExpressionAttributeValues: { ':id': state.receiptId },
        }),
      ),
    );
  }
  const late = items + objects + extra.length;
  if (late > 0) {
    deps.telemetry.log.warn('late writes of an erased meeting removed', {
      bot_id: botId,
      items,
      objects,
      attributes: extra,
    });
    deps.telemetry.metrics.emit(METRICS.erasedLateWritesRemoved, late);
  }
  return late;
}

/** What a tombstone holds: nothing of the meeting. */
export const TOMBSTONE_ATTRIBUTES: ReadonlySet<string> = new Set(['pk', 'sk', 'botId', ERASURE_ATTRIBUTE]);

async function eraseUpstream(botId: string, deps: EraseDependencies): Promise<UpstreamErasure> {
  if (deps.upstream === undefined) return 'not-requested';
  try {
    // Asked only once: after a crash past the call, the service already shows the bot's data deleted.
    const { state } = await deps.upstream.getBot(botId);
    if (state !== DATA_DELETED_STATE) await deps.upstream.deleteBotData(botId);
    return 'requested';
  } catch (error) {
    if (error instanceof NotFoundError) return 'not-found';
    throw error;
  }
}

const emptyCounts = () => ({
  meeting_items: 0,
  ledger_records: 0,
  payload_objects: 0,
  recording_objects: 0,
  day_listings: 0,
  schedule_links: 0,
});
