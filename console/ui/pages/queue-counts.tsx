/**
 * The overview's counts of what waits for someone: each dead-letter queue's depth and the webhooks
 * quarantined for their signature; each opens the deliveries page.
 */
import { getJson } from '../api';
import type { DeadLetterQueueView } from '../contracts';
import { Show, useLoad } from '../load';
import { Link } from '../router';

export function QueueCounts() {
  const [queues] = useLoad('dead-letter-queues', () =>
    getJson<{ queues: DeadLetterQueueView[] }>('/dead-letter-queues'),
  );
  const [quarantine] = useLoad('quarantine', () => getJson<{ quarantined: unknown[] }>('/quarantine'));
  return (
    <Show loaded={queues} what="the dead-letter queues">
      {({ queues: list }) => (
        <ul class="tiles">
          {quarantine.state === 'ready' ? (
            <li class="tile">
              <Link href="/deliveries">
                <span class="count">{quarantine.value.quarantined.length}</span>
                <span class="label">quarantined for their signature</span>
              </Link>
            </li>
          ) : null}
          {list.map((queue) => (
            <li key={queue.name} class="tile">
              <Link href="/deliveries">
                <span class="count">{queue.approximate_messages}</span>
                <span class="label">in the {queue.name} dead-letter queue</span>
              </Link>
            </li>
          ))}
        </ul>
      )}
    </Show>
  );
}
