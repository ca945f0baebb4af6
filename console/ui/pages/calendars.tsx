/** Every calendar the pipeline follows: its source, bot name and last sync; each opens its page. */
import { getJson } from '../api';
import type { CalendarListAnswer } from '../contracts';
import { Show, useLoad } from '../load';
import { Link } from '../router';
import { Time } from '../time';

export function CalendarsPage() {
  const [list] = useLoad('calendars', () => getJson<CalendarListAnswer>('/calendars'));
  return (
    <section aria-labelledby="calendars-heading">
      <h1 id="calendars-heading">Calendars</h1>
      <Show loaded={list} what="the calendars">
        {({ calendars }) =>
          calendars.length === 0 ? (
            <p>No calendar is registered (meeting-pipeline calendars put).</p>
          ) : (
            <table class="list">
              <thead>
                <tr>
                  <th scope="col">Calendar</th>
                  <th scope="col">Source</th>
                  <th scope="col">Bot name</th>
                  <th scope="col">Looks ahead</th>
                  <th scope="col">Last sync</th>
                </tr>
              </thead>
              <tbody>
                {calendars.map((calendar) => (
                  <tr key={calendar.calendar_id}>
                    <td>
                      <Link href={`/calendars/${encodeURIComponent(calendar.calendar_id)}`}>
                        {calendar.calendar_id}
                      </Link>
                    </td>
                    <td>{calendar.source}</td>
                    <td>{calendar.bot_name}</td>
                    <td>{calendar.lookahead_days} days</td>
                    <td>
                      {calendar.last_sync === null ? (
                        'never'
                      ) : (
                        <>
                          <Time at={calendar.last_sync.at} />: {calendar.last_sync.outcome}
                        </>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )
        }
      </Show>
    </section>
  );
}
