/**
 * A calendar's (or a company user's) recent outcomes for people, one line: what was scheduled, then
 * recorded, missed and failed, missed and failed with their reasons, most frequent first
 * ("5 scheduled: 1 recorded, 4 missed (request_to_join_denied 3, waiting_room_timeout_exceeded 1), 0 failed").
 */
import { z } from 'zod';

/** What the CLI reads of `recent_outcomes` (lambdas/core/calendar/recent-outcomes.ts). */
export const recentOutcomesAnswer = z.looseObject({
  days: z.number(),
  scheduled: z.number(),
  by_status: z.record(z.string(), z.number()),
  missed_by_reason: z.record(z.string(), z.number()),
  failed_by_reason: z.record(z.string(), z.number()),
  complete: z.boolean(),
});
export type RecentOutcomesAnswer = z.infer<typeof recentOutcomesAnswer>;

const byCount = (reasons: Record<string, number>): string =>
  Object.entries(reasons)
    .sort(([a, m], [b, n]) => n - m || (a < b ? -1 : a > b ? 1 : 0))
    .map(([reason, n]) => `${reason} ${n}`)
    .join(', ');

const withReasons = (n: number, label: string, reasons: Record<string, number>) =>
  n === 0 ? `0 ${label}` : `${n} ${label} (${byCount(reasons)})`;

export function describeRecentOutcomes(r: RecentOutcomesAnswer): string {
  const status = (name: string) => r.by_status[name] ?? 0;
  const parts = [
    `${status('recorded')} recorded`,
    ...(status('partial') > 0 ? [`${status('partial')} partial`] : []),
    withReasons(status('missed'), 'missed', r.missed_by_reason),
    withReasons(status('failed'), 'failed', r.failed_by_reason),
  ];
  const ongoing = status('scheduled') + status('in_progress');
  if (ongoing > 0) parts.push(`${ongoing} not over`);
  if (status('cancelled') > 0) parts.push(`${status('cancelled')} cancelled`);
  const partial = r.complete ? '' : ' (more meetings than one answer reads: these are the first)';
  return `${r.scheduled} scheduled: ${parts.join(', ')}${partial}`;
}
