/**
 * One calendar: the last 7 days by outcome, its users (connected or not, and why), sync now,
 * the preview of its decisions (join or skip, and why), and its upcoming bots with cancel.
 */
import { useState } from 'preact/hooks';
import { change, consoleSession, getJson, path } from '../api';
import type { CalendarAnswer, PreviewAnswer, SchedulesAnswer } from '../contracts';
import { Show, useLoad } from '../load';
import { Time } from '../time';
import { recentLine } from './recent-outcomes';

function SyncNow(props: { calendarId: string; done: () => void }) {
  const [state, setState] = useState<{ at: 'idle' | 'syncing' } | { at: 'done' | 'failed'; text: string }>({
    at: 'idle',
  });
  return (
    <p>
      <button
        type="button"
        disabled={state.at === 'syncing'}
        onClick={() => {
          setState({ at: 'syncing' });
          change<Record<string, unknown>>('POST', path`/calendars/${props.calendarId}/sync`).then(
            (answer) => {
              const counts = ['created', 'moved', 'cancelled', 'unchanged', 'skipped']
                .filter((key) => typeof answer[key] === 'number')
                .map((key) => `${answer[key]} ${key}`)
                .join(', ');
              setState({ at: 'done', text: counts === '' ? 'Sync started.' : `Synced: ${counts}.` });
              props.done();
            },
            (error: unknown) => setState({ at: 'failed', text: (error as Error).message }),
          );
        }}
      >
        Sync now
      </button>{' '}
      {state.at === 'done' ? <span role="status">{state.text}</span> : null}
      {state.at === 'failed' ? (
        <span role="alert" class="error">
          Not synced: {state.text}
        </span>
      ) : null}
    </p>
  );
}

function CancelSchedule(props: { id: string; done: () => void }) {
  const [state, setState] = useState<'idle' | 'confirm' | 'cancelling' | string>('idle');
  if (state === 'idle')
    return (
      <button type="button" onClick={() => setState('confirm')}>
        Cancel bot
      </button>
    );
  if (state === 'confirm' || state === 'cancelling')
    return (
      <button
        type="button"
        disabled={state === 'cancelling'}
        onClick={() => {
          setState('cancelling');
          change('DELETE', path`/schedules/${props.id}`).then(props.done, (error: unknown) =>
            setState(`Not cancelled: ${(error as Error).message}`),
          );
        }}
      >
        Confirm cancel
      </button>
    );
  return (
    <span role="alert" class="error">
      {state}
    </span>
  );
}

export function CalendarPage(props: { calendarId: string }) {
  const { calendarId } = props;
  const [calendar, reloadCalendar] = useLoad(`calendar:${calendarId}`, () =>
    getJson<CalendarAnswer>(path`/calendars/${calendarId}`),
  );
  const [preview] = useLoad(`preview:${calendarId}`, () =>
    getJson<PreviewAnswer>(path`/calendars/${calendarId}/preview`),
  );
  const [schedules, reloadSchedules] = useLoad(`schedules:${calendarId}`, () =>
    getJson<SchedulesAnswer>(`/schedules?calendar_id=${encodeURIComponent(calendarId)}`),
  );
  const [session] = useLoad('session', consoleSession);
  const readOnly = session.state !== 'ready' || session.value.read_only;
  const now = Date.now();
  return (
    <article aria-labelledby="calendar-heading">
      <h1 id="calendar-heading">
        Calendar <code>{calendarId}</code>
      </h1>
      <Show loaded={calendar} what="the calendar">
        {(c) => (
          <>
            <p>
              {c.provider ?? 'ICS feed'} · bot name {c.bot_name} · looks {c.lookahead_days} days ahead
              {c.ics_url === undefined ? '' : ` · ${c.ics_url}`}
            </p>
            <h2>The last 7 days</h2>
            <p class="recent">{recentLine(c.totals?.recent_outcomes ?? c.recent_outcomes)}</p>
            {c.users === undefined ? null : (
              <>
                <h2>People</h2>
                <p>
                  {c.totals?.connected ?? 0} connected, {c.totals?.disconnected ?? 0} disconnected,{' '}
                  {c.totals?.pending ?? 0} pending
                </p>
                <table class="list">
                  <thead>
                    <tr>
                      <th scope="col">Person</th>
                      <th scope="col">State</th>
                      <th scope="col">Last sync</th>
                      <th scope="col">The last 7 days</th>
                    </tr>
                  </thead>
                  <tbody>
                    {c.users.map((user) => (
                      <tr key={user.user} data-user={user.user}>
                        <td class="wrap">{user.user}</td>
                        <td>
                          {user.state}
                          {user.reason === null ? '' : `: ${user.reason}`}
                        </td>
                        <td>
                          <Time at={user.last_sync} /> {user.last_sync_outcome ?? ''}
                        </td>
                        <td class="recent">{recentLine(user.recent_outcomes)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </>
            )}
          </>
        )}
      </Show>
      {/* Outside the calendar's view, which reloads after a sync: the sync's answer stays on screen. */}
      {readOnly ? null : (
        <SyncNow
          calendarId={calendarId}
          done={() => {
            reloadCalendar();
            reloadSchedules();
          }}
        />
      )}
      <h2>Upcoming bots</h2>
      <Show loaded={schedules} what="the schedules">
        {(answer) => {
          const upcoming = answer.schedules.filter((s) => Date.parse(s.join_at) >= now - 3_600_000);
          return upcoming.length === 0 ? (
            <p>No upcoming bots.</p>
          ) : (
            <table class="list">
              <thead>
                <tr>
                  <th scope="col">Joins</th>
                  <th scope="col">Meeting</th>
                  <th scope="col">Status</th>
                  {readOnly ? null : <th scope="col">Cancel</th>}
                </tr>
              </thead>
              <tbody>
                {upcoming.map((s) => (
                  <tr key={s.id} data-schedule={s.id}>
                    <td>
                      <Time at={s.join_at} />
                    </td>
                    <td class="wrap">
                      {s.title}
                      {s.user === undefined ? '' : ` (${s.user})`}
                    </td>
                    <td>{s.status}</td>
                    {readOnly ? null : (
                      <td>{s.status === 'scheduled' ? <CancelSchedule id={s.id} done={reloadSchedules} /> : null}</td>
                    )}
                  </tr>
                ))}
              </tbody>
            </table>
          );
        }}
      </Show>
      <h2>What the rules decide</h2>
      <Show loaded={preview} what="the preview">
        {(answer) => (
          <>
            {answer.problems.length > 0 ? <p class="error">{answer.problems.join('; ')}</p> : null}
            <table class="list">
              <thead>
                <tr>
                  <th scope="col">Starts</th>
                  <th scope="col">Meeting</th>
                  <th scope="col">Decision</th>
                  <th scope="col">Why</th>
                </tr>
              </thead>
              <tbody>
                {answer.occurrences.map((o) => (
                  <tr key={`${o.uid}-${o.start}-${o.user ?? ''}`}>
                    <td>
                      <Time at={o.start} />
                    </td>
                    <td class="wrap title">{o.title}</td>
                    <td>{o.decision}</td>
                    <td>{o.reason}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </>
        )}
      </Show>
    </article>
  );
}
