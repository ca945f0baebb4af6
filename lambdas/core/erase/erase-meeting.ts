/**
 * Erasing a meeting: one call removes it from every store the pipeline writes and
 * answers with a receipt. Crash-safe and idempotent, in three steps:
 *  1. the intent: the meeting item is replaced by the tombstone (no personal data;
 *     from then on every webhook of the bot is acknowledged and dropped), holding
 *     what it takes to find the rest (the day listing's time, the schedule id);
 *  2. stock is taken once (the receipt's counts; the first stock-take stored wins, so a
 *     concurrent erasure's later one, which finds everything swept, changes nothing) and
 *     everything is deleted: a retry re-runs the deletions, which find what is left;
 *  3. the receipt is completed on the tombstone (the first completion wins), then
 *     `meeting.erased` is published from it; a second call returns it and publishes the
 *     same event again.
 *
 * A writer that read "no tombstone" just before the intent may still write after the
 * sweep (a consumer mid-batch, an archive mid-upload). So a second sweep is scheduled,
 * delayed past the longest such writer's timeout (resweepErasedMeeting).
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { calendarOfSchedule } from '../calendar/calendar-ids';
import { domainEvents } from '../domain-events/catalogue';
import { writeIfCondition } from '../store/dynamo';
import { ERASURE_ATTRIBUTE, keys } from '../store/table-layout';
import { type ErasureMark, erasureOf } from '../store/tombstone';
import { METRICS } from '../telemetry';
import { NotFoundError } from '../upstream/client';
import { DATA_DELETED_STATE } from '../upstream/webhook-contract';
import type { EraseDependencies } from './erase-dependencies';
import { type ErasureLeads, type ErasurePlan, takeStock } from './inventory';
import { type ErasureReason, type ErasureReceipt, foundNothing, retainedCopies, type UpstreamErasure } from './receipt';
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
  if (done?.receipt !== undefined) return announce(done.receipt, deps);
  if (done === undefined) tombstone = await writeIntent(botId, reason, tombstone, deps);
  const state = erasureOf(tombstone) as ErasureState;
  if (state.receipt !== undefined) return announce(state.receipt, deps); // another call completed it meanwhile
  let plan = (tombstone?.erasurePlan ?? {}) as ErasurePlan;

  if (plan.counts === undefined) {
    const stock = await takeStock(botId, plan, deps);
    // The first stock-take wins: one that ran after another call's sweep finds nothing left.
    const stored = await writeIfCondition(() =>
      deps.table.db.send(
        new UpdateCommand({
          TableName: deps.table.tableName,
          Key: keys.meeting(botId),
          UpdateExpression: 'SET erasurePlan.counts = :counts, erasurePlan.payloadKeys = :payloadKeys',
          ConditionExpression: '#erasure.receiptId = :receipt AND attribute_not_exists(erasurePlan.counts)',
          ExpressionAttributeNames: { '#erasure': ERASURE_ATTRIBUTE },
          ExpressionAttributeValues: {
            ':counts': stock.counts,
            ':payloadKeys': stock.payloadKeys,
            ':receipt': state.receiptId,
          },
        }),
      ),
    );
    if (stored) plan = { ...plan, ...stock };
    else {
      const current = await readTombstone(deps.table, botId);
      const receipt = (erasureOf(current) as ErasureState | undefined)?.receipt;
      if (receipt !== undefined) return announce(receipt, deps);
      plan = current?.erasurePlan as ErasurePlan;
    }
  }
  await sweepMeeting(botId, plan, deps);
  const upstream = await eraseUpstream(botId, deps);
  await deps.resweep.schedule(botId);

  const erasedAt = deps.now();
  const counts = plan.counts ?? emptyCounts();
  const receipt: ErasureReceipt = {
    receipt_id: state.receiptId,
    bot_id: botId,
    reason: state.reason,
    requested_at: state.requestedAt,
    erased_at: erasedAt.toISOString(),
    counts,
    retained: retainedCopies(erasedAt, deps.retained, {
      scheduled: plan.scheduleId !== undefined,
      fromCalendar: plan.scheduleId !== undefined && calendarOfSchedule(plan.scheduleId) !== undefined,
    }),
    upstream,
    ...(foundNothing(counts) && { never_seen: true as const }),
  };
  // The leads stay until the second sweep: a listing written after this sweep is found by them.
  const completed = await writeIfCondition(() =>
    deps.table.db.send(
      new UpdateCommand({
        TableName: deps.table.tableName,
        Key: keys.meeting(botId),
        UpdateExpression:
          'SET #erasure.#status = :erased, #erasure.erasedAt = :at, #erasure.receipt = :receipt REMOVE erasurePlan.counts, erasurePlan.payloadKeys',
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
    if (stored?.receipt !== undefined) return announce(stored.receipt, deps);
  }
  deps.telemetry.log.info('meeting erased', {
    bot_id: botId,
    receipt_id: receipt.receipt_id,
    reason,
    ...receipt.counts,
  });
  deps.telemetry.metrics.emit(METRICS.meetingErased, 1, { reason });
  return announce(receipt, deps);
}

/**
 * `meeting.erased`, built from the stored receipt only: every call that ends on one erasure (a
 * retry, a concurrent erasure, a later request) publishes the same event, id and content, so a
 * publish lost after the receipt was completed is made good by the next call.
 */
async function announce(receipt: ErasureReceipt, deps: EraseDependencies): Promise<ErasureReceipt> {
  await deps.events.publish([
    domainEvents.erased({
      bot_id: receipt.bot_id,
      receipt_id: receipt.receipt_id,
      erased_at: receipt.erased_at,
      counts: { ...receipt.counts },
    }),
  ]);
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
  // The listing the erasure knew of (its writer may have put it after the first sweep), and one a
  // state change that missed the tombstone set on it.
  const leads = (tombstone?.erasurePlan ?? {}) as ErasureLeads;
  const listedAt = [leads.listedAt, tombstone?.listedAt].filter((at): at is string => typeof at === 'string');
  const { items, objects } = await sweepMeeting(botId, { listedAt, lakeDay: leads.lakeDay }, deps);
  const extra = Object.keys(tombstone ?? {}).filter((name) => !TOMBSTONE_ATTRIBUTES.has(name));
  // The leads go now that nothing needs them; they are the erasure's own, not a late write.
  const removed = tombstone?.erasurePlan === undefined ? extra : [...extra, 'erasurePlan'];
  if (removed.length > 0) {
    await writeIfCondition(() =>
      deps.table.db.send(
        new UpdateCommand({
          TableName: deps.table.tableName,
          Key: keys.meeting(botId),
          UpdateExpression: `REMOVE ${removed.map((_, i) => `#x${i}`).join(', ')}`,
          ConditionExpression: '#erasure.receiptId = :id',
          ExpressionAttributeNames: {
            '#erasure': ERASURE_ATTRIBUTE,
            ...Object.fromEntries(removed.map((name, i) => [`#x${i}`, name])),
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

/**
 * What a tombstone holds: nothing of the meeting. Until the second sweep also `erasurePlan`, the
 * leads to the meeting's other items (its listing time, its schedule id).
 */
export const TOMBSTONE_ATTRIBUTES: ReadonlySet<string> = new Set([
  'pk',
  'sk',
  'botId',
  ERASURE_ATTRIBUTE,
  'erasurePlan',
]);

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
  calendar_feeds: 0,
  lake_rows: 0,
  lake_objects: 0,
  query_results: 0,
});
