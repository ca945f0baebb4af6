/** Meetings of a UTC day, filtered by outcome and state, a page at a time; each row opens the meeting. */
import { getJson } from '../api';
import { type MeetingList, OUTCOME_STATUSES } from '../contracts';
import { Show, useLoad } from '../load';
import { OutcomeBadge, STATUS_WORDS } from '../outcome';
import { Link, navigate, useLocation, withQuery } from '../router';
import { Time } from '../time';

const todayUtc = () => new Date().toISOString().slice(0, 10);

export function MeetingsPage() {
  const url = useLocation();
  const day = url.searchParams.get('day') ?? todayUtc();
  const outcome = url.searchParams.get('outcome') ?? '';
  const state = url.searchParams.get('state') ?? '';
  const cursor = url.searchParams.get('cursor') ?? undefined;
  const query = new URLSearchParams({ day, limit: '50' });
  if (outcome !== '') query.set('outcome', outcome);
  if (state !== '') query.set('state', state);
  if (cursor !== undefined) query.set('cursor', cursor);
  const [list] = useLoad(query.toString(), () => getJson<MeetingList>(`/meetings?${query}`));
  const filter = (changes: Record<string, string | undefined>) =>
    navigate(withQuery(url, { ...changes, cursor: undefined }));
  return (
    <section aria-labelledby="meetings-heading">
      <h1 id="meetings-heading">Meetings</h1>
      <form class="filters" onSubmit={(event) => event.preventDefault()}>
        <label>
          Day (UTC)
          <input type="date" value={day} onChange={(event) => filter({ day: event.currentTarget.value })} />
        </label>
        <label>
          Outcome
          <select value={outcome} onChange={(event) => filter({ outcome: event.currentTarget.value })}>
            <option value="">any</option>
            {OUTCOME_STATUSES.map((status) => (
              <option key={status} value={status}>
                {STATUS_WORDS[status] ?? status}
              </option>
            ))}
          </select>
        </label>
        <label>
          Bot state
          <input
            type="text"
            value={state}
            placeholder="e.g. ended"
            onChange={(event) => filter({ state: event.currentTarget.value.trim() })}
          />
        </label>
      </form>
      <Show loaded={list} what="meetings">
        {(answer) =>
          answer.meetings.length === 0 ? (
            <p>No meetings on {day} with these filters.</p>
          ) : (
            <>
              <table class="list">
                <caption class="visually-hidden">Meetings on {day}</caption>
                <thead>
                  <tr>
                    <th scope="col">Bot</th>
                    <th scope="col">Outcome</th>
                    <th scope="col">State</th>
                    <th scope="col">Since</th>
                    <th scope="col">Scheduled join</th>
                    <th scope="col">Meeting link</th>
                  </tr>
                </thead>
                <tbody>
                  {answer.meetings.map((meeting) => (
                    <tr key={meeting.bot_id}>
                      <td>
                        <Link href={`/meetings/${encodeURIComponent(meeting.bot_id)}`}>{meeting.bot_id}</Link>
                      </td>
                      <td>
                        <OutcomeBadge outcome={meeting.outcome} />
                      </td>
                      <td>{meeting.state ?? '—'}</td>
                      <td>
                        <Time at={meeting.state_at} />
                      </td>
                      <td>
                        <Time at={meeting.scheduled_join_at} />
                      </td>
                      <td class="wrap">{meeting.meeting_url ?? '—'}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
              {answer.next_cursor === null ? null : (
                <p>
                  <Link href={withQuery(url, { cursor: answer.next_cursor })}>Next page</Link>
                </p>
              )}
            </>
          )
        }
      </Show>
    </section>
  );
}
