/**
 * A sync's outcome in one sentence. When it schedules nothing, the sentence says why: the feed is empty, its
 * events fall outside the window, they have already begun, or the rules left each one out (with counts).
 */
import type { SyncResult } from './sync-calendar';

/** The skip reason of an occurrence whose meeting another calendar's bot already attends. */
export const COVERED_REASON = "covered by another calendar's bot";

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

type Counts = Pick<
  SyncResult,
  | 'created'
  | 'moved'
  | 'unchanged'
  | 'cancelled'
  | 'deferred'
  | 'failed'
  | 'window'
  | 'feed_events'
  | 'occurrences'
  | 'past'
  | 'skipped_reasons'
>;

export function explainSync(result: Counts): string {
  const { window } = result;
  const between = `between ${window.from} and ${window.to} (lookahead_days ${window.lookahead_days})`;
  const skipped = Object.entries(result.skipped_reasons)
    .sort(([, a], [, b]) => b - a)
    .map(([reason, n]) => `${n} ${reason}`);
  const left = [
    ...(result.past > 0 ? [`${result.past} already begun`] : []),
    ...skipped,
    ...(result.deferred > 0 ? [`${result.deferred} held back by the schedule limits for a later sync`] : []),
    ...(result.failed.length > 0 ? [`${result.failed.length} failed (see failed)`] : []),
  ];
  const scheduled = result.created + result.moved + result.unchanged;
  if (scheduled > 0) {
    const done = `${plural(scheduled, 'occurrence')} scheduled (created ${result.created}, moved ${result.moved}, unchanged ${result.unchanged})`;
    return left.length === 0 ? done : `${done}; not scheduled: ${left.join(', ')}`;
  }
  const cancelled = result.cancelled > 0 ? `; ${result.cancelled} cancelled` : '';
  if (result.feed_events === 0) return `nothing to schedule: the feed has no events${cancelled}`;
  if (result.occurrences === 0)
    return `nothing to schedule: none of the feed's ${plural(result.feed_events, 'event')} occurs ${between}${cancelled}`;
  return `nothing scheduled: ${plural(result.occurrences, 'occurrence')} ${between}, not scheduled: ${left.join(', ')}${cancelled}`;
}
