/** A meeting's transcript: find in it; a line plays the recording from its moment. */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { TranscriptAnswer } from '../contracts';
import { clock } from '../time';

/** The line nearest a moment (a search hit's): the one to show first. */
function nearestLine(transcript: TranscriptAnswer, ms: number): number | undefined {
  let best: number | undefined;
  for (const u of transcript.utterances)
    if (best === undefined || Math.abs(u.offset_ms - ms) < Math.abs(best - ms)) best = u.offset_ms;
  return best;
}

export function Transcript(props: {
  transcript: TranscriptAnswer;
  playFrom?: (ms: number) => void;
  /** A moment to open at (`?t=` in the address): its line is marked and scrolled to. */
  focusMs?: number;
}) {
  const [find, setFind] = useState('');
  const focused = props.focusMs === undefined ? undefined : nearestLine(props.transcript, props.focusMs);
  const focusedLine = useRef<HTMLLIElement>(null);
  useEffect(() => {
    focusedLine.current?.scrollIntoView({ block: 'center' });
  }, []);
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
          <li
            key={`${u.timestamp_ms}-${u.speaker_uuid}`}
            data-offset-ms={u.offset_ms}
            {...(u.offset_ms === focused && { ref: focusedLine, class: 'focused', 'aria-current': 'true' as const })}
          >
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
