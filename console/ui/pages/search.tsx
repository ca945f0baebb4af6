/** The lake's keyword search over every meeting; a hit opens the meeting at that moment. */
import { getJson } from '../api';
import type { TranscriptSearchPage } from '../contracts';
import { Show, useLoad } from '../load';
import { Link, navigate, useLocation, withQuery } from '../router';

export function SearchPage() {
  const url = useLocation();
  const words = url.searchParams.get('words') ?? '';
  const speaker = url.searchParams.get('speaker') ?? '';
  const from = url.searchParams.get('from') ?? '';
  const to = url.searchParams.get('to') ?? '';
  const cursor = url.searchParams.get('cursor') ?? '';
  const query = new URLSearchParams({ words });
  for (const [key, value] of Object.entries({ speaker, from, to, cursor })) if (value !== '') query.set(key, value);
  const [page] = useLoad(`search?${query}`, () =>
    words.trim() === '' ? Promise.resolve(null) : getJson<TranscriptSearchPage>(`/search?${query}`),
  );
  return (
    <section aria-labelledby="search-heading">
      <h1 id="search-heading">Search every meeting</h1>
      <search>
        <form
          class="filters"
          onSubmit={(event) => {
            event.preventDefault();
            const form = new FormData(event.currentTarget);
            const value = (name: string) => String(form.get(name) ?? '').trim();
            navigate(
              withQuery(url, {
                words: value('words'),
                speaker: value('speaker'),
                from: value('from'),
                to: value('to'),
                cursor: undefined,
              }),
            );
          }}
        >
          <label>
            Words
            <input type="search" name="words" defaultValue={words} required />
          </label>
          <label>
            Speaker
            <input type="text" name="speaker" defaultValue={speaker} />
          </label>
          <label>
            From (UTC day)
            <input type="date" name="from" defaultValue={from} />
          </label>
          <label>
            To (UTC day)
            <input type="date" name="to" defaultValue={to} />
          </label>
          <button type="submit">Search</button>
        </form>
      </search>
      <Show loaded={page} what="the search">
        {(answer) =>
          answer === null ? (
            <p class="muted">Words said in any meeting, as one phrase, any case; newest meetings first.</p>
          ) : (
            <>
              <p role="status">
                {answer.hits.length === 0 ? 'No hits' : `${answer.hits.length} hit(s)`}
                {answer.next_cursor === null ? '' : `, searched back to ${answer.searched_through}`} ({answer.engine},{' '}
                {answer.bytes_scanned} bytes read)
              </p>
              <ol class="hits">
                {answer.hits.map((hit) => (
                  <li key={`${hit.bot_id}-${hit.offset_ms}`}>
                    <Link href={`/meetings/${encodeURIComponent(hit.bot_id)}?t=${hit.offset_ms}`}>
                      {hit.day} · {hit.bot_id} · {hit.offset}
                    </Link>{' '}
                    <span class="speaker">{hit.speaker}</span>: <span class="text">{hit.snippet}</span>
                  </li>
                ))}
              </ol>
              {answer.next_cursor === null ? null : (
                <p>
                  <Link href={withQuery(url, { cursor: answer.next_cursor })}>Older hits</Link>
                </p>
              )}
            </>
          )
        }
      </Show>
    </section>
  );
}
