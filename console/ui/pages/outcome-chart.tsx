/**
 * Meetings per day by outcome over the last 30 days: stacked bars drawn as SVG (no chart
 * library), with the same figures as a table for screen readers and keyboard users.
 */
import { OUTCOME_STATUSES } from '../contracts';
import { Show, useLoad } from '../load';
import { DAY_MS, meetingsOfDay } from '../meetings-of-day';
import { STATUS_WORDS } from '../outcome';
import { Link } from '../router';

const DAYS = 30;
/** Pages of the largest size read per day at most: a busier day is drawn "at least". */
const MAX_PAGES_PER_DAY = 5;
/** Requests at once: the console's server passes each on to the API. */
const PARALLEL_DAYS = 6;

interface DayCounts {
  day: string;
  counts: Record<string, number>;
  total: number;
  truncated: boolean;
}

async function countDay(day: string): Promise<DayCounts> {
  const { meetings, truncated } = await meetingsOfDay(day, MAX_PAGES_PER_DAY);
  const counts: Record<string, number> = {};
  for (const meeting of meetings) {
    const status = meeting.outcome?.status ?? 'unknown';
    counts[status] = (counts[status] ?? 0) + 1;
  }
  return { day, counts, total: meetings.length, truncated };
}

async function lastDays(now: Date): Promise<DayCounts[]> {
  const days = Array.from({ length: DAYS }, (_, i) =>
    new Date(now.getTime() - (DAYS - 1 - i) * DAY_MS).toISOString().slice(0, 10),
  );
  const result: DayCounts[] = [];
  for (let i = 0; i < days.length; i += PARALLEL_DAYS)
    result.push(...(await Promise.all(days.slice(i, i + PARALLEL_DAYS).map(countDay))));
  return result;
}

const BAR = 18;
const GAP = 4;
const HEIGHT = 120;

export function OutcomeChart() {
  const [loaded] = useLoad('outcome-chart', () => lastDays(new Date()));
  return (
    <Show loaded={loaded} what="the last 30 days">
      {(days) => {
        const most = Math.max(1, ...days.map((d) => d.total));
        const statuses = [...OUTCOME_STATUSES, 'unknown'];
        return (
          <figure class="chart">
            <svg
              viewBox={`0 0 ${days.length * (BAR + GAP)} ${HEIGHT}`}
              role="img"
              aria-labelledby="chart-caption"
              preserveAspectRatio="none"
            >
              <title>Meetings per day by outcome</title>
              {days.map((d, i) => {
                let y = HEIGHT;
                return (
                  <g key={d.day}>
                    <title>{`${d.day}: ${d.total}${d.truncated ? '+' : ''} meetings`}</title>
                    {statuses.map((status) => {
                      const count = d.counts[status] ?? 0;
                      if (count === 0) return null;
                      const height = (count / most) * HEIGHT;
                      y -= height;
                      return (
                        <rect
                          key={status}
                          class={`bar bar-${status}`}
                          x={i * (BAR + GAP)}
                          y={y}
                          width={BAR}
                          height={height}
                        />
                      );
                    })}
                  </g>
                );
              })}
            </svg>
            <figcaption id="chart-caption">
              Meetings per day by outcome, the last {DAYS} days (UTC), {days[0]?.day} to {days.at(-1)?.day}; most in a
              day: {most}.
            </figcaption>
            <ul class="legend">
              {OUTCOME_STATUSES.map((status) => (
                <li key={status}>
                  <span class={`swatch bar-${status}`} aria-hidden="true" /> {STATUS_WORDS[status]}
                </li>
              ))}
            </ul>
            <details>
              <summary>The figures as a table</summary>
              <table class="list">
                <thead>
                  <tr>
                    <th scope="col">Day</th>
                    {OUTCOME_STATUSES.map((status) => (
                      <th key={status} scope="col">
                        {STATUS_WORDS[status]}
                      </th>
                    ))}
                  </tr>
                </thead>
                <tbody>
                  {days
                    .filter((d) => d.total > 0)
                    .map((d) => (
                      <tr key={d.day}>
                        <th scope="row">
                          <Link href={`/meetings?day=${d.day}`}>{d.day}</Link>
                        </th>
                        {OUTCOME_STATUSES.map((status) => (
                          <td key={status}>{d.counts[status] ?? 0}</td>
                        ))}
                      </tr>
                    ))}
                </tbody>
              </table>
            </details>
          </figure>
        );
      }}
    </Show>
  );
}
