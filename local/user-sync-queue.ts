/**
 * Local mode's user-sync queue: what the fan-out SQS queue and its consumer's
 * bounded concurrency are in AWS, in process. A request starts as soon as a slot
 * is free (no polling delay: a push notification reaches its sync at once), at
 * most `concurrency` syncs run together, a user already waiting is not queued twice
 * (a push arriving while that user's sync runs waits for it, then runs again: the
 * change may have come after the running sync listed), one user never syncs twice
 * at the same time, and `stop()` refuses new requests and waits for the rest.
 *
 * A sync that throws is reported to `onFailure` (the timeline), never dropped
 * silently; the next scheduled run asks for that user again.
 */
import type { UserSyncQueue, UserSyncRequest } from '../lambdas/core/calendar/company/provider-contract';

export interface InProcessUserSyncQueueOptions {
  /** Runs one user's sync (the company sync of the calendar). */
  sync(request: UserSyncRequest): Promise<void>;
  onFailure(request: UserSyncRequest, error: unknown): void;
  /** Syncs at once; the deployed consumer's reserved concurrency plays this part. Default 4. */
  concurrency?: number;
}

export interface UserSyncQueueStats {
  sent: number;
  /** Requests dropped because the same user was already waiting. */
  deduplicated: number;
  completed: number;
  failed: number;
}

export class QueueStoppedError extends Error {
  override name = 'QueueStoppedError';
}

const userKey = (request: UserSyncRequest) => JSON.stringify([request.calendar_id, request.user.toLowerCase()]);

export class InProcessUserSyncQueue implements UserSyncQueue {
  readonly stats: UserSyncQueueStats = { sent: 0, deduplicated: 0, completed: 0, failed: 0 };
  private readonly concurrency: number;
  /** Waiting requests in arrival order, by user. */
  private readonly waiting = new Map<string, UserSyncRequest>();
  private readonly running = new Set<string>();
  private stopped = false;
  private idle: Array<() => void> = [];

  constructor(private readonly options: InProcessUserSyncQueueOptions) {
    const concurrency = options.concurrency ?? 4;
    if (!Number.isInteger(concurrency) || concurrency < 1)
      throw new RangeError(`concurrency must be a whole number of at least 1, not ${concurrency}`);
    this.concurrency = concurrency;
  }

  async send(requests: readonly UserSyncRequest[]): Promise<void> {
    if (this.stopped) throw new QueueStoppedError('the user-sync queue is stopped; no sync was queued');
    for (const request of requests) {
      this.stats.sent += 1;
      const key = userKey(request);
      if (this.waiting.has(key)) this.stats.deduplicated += 1;
      else this.waiting.set(key, request);
    }
    this.pump();
  }

  /** Requests waiting (not yet started) and syncs running. */
  get depth(): { waiting: number; running: number } {
    return { waiting: this.waiting.size, running: this.running.size };
  }

  /** Refuses new requests and resolves once every waiting and running sync has finished. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.waiting.size === 0 && this.running.size === 0) return;
    await new Promise<void>((resolve) => this.idle.push(resolve));
  }

  private pump(): void {
    for (const [key, request] of this.waiting) {
      if (this.running.size >= this.concurrency) return;
      if (this.running.has(key)) continue;
      this.waiting.delete(key);
      this.running.add(key);
      void this.run(key, request);
    }
    if (this.waiting.size === 0 && this.running.size === 0) {
      const idle = this.idle;
      this.idle = [];
      for (const resolve of idle) resolve();
    }
  }

  private async run(key: string, request: UserSyncRequest): Promise<void> {
    try {
      await this.options.sync(request);
      this.stats.completed += 1;
    } catch (error) {
      this.stats.failed += 1;
      try {
        this.options.onFailure(request, error);
      } catch {
        // A failing reporter must not stall the queue.
      }
    } finally {
      this.running.delete(key);
      this.pump();
    }
  }
}
