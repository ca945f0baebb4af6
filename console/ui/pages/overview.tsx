/**
 * The last 24 hours at a glance: meetings by outcome, the missed and failed ones by reason.
 * Each number opens the list behind it.
 */
import { type MeetingListEntry, OUTCOME_STATUSES } from '../contracts';
import { Show, useLoad } from '../load';
import { DAY_MS, meetingsOfDay } from '../meetings-of-day';
import { STATUS_WORDS } from '../outcome';
import { Link } from '../router';
import { FiringAlarms } from './alarms';
import { OutcomeChart } from './outcome-chart';
import { QueueCounts } from './queue-counts';

/** Pages of the largest size read per day at most: a busy day is counted "at least". */
const MAX_PAGES_PER_DAY = 20;

interface Window24h {
  meetings: MeetingListEntry[];
  /** A day had more pages than were read. */
  truncated: boolean;
  days: string[];
}

async function lastDay(now: Date): Promise<Window24h> {
  const days = [new Date(now.getTime() - DAY_MS), now].map((date) => date.toISOString().slice(0, 10));
  const read = await Promise.all(days.map((day) => meetingsOfDay(day, MAX_PAGES_PER_DAY)));
  const meetings = read.flatMap((day) => day.meetings);
  const truncated = read.some((day) => day.truncated);
  const since = now.getTime() - DAY_MS;
  const recent = meetings.filter((m) => {
    const at = m.state_at ?? m.scheduled_join_at;
    return at === null || Date.parse(at) >= since;
  });
  return { meetings: recent, truncated, days };
}

function countBy<T>(items: T[], key: (item: T) => string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(key(item), (counts.get(key(item)) ?? 0) + 1);
  return counts;
}

export function OverviewPage() {
  const [loaded] = useLoad('overview', () => lastDay(new Date()));
  return (
    <section aria-labelledby="overview-heading">
      <h1 id="overview-heading">Overview: the last 24 hours</h1>
      <Show loaded={loaded} what="the last day's meetings">
        {(window) => {
          const byStatus = countBy(window.meetings, (m) => m.outcome?.status ?? 'unknown');
          const today = window.days[1] ?? '';
          const notRecorded = window.meetings.filter(
            (m) => m.outcome?.status === 'missed' || m.outcome?.status === 'failed',
          );
          const byReason = [...countBy(notRecorded, (m) => `${m.outcome?.status}:${m.outcome?.reason}`)].sort(
            (a, b) => b[1] - a[1],
          );
          return (
            <>
              <h2>Meetings by outcome{window.truncated ? ' (at least)' : ''}</h2>
              <ul class="tiles">
                {OUTCOME_STATUSES.map((status) => (
                  <li key={status} class={`tile tile-${status}`}>
                    <Link href={`/meetings?day=${today}&outcome=${status}`}>
                      <span class="count">{byStatus.get(status) ?? 0}</span>
                      <span class="label">{STATUS_WORDS[status]}</span>
                    </Link>
                  </li>
                ))}
              </ul>
              <h2>Why meetings were missed or failed</h2>
              {byReason.length === 0 ? (
                <p>None missed or failed in the last 24 hours.</p>
              ) : (
                <table class="list">
                  <thead>
                    <tr>
                      <th scope="col">Outcome</th>
                      <th scope="col">Reason</th>
                      <th scope="col">Meetings</th>
                    </tr>
                  </thead>
                  <tbody>
                    {byReason.map(([key, count]) => {
                      const [status = '', reason = ''] = key.split(':');
                      return (
                        <tr key={key}>
                          <td>{STATUS_WORDS[status] ?? status}</td>
                          <td>{reason}</td>
                          <td>
                            <Link href={`/meetings?day=${today}&outcome=${status}`}>{count}</Link>
                          </td>
                        </tr>
                      );
                    })}
                  </tbody>
                </table>
              )}
              <p class="muted">
                Meetings listed on {window.days.join(' and ')} (UTC) whose last change is within the last 24 hours.
              </p>
            </>
          );
        }}
      </Show>
      <h2>Waiting for someone</h2>
      <QueueCounts />
      <h2>Alarms</h2>
      <FiringAlarms />
      <h2>The last 30 days</h2>
      <OutcomeChart />
    </section>
  );
}
