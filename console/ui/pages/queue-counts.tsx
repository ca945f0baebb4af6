/** The overview's dead-letter counts: what failed for good and waits; each opens the deliveries page. */
import { getJson } from '../api';
import type { DeadLetterQueueView } from '../contracts';
import { Show, useLoad } from '../load';
import { Link } from '../router';

export function QueueCounts() {
  const [queues] = useLoad('dead-letter-queues', () =>
    getJson<{ queues: DeadLetterQueueView[] }>('/dead-letter-queues'),
  );
  return (
    <Show loaded={queues} what="the dead-letter queues">
      {({ queues: list }) => (
        <ul class="tiles">
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
