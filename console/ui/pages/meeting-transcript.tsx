/** A meeting's transcript: find in it; a line plays the recording from its moment. */
import { useState } from 'preact/hooks';
import type { TranscriptAnswer } from '../contracts';
import { clock } from '../time';

export function Transcript(props: { transcript: TranscriptAnswer; playFrom?: (ms: number) => void }) {
  const [find, setFind] = useState('');
  const needle = find.trim().toLocaleLowerCase();
  const lines = props.transcript.utterances.filter(
    (u) =>
      needle === '' ||
      u.text.toLocaleLowerCase().includes(needle) ||
      u.speaker_name.toLocaleLowerCase().includes(needle),
  );
  const { playFrom } = props;
  return (
    <>
      <label class="find">
        Find in transcript
        <input type="search" value={find} onInput={(event) => setFind(event.currentTarget.value)} />
      </label>
      <p class="muted" role="status">
        {needle === ''
          ? `${props.transcript.utterances.length} lines`
          : `${lines.length} of ${props.transcript.utterances.length} lines`}
        {props.transcript.offsets_from === 'first_utterance' ? ' (times from the first line)' : ''}
      </p>
      <ol class="transcript">
        {lines.map((u) => (
          <li key={`${u.timestamp_ms}-${u.speaker_uuid}`} data-offset-ms={u.offset_ms}>
            {playFrom === undefined ? (
              <span class="at">{clock(u.offset_ms)}</span>
            ) : (
              <button
                type="button"
                class="at"
                aria-label={`Play the recording from ${clock(u.offset_ms)}`}
                onClick={() => playFrom(u.offset_ms)}
              >
                {clock(u.offset_ms)}
              </button>
            )}{' '}
            <span class="speaker">{u.speaker_name}</span> <span class="text">{u.text}</span>
          </li>
        ))}
      </ol>
    </>
  );
}
