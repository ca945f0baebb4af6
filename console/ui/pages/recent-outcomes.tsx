/** The last 7 days' meetings of a calendar or a person, in one line: "4 scheduled: 3 recorded, 1 missed (…)". */
import type { RecentOutcomes } from '../contracts';

const byReason = (counts: Record<string, number>) =>
  Object.entries(counts)
    .sort((a, b) => b[1] - a[1])
    .map(([reason, n]) => `${reason} ${n}`)
    .join(', ');

export function recentLine(report: RecentOutcomes | null | undefined): string {
  if (report === null || report === undefined) return '—';
  const { by_status: s } = report;
  const missed = byReason(report.missed_by_reason);
  const failed = byReason(report.failed_by_reason);
  return (
    `${report.scheduled} scheduled: ${s.recorded} recorded, ${s.missed} missed${missed === '' ? '' : ` (${missed})`}, ` +
    `${s.failed} failed${failed === '' ? '' : ` (${failed})`}${report.complete ? '' : ' (at least)'}`
  );
}
