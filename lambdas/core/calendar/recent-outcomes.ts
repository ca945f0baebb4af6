/**
 * A calendar's meetings of the last week by outcome (for a company source, each user's): how many were
 * scheduled, recorded, missed, failed, with missed and failed counted by reason, so an admin sees who
 * loses meetings and why. Read from the scope's calendar entries (kept this long past their start by the
 * sync, sync-calendar.ts): one bounded Query on the scope's own partition, then each schedule and its
 * meeting by BatchGet. A meeting's outcome is the one the apply step keeps on it; a schedule that never
 * got a bot (cancelled, launch refused) is told by deriveScheduleOutcome.
 */
import { deriveScheduleOutcome, type MeetingOutcome } from '../outcome/meeting-outcome';
import { OUTCOME_STATUSES, type OutcomeStatus } from '../outcome/outcome-reasons';
import { meetingOutcomeOf } from '../read/meeting-entry';
import { batchGetAll, type TableAccess } from '../store/dynamo';
import { keys } from '../store/table-layout';
import { type CalendarStore, entryScheduleId } from './calendar-store';

/** The report's window: meetings that started this many days before now, up to now. */
export const RECENT_OUTCOME_DAYS = 7;

/**
 * Entry pages (up to 1 MB each, thousands of entries) one scope's report reads; a scope with more is
 * reported from those read, and says it is partial (`complete: false`).
 */
export const RECENT_OUTCOME_ENTRY_PAGES = 2;

/** Meetings one scope's report reads (a busy person has dozens a week); past it, the report is partial. */
export const RECENT_OUTCOME_MAX_MEETINGS = 300;

const DAY_MS = 86_400_000;

export interface RecentOutcomes {
  days: number;
  /** The window's start (UTC); it ends now. */
  since: string;
  /** Meetings of the window a bot was (or is to be) sent to: every status but cancelled. */
  scheduled: number;
  by_status: Record<OutcomeStatus, number>;
  /** Missed meetings by the outcome's reason (the service's own sub-type where it gave one). */
  missed_by_reason: Record<string, number>;
  failed_by_reason: Record<string, number>;
  /** False when a bound was reached: the counts are of the meetings read (see RECENT_OUTCOME_*). */
  complete: boolean;
}

export interface RecentOutcomeDependencies {
  store: Pick<CalendarStore, 'listRecentEntries'>;
  table: TableAccess;
  now(): number;
}

/** The report's reads from the calendar API's dependencies: the entries' store, the schedules' table. */
export const recentOutcomeDependencies = (deps: {
  store: Pick<CalendarStore, 'listRecentEntries'>;
  schedules: { table: TableAccess };
  now(): number;
}): RecentOutcomeDependencies => ({ store: deps.store, table: deps.schedules.table, now: deps.now });

const emptyReport = (since: number): RecentOutcomes => ({
  days: RECENT_OUTCOME_DAYS,
  since: new Date(since).toISOString(),
  scheduled: 0,
  by_status: Object.fromEntries(OUTCOME_STATUSES.map((status) => [status, 0])) as Record<OutcomeStatus, number>,
  missed_by_reason: {},
  failed_by_reason: {},
  complete: true,
});

function count(report: RecentOutcomes, outcome: MeetingOutcome): void {
  report.by_status[outcome.status]++;
  if (outcome.status !== 'cancelled') report.scheduled++;
  const byReason =
    outcome.status === 'missed'
      ? report.missed_by_reason
      : outcome.status === 'failed'
        ? report.failed_by_reason
        : undefined;
  if (byReason !== undefined) byReason[outcome.reason] = (byReason[outcome.reason] ?? 0) + 1;
}

/** The report of one scope: an ICS calendar's id, or a company user's scope id. */
export async function recentOutcomes(scopeId: string, deps: RecentOutcomeDependencies): Promise<RecentOutcomes> {
  const now = deps.now();
  const since = now - RECENT_OUTCOME_DAYS * DAY_MS;
  const report = emptyReport(since);
  const listed = await deps.store.listRecentEntries(scopeId, RECENT_OUTCOME_ENTRY_PAGES);
  const inWindow = listed.entries.filter((entry) => {
    const start = Date.parse(entry.slot.start);
    return start >= since && start <= now;
  });
  // Two entries (an event re-issued under a new UID, a duplicate) may name one schedule: one meeting.
  const scheduleIds = [...new Set(inWindow.map(entryScheduleId))];
  const read = scheduleIds.slice(0, RECENT_OUTCOME_MAX_MEETINGS);
  report.complete = listed.complete && read.length === scheduleIds.length;
  const schedules = new Map(
    (
      await batchGetAll(
        deps.table,
        read.map((id) => keys.schedule(id)),
        { projection: { expression: 'scheduleId, #status, botId', names: { '#status': 'status' } } },
      )
    ).map((item) => [item.scheduleId as string, item]),
  );
  const botIds = [...schedules.values()].flatMap((item) => (typeof item.botId === 'string' ? [item.botId] : []));
  const meetings = new Map(
    (
      await batchGetAll(
        deps.table,
        botIds.map((botId) => keys.meeting(botId)),
        { projection: { expression: 'botId, #state, outcome', names: { '#state': 'state' } } },
      )
    ).map((item) => [item.botId as string, item]),
  );
  for (const id of read) {
    const schedule = schedules.get(id);
    // A schedule gone is one that was cancelled (GET /schedules shows it so too).
    const status = typeof schedule?.status === 'string' ? schedule.status : 'cancelled';
    const botId = typeof schedule?.botId === 'string' ? schedule.botId : undefined;
    const stored = botId === undefined ? null : meetingOutcomeOf(meetings.get(botId));
    count(report, stored ?? deriveScheduleOutcome({ status, ...(botId !== undefined && { botId }) }));
  }
  return report;
}

/** Several scopes' reports summed (a company source's users), complete only if each is. */
export function sumRecentOutcomes(reports: readonly RecentOutcomes[], now: number): RecentOutcomes {
  const total = emptyReport(now - RECENT_OUTCOME_DAYS * DAY_MS);
  for (const report of reports) {
    total.scheduled += report.scheduled;
    for (const status of OUTCOME_STATUSES) total.by_status[status] += report.by_status[status];
    for (const [into, from] of [
      [total.missed_by_reason, report.missed_by_reason],
      [total.failed_by_reason, report.failed_by_reason],
    ] as const)
      for (const [reason, n] of Object.entries(from)) into[reason] = (into[reason] ?? 0) + n;
    total.complete &&= report.complete;
  }
  return total;
}
