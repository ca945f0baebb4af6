/**
 * The quarantine: webhooks refused for their signature, kept. Re-drive is a dry run first (which
 * would verify with the secret as stored now), then, confirmed, the re-drive itself.
 */
import { useState } from 'preact/hooks';
import { change, getJson } from '../api';
import { Show, useLoad } from '../load';
import { Time } from '../time';

interface QuarantineAnswer {
  quarantined: Array<{ key: string; received_at: string; reason: string; bytes: number; sha256: string }>;
}
interface RedriveAnswer {
  applied: boolean;
  checked: number;
  redriven: string[];
  still_refused: string[];
  failed: Array<{ key: string; reason: string }>;
}

const summary = (answer: RedriveAnswer) =>
  `${answer.checked} checked: ${answer.redriven.length} ${answer.applied ? 're-driven' : 'would be re-driven'}, ` +
  `${answer.still_refused.length} still refused, ${answer.failed.length} failed`;

export function Quarantine(props: { readOnly: boolean }) {
  const [list, reload] = useLoad('quarantine', () => getJson<QuarantineAnswer>('/quarantine'));
  const [state, setState] = useState<
    { at: 'idle' | 'asking' } | { at: 'checked' | 'done'; answer: RedriveAnswer } | { at: 'failed'; reason: string }
  >({ at: 'idle' });
  const ask = (apply: boolean) => {
    setState({ at: 'asking' });
    change<RedriveAnswer>('POST', `/quarantine/redrive?apply=${apply}`).then(
      (answer) => {
        setState({ at: apply ? 'done' : 'checked', answer });
        if (apply) reload();
      },
      (error: unknown) => setState({ at: 'failed', reason: (error as Error).message }),
    );
  };
  return (
    <>
      <Show loaded={list} what="the quarantine">
        {({ quarantined }) =>
          quarantined.length === 0 ? (
            <p>Nothing is quarantined.</p>
          ) : (
            <table class="list quarantine">
              <thead>
                <tr>
                  <th scope="col">Received</th>
                  <th scope="col">Why refused</th>
                  <th scope="col">Bytes</th>
                  <th scope="col">Kept as</th>
                </tr>
              </thead>
              <tbody>
                {quarantined.map((entry) => (
                  <tr key={entry.key}>
                    <td>
                      <Time at={entry.received_at} />
                    </td>
                    <td>{entry.reason}</td>
                    <td>{entry.bytes}</td>
                    <td class="wrap">
                      <code>{entry.key}</code>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )
        }
      </Show>
      <div role="status">
        {state.at === 'checked' || state.at === 'done' ? (
          <p class="quarantine-report">
            {state.at === 'checked' ? 'Dry run: ' : 'Done: '}
            {summary(state.answer)}.
          </p>
        ) : null}
      </div>
      {state.at === 'checked' && !props.readOnly ? (
        <button type="button" onClick={() => ask(true)}>
          Re-drive what verifies now
        </button>
      ) : state.at === 'done' ? null : (
        <button type="button" disabled={state.at === 'asking'} onClick={() => ask(false)}>
          Check what a re-drive would do
        </button>
      )}
      {state.at === 'failed' ? (
        <p role="alert" class="error">
          Quarantine: {state.reason}
        </p>
      ) : null}
    </>
  );
}
