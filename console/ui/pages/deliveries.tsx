/** Dead-letter queues: how many messages wait, a peek at one, and re-drive (confirmed first). */
import { useState } from 'preact/hooks';
import { change, consoleSession, getJson, path } from '../api';
import type { DeadLetterQueueView } from '../contracts';
import { Show, useLoad } from '../load';
import { Quarantine } from './quarantine';

interface RedriveAnswer {
  name: string;
  via: string;
  moved: number;
  failed: Array<{ messageId: string; reason: string }>;
}

function Redrive(props: { queue: DeadLetterQueueView; done: (answer: RedriveAnswer) => void }) {
  const { queue } = props;
  const [step, setStep] = useState<
    | { at: 'idle' }
    | { at: 'confirm' }
    | { at: 'moving' }
    | { at: 'done'; answer: RedriveAnswer }
    | { at: 'failed'; reason: string }
  >({ at: 'idle' });
  if (step.at === 'done')
    return (
      <p role="status">
        {step.answer.moved} moved back to the {queue.redrives_to}
        {step.answer.failed.length > 0 ? `, ${step.answer.failed.length} failed` : ''}.
      </p>
    );
  if (step.at === 'confirm' || step.at === 'moving')
    return (
      <p>
        Send the {queue.approximate_messages} waiting message(s) back to the {queue.redrives_to}?{' '}
        <button
          type="button"
          disabled={step.at === 'moving'}
          onClick={() => {
            setStep({ at: 'moving' });
            change<RedriveAnswer>('POST', path`/dead-letter-queues/${queue.name}/redrive`).then(
              (answer) => props.done(answer),
              (error: unknown) => setStep({ at: 'failed', reason: (error as Error).message }),
            );
          }}
        >
          Confirm re-drive of {queue.name}
        </button>{' '}
        <button type="button" onClick={() => setStep({ at: 'idle' })}>
          Cancel
        </button>
      </p>
    );
  return (
    <>
      <button type="button" disabled={queue.approximate_messages === 0} onClick={() => setStep({ at: 'confirm' })}>
        Re-drive {queue.name}
      </button>
      {step.at === 'failed' ? (
        <p role="alert" class="error">
          Not re-driven: {step.reason}
        </p>
      ) : null}
    </>
  );
}

export function DeliveriesPage() {
  const [queues, reload] = useLoad('dead-letter-queues', () =>
    getJson<{ queues: DeadLetterQueueView[] }>('/dead-letter-queues'),
  );
  const [session] = useLoad('session', consoleSession);
  const readOnly = session.state !== 'ready' || session.value.read_only;
  // What the last re-drives did: said above the table, which reloads with the new counts.
  const [done, setDone] = useState<Array<RedriveAnswer & { redrives_to: string }>>([]);
  return (
    <section aria-labelledby="deliveries-heading">
      <h1 id="deliveries-heading">Deliveries</h1>
      <p>A meeting's own delivery log is on its page. Here: what failed for good and waits in a dead-letter queue.</p>
      <h2>Dead-letter queues</h2>
      <div role="status">
        {done.map((answer, i) => (
          <p key={`${answer.name}-${i}`} class="moved">
            {answer.name}: {answer.moved} moved back to the {answer.redrives_to}
            {answer.failed.length > 0 ? `, ${answer.failed.length} failed` : ''}.
          </p>
        ))}
      </div>
      <Show loaded={queues} what="the dead-letter queues">
        {({ queues: list }) => (
          <table class="list">
            <thead>
              <tr>
                <th scope="col">Queue</th>
                <th scope="col">Holds</th>
                <th scope="col">Waiting</th>
                <th scope="col">A message</th>
                {readOnly ? null : <th scope="col">Re-drive</th>}
              </tr>
            </thead>
            <tbody>
              {list.map((queue) => (
                <tr key={queue.name} data-queue={queue.name}>
                  <th scope="row">{queue.name}</th>
                  <td>{queue.holds}</td>
                  <td class="count">{queue.approximate_messages}</td>
                  <td class="wrap">
                    {queue.sample === null ? (
                      '—'
                    ) : (
                      <details>
                        <summary>Peek at {queue.sample.message_id}</summary>
                        <pre class="peek">{queue.sample.body}</pre>
                      </details>
                    )}
                  </td>
                  {readOnly ? null : (
                    <td>
                      <Redrive
                        queue={queue}
                        done={(answer) => {
                          setDone((earlier) => [...earlier, { ...answer, redrives_to: queue.redrives_to }]);
                          reload();
                        }}
                      />
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Show>
      <h2>Quarantine</h2>
      <p>Webhooks refused for their signature, kept so none is lost to a rotated secret.</p>
      <Quarantine readOnly={readOnly} />
    </section>
  );
}
