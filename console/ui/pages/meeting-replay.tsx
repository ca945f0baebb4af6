/**
 * Re-applying a meeting's stored webhooks: a dry run first (how many the ledger holds, which
 * expired), then, confirmed, the replay. What was applied already is recognised and skipped.
 */
import { useState } from 'preact/hooks';
import { change, path } from '../api';

interface ReplayAnswer {
  bot_id: string;
  applied: boolean;
  events: number;
  replayed: number;
  missing_from_ledger: string[];
  failures: Array<{ idempotency_key: string; error: string }>;
}

export function ReplayMeeting(props: { botId: string; readOnly: boolean }) {
  const [state, setState] = useState<
    | { step: 'idle' }
    | { step: 'asking' }
    | { step: 'checked'; answer: ReplayAnswer }
    | { step: 'done'; answer: ReplayAnswer }
    | { step: 'failed'; reason: string }
  >({ step: 'idle' });
  const ask = (apply: boolean) => {
    setState({ step: 'asking' });
    change<ReplayAnswer>('POST', `${path`/meetings/${props.botId}/replay`}?apply=${apply}`).then(
      (answer) => setState({ step: apply ? 'done' : 'checked', answer }),
      (error: unknown) => setState({ step: 'failed', reason: (error as Error).message }),
    );
  };
  return (
    <div class="action">
      <p>Re-apply the webhooks the ledger still holds for this meeting (after fixing what made them fail).</p>
      {state.step === 'checked' ? (
        <>
          <p role="status">
            Dry run: {state.answer.events} stored webhook(s) would be re-applied
            {state.answer.missing_from_ledger.length > 0
              ? `; the ledger no longer holds ${state.answer.missing_from_ledger.length} the meeting names`
              : ''}
            .
          </p>
          {props.readOnly ? null : (
            <button type="button" onClick={() => ask(true)}>
              Re-apply {state.answer.events} webhook(s)
            </button>
          )}
        </>
      ) : state.step === 'done' ? (
        <p role="status">
          Re-applied {state.answer.replayed} of {state.answer.events} webhook(s)
          {state.answer.failures.length > 0 ? `; ${state.answer.failures.length} failed` : ''}.
        </p>
      ) : (
        <button type="button" disabled={state.step === 'asking'} onClick={() => ask(false)}>
          Check what a replay would do
        </button>
      )}
      {state.step === 'failed' ? (
        <p role="alert" class="error">
          Replay: {state.reason}
        </p>
      ) : null}
    </div>
  );
}
