/**
 * One meeting: its outcome and timeline, the recording, the transcript (a line plays the
 * recording from there), participants, summary, its delivery log, and erasure.
 */
import { useEffect, useRef } from 'preact/hooks';
import { ApiFailure, consoleSession, getJson, path } from '../api';
import type { DeliveryLogAnswer, MeetingView, ParticipantAnswer, TranscriptAnswer } from '../contracts';
import { Show, useLoad } from '../load';
import { OutcomeBadge } from '../outcome';
import { useLocation } from '../router';
import { Time } from '../time';
import { EraseMeeting } from './meeting-erase';
import { ReplayMeeting } from './meeting-replay';
import { Transcript } from './meeting-transcript';

/** A part that may not exist yet (no transcript before the meeting): 404 is "none", not a failure. */
async function orNone<T>(load: Promise<T>): Promise<T | null> {
  try {
    return await load;
  } catch (error) {
    if (error instanceof ApiFailure && error.status === 404) return null;
    throw error;
  }
}

export function MeetingPage(props: { botId: string }) {
  const { botId } = props;
  const [meeting] = useLoad(`meeting:${botId}`, () => getJson<MeetingView>(path`/meetings/${botId}`));
  const [transcript] = useLoad(`transcript:${botId}`, () =>
    orNone(getJson<TranscriptAnswer>(path`/meetings/${botId}/transcript`)),
  );
  const [participants] = useLoad(`participants:${botId}`, () =>
    orNone(getJson<ParticipantAnswer>(path`/meetings/${botId}/participants`)),
  );
  const [deliveries] = useLoad(`deliveries:${botId}`, () =>
    getJson<DeliveryLogAnswer>(path`/meetings/${botId}/events`),
  );
  const [session] = useLoad('session', consoleSession);
  const player = useRef<HTMLVideoElement>(null);
  const moment = Number(useLocation().searchParams.get('t') ?? Number.NaN);
  const focusMs = Number.isFinite(moment) && moment >= 0 ? moment : undefined;
  const playerShown = meeting.state === 'ready' && meeting.value.recording?.status === 'archived';
  // Opened at a moment (a search hit): the recording starts there.
  useEffect(() => {
    if (playerShown && focusMs !== undefined && player.current !== null) player.current.currentTime = focusMs / 1000;
  }, [playerShown, focusMs]);
  const playFrom = (ms: number) => {
    const media = player.current;
    if (media === null) return;
    media.currentTime = ms / 1000;
    media.play().catch(() => {
      // Playback refused (no sound device, autoplay rules): the position is set; the controls play it.
    });
    media.focus();
  };
  return (
    <article aria-labelledby="meeting-heading">
      <h1 id="meeting-heading">
        Meeting <code>{botId}</code>
      </h1>
      <Show loaded={meeting} what="the meeting">
        {(m) => (
          <>
            <p class="outcome">
              <OutcomeBadge outcome={m.outcome} /> <span class="sentence">{m.outcome?.sentence ?? ''}</span>
            </p>
            <dl class="fields">
              <div>
                <dt>State</dt>
                <dd>
                  {m.state ?? '—'} since <Time at={m.state_at} />
                </dd>
              </div>
              <div>
                <dt>Scheduled join</dt>
                <dd>
                  <Time at={m.scheduled_join_at} />
                </dd>
              </div>
              <div>
                <dt>Meeting link</dt>
                <dd class="wrap">{m.meeting_url ?? '—'}</dd>
              </div>
              <div>
                <dt>Archived</dt>
                <dd>
                  <Time at={m.archived_at} />
                </dd>
              </div>
            </dl>
            <h2>Timeline</h2>
            <table class="list">
              <thead>
                <tr>
                  <th scope="col">When</th>
                  <th scope="col">Event</th>
                  <th scope="col">Reason</th>
                  <th scope="col">State</th>
                </tr>
              </thead>
              <tbody>
                {m.timeline.map((entry, i) => (
                  <tr key={`${entry.at}-${i}`}>
                    <td>
                      <Time at={entry.at} />
                    </td>
                    <td>{entry.event_type}</td>
                    <td>{entry.event_sub_type ?? '—'}</td>
                    <td>
                      {entry.old_state ?? '?'} → {entry.new_state ?? '?'}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
            <h2>Recording</h2>
            {m.recording?.status === 'archived' ? (
              <>
                {/* biome-ignore lint/a11y/useMediaCaption: the transcript below is the meeting's text */}
                <video
                  ref={player}
                  class="player"
                  controls
                  preload="metadata"
                  aria-label="The meeting's recording"
                  src={path`/api/meetings/${botId}/recording/media`}
                />
                <p class="muted">
                  {m.recording.content_type} · {m.recording.bytes} bytes · sha256 <code>{m.recording.sha256}</code>
                </p>
              </>
            ) : (
              <p>No recording archived.</p>
            )}
            <h2>Summary</h2>
            <p class="summary">{m.summary ?? 'No summary arrived.'}</p>
          </>
        )}
      </Show>
      <h2>Transcript</h2>
      <Show loaded={transcript} what="the transcript">
        {(answer) =>
          answer === null || answer.utterances.length === 0 ? (
            <p>No transcript.</p>
          ) : (
            <Transcript
              transcript={answer}
              {...(playerShown && { playFrom })}
              {...(focusMs !== undefined && { focusMs })}
            />
          )
        }
      </Show>
      <h2>Participants</h2>
      <Show loaded={participants} what="the participants">
        {(answer) =>
          answer === null || answer.participants.length === 0 ? (
            <p>No participants.</p>
          ) : (
            <table class="list">
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Host</th>
                  <th scope="col">Joined</th>
                  <th scope="col">Left</th>
                </tr>
              </thead>
              <tbody>
                {answer.participants.map((p) => (
                  <tr key={p.participant_uuid}>
                    <td class="participant-name">{p.name ?? '(no name)'}</td>
                    <td>{p.is_host ? 'host' : ''}</td>
                    <td>
                      <Time at={p.joined_at} />
                    </td>
                    <td>
                      <Time at={p.left_at} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )
        }
      </Show>
      <h2>Deliveries</h2>
      <Show loaded={deliveries} what="the delivery log">
        {(log) =>
          log.events.length === 0 ? (
            <p>No webhooks received.</p>
          ) : (
            <table class="list">
              <thead>
                <tr>
                  <th scope="col">Received</th>
                  <th scope="col">Trigger</th>
                  <th scope="col">Outcome</th>
                  <th scope="col">Key</th>
                </tr>
              </thead>
              <tbody>
                {log.events.map((event) => (
                  <tr key={`${event.idempotency_key}-${event.received_at}`}>
                    <td>
                      <Time at={event.received_at} />
                    </td>
                    <td>{event.trigger}</td>
                    <td>
                      {event.outcome}
                      {event.failure_reason === undefined ? '' : `: ${event.failure_reason}`}
                    </td>
                    <td class="wrap">
                      <code>{event.idempotency_key}</code>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )
        }
      </Show>
      <Show loaded={session} what="the console session">
        {(s) => (
          <>
            <h2>Replay</h2>
            <ReplayMeeting botId={botId} readOnly={s.read_only} />
            {s.read_only ? null : (
              <>
                <h2>Erase</h2>
                <EraseMeeting botId={botId} />
              </>
            )}
          </>
        )}
      </Show>
    </article>
  );
}
