/** Erasing a meeting: typed confirmation (the bot id), then the receipt the API answered. */
import { useState } from 'preact/hooks';
import { change, path } from '../api';
import type { ErasureReceipt } from '../contracts';
import { Time } from '../time';

export function EraseMeeting(props: { botId: string }) {
  const [typed, setTyped] = useState('');
  const [state, setState] = useState<
    | { step: 'ask' }
    | { step: 'erasing' }
    | { step: 'done'; receipt: ErasureReceipt }
    | { step: 'failed'; reason: string }
  >({ step: 'ask' });
  if (state.step === 'done') {
    const { receipt } = state;
    return (
      <div role="status" class="receipt">
        <p>
          Erased. Receipt <code>{receipt.receipt_id}</code>, at <Time at={receipt.erased_at} />.
        </p>
        <dl>
          {Object.entries(receipt.counts).map(([store, count]) => (
            <div key={store}>
              <dt>{store.replaceAll('_', ' ')}</dt>
              <dd>{count}</dd>
            </div>
          ))}
        </dl>
        <p>Copies an erasure cannot reach:</p>
        <ul>
          {receipt.retained.map((copy) => (
            <li key={copy.store}>
              {copy.store}: {copy.why}{' '}
              {copy.until === null ? (
                '(kept by its owner)'
              ) : (
                <>
                  (gone by <Time at={copy.until} />)
                </>
              )}
            </li>
          ))}
        </ul>
      </div>
    );
  }
  return (
    <form
      class="danger"
      onSubmit={(event) => {
        event.preventDefault();
        if (typed !== props.botId) return;
        setState({ step: 'erasing' });
        change<ErasureReceipt>('DELETE', path`/meetings/${props.botId}`).then(
          (receipt) => setState({ step: 'done', receipt }),
          (error: unknown) => setState({ step: 'failed', reason: (error as Error).message }),
        );
      }}
    >
      <p>Erase this meeting everywhere the pipeline keeps it. This cannot be undone.</p>
      <label>
        Type the bot id to confirm
        <input
          type="text"
          autoComplete="off"
          spellcheck={false}
          value={typed}
          onInput={(event) => setTyped(event.currentTarget.value)}
        />
      </label>
      <button type="submit" disabled={typed !== props.botId || state.step === 'erasing'}>
        Erase meeting
      </button>
      {state.step === 'failed' ? (
        <p role="alert" class="error">
          Not erased: {state.reason}
        </p>
      ) : null}
    </form>
  );
}
