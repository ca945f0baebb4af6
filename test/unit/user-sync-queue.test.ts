/**
 * Local mode's in-process user-sync queue: a sync starts as soon as it is sent (no
 * polling interval between a push and its sync), at most `concurrency` run at once,
 * a user already waiting is not queued twice, a user whose sync is running runs
 * again after it (never twice at once), failures are reported and the queue goes
 * on, and stop() waits for every sync it accepted and refuses new ones.
 */
import { describe, expect, it } from 'vitest';
import type { UserSyncRequest } from '../../lambdas/core/calendar/company/provider-contract';
import { InProcessUserSyncQueue, QueueStoppedError } from '../../local/user-sync-queue';

const request = (user: string, reason: UserSyncRequest['reason'] = 'schedule'): UserSyncRequest => ({
  calendar_id: 'acme',
  user,
  reason,
});

/** A sync each test finishes by hand: which users started, in order, and how many run at once. */
function controlledSyncs() {
  const started: UserSyncRequest[] = [];
  const finishers = new Map<string, Array<(error?: Error) => void>>();
  let running = 0;
  let mostRunning = 0;
  let onStart: (() => void) | undefined;
  return {
    started,
    get mostRunning() {
      return mostRunning;
    },
    sync: (r: UserSyncRequest) =>
      new Promise<void>((resolve, reject) => {
        started.push(r);
        running += 1;
        mostRunning = Math.max(mostRunning, running);
        const list = finishers.get(r.user) ?? [];
        list.push((error) => {
          running -= 1;
          if (error) reject(error);
          else resolve();
        });
        finishers.set(r.user, list);
        onStart?.();
      }),
    /** Finishes the oldest running sync of `user`, then lets the queue react. */
    async finish(user: string, error?: Error) {
      const finisher = finishers.get(user)?.shift();
      if (finisher === undefined) throw new Error(`no sync of ${user} is running`);
      finisher(error);
      await new Promise((resolve) => setImmediate(resolve));
    },
    /** Resolves when the next sync starts. */
    nextStart: () => new Promise<void>((resolve) => (onStart = resolve)),
  };
}

describe('in-process user-sync queue', () => {
  it('starts a sync on send, before any timer could run', async () => {
    const syncs = controlledSyncs();
    const queue = new InProcessUserSyncQueue({ sync: syncs.sync, onFailure: () => {} });
    await queue.send([request('ada@acme.example', 'push')]);
    expect(syncs.started.map((r) => r.user)).toEqual(['ada@acme.example']);
    await syncs.finish('ada@acme.example');
    expect(queue.stats).toEqual({ sent: 1, deduplicated: 0, completed: 1, failed: 0 });
  });

  it('runs at most `concurrency` syncs at once, the rest in order as slots free', async () => {
    const syncs = controlledSyncs();
    const queue = new InProcessUserSyncQueue({ sync: syncs.sync, onFailure: () => {}, concurrency: 2 });
    const users = ['a', 'b', 'c', 'd', 'e'].map((name) => `${name}@acme.example`);
    await queue.send(users.map((user) => request(user)));
    expect(syncs.started.map((r) => r.user)).toEqual(users.slice(0, 2));
    expect(queue.depth).toEqual({ waiting: 3, running: 2 });
    await syncs.finish(users[1]!);
    expect(syncs.started.map((r) => r.user)).toEqual(users.slice(0, 3));
    await syncs.finish(users[0]!);
    await syncs.finish(users[2]!);
    expect(queue.depth).toEqual({ waiting: 0, running: 2 });
    await syncs.finish(users[3]!);
    await syncs.finish(users[4]!);
    expect(syncs.started.map((r) => r.user)).toEqual(users);
    expect(syncs.mostRunning).toBe(2);
    expect(queue.stats.completed).toBe(5);
  });

  it('queues a waiting user once, whatever the reason of the duplicate', async () => {
    const syncs = controlledSyncs();
    const queue = new InProcessUserSyncQueue({ sync: syncs.sync, onFailure: () => {}, concurrency: 1 });
    await queue.send([request('ada@acme.example'), request('bo@acme.example')]);
    await queue.send([request('BO@acme.example', 'push'), request('bo@acme.example', 'manual')]);
    expect(queue.depth).toEqual({ waiting: 1, running: 1 });
    expect(queue.stats.deduplicated).toBe(2);
    await syncs.finish('ada@acme.example');
    await syncs.finish('bo@acme.example');
    expect(syncs.started.map((r) => r.user)).toEqual(['ada@acme.example', 'bo@acme.example']);
    expect(queue.depth).toEqual({ waiting: 0, running: 0 });
  });

  it('runs a user again after the running sync when a push comes meanwhile, never two at once', async () => {
    const syncs = controlledSyncs();
    const queue = new InProcessUserSyncQueue({ sync: syncs.sync, onFailure: () => {}, concurrency: 4 });
    await queue.send([request('ada@acme.example')]);
    await queue.send([request('ada@acme.example', 'push')]);
    expect(syncs.started).toHaveLength(1);
    expect(queue.depth).toEqual({ waiting: 1, running: 1 });
    const second = syncs.nextStart();
    await syncs.finish('ada@acme.example');
    await second;
    expect(syncs.started.map((r) => r.reason)).toEqual(['schedule', 'push']);
    expect(syncs.mostRunning).toBe(1);
    await syncs.finish('ada@acme.example');
  });

  it('reports a failed sync and goes on with the others', async () => {
    const syncs = controlledSyncs();
    const failures: Array<[string, string]> = [];
    const queue = new InProcessUserSyncQueue({
      sync: syncs.sync,
      onFailure: (r, error) => failures.push([r.user, (error as Error).message]),
      concurrency: 1,
    });
    await queue.send([request('ada@acme.example'), request('bo@acme.example')]);
    await syncs.finish('ada@acme.example', new Error('provider unavailable'));
    await syncs.finish('bo@acme.example');
    expect(failures).toEqual([['ada@acme.example', 'provider unavailable']]);
    expect(queue.stats).toEqual({ sent: 2, deduplicated: 0, completed: 1, failed: 1 });
  });

  it('drains on stop: waits for running and waiting syncs, then refuses new ones', async () => {
    const syncs = controlledSyncs();
    const queue = new InProcessUserSyncQueue({ sync: syncs.sync, onFailure: () => {}, concurrency: 1 });
    await queue.send([request('ada@acme.example'), request('bo@acme.example')]);
    let stopped = false;
    const stopping = queue.stop().then(() => {
      stopped = true;
    });
    await expect(queue.send([request('cy@acme.example')])).rejects.toThrow(QueueStoppedError);
    await syncs.finish('ada@acme.example');
    expect(stopped).toBe(false);
    await syncs.finish('bo@acme.example');
    await stopping;
    expect(stopped).toBe(true);
    expect(syncs.started.map((r) => r.user)).toEqual(['ada@acme.example', 'bo@acme.example']);
    expect(queue.stats.completed).toBe(2);
  });

  it('refuses a concurrency below one', () => {
    expect(() => new InProcessUserSyncQueue({ sync: async () => {}, onFailure: () => {}, concurrency: 0 })).toThrow(
      /at least 1/,
    );
  });
});
