/**
 * What the user-sync consumer does with one request: the user's sync, or, when
 * another sync holds the user's lease, the request put back on the queue to run
 * after it. The running sync may have listed before the change that sent this
 * request (a push notification), so dropping it would leave the change to the
 * next scheduled run, minutes later.
 */
import { METRICS } from '../../telemetry';
import { type CompanySyncDependencies, syncCompanyUser, type UserSyncOutcome } from './company-sync';
import type { UserSyncQueue, UserSyncRequest } from './provider-contract';

/**
 * How long a request that found its user's sync running waits on the queue: about
 * one incremental sync, so it usually finds the lease free. The re-sends end: a
 * lease is gone when its sync ends, or USER_SYNC_LEASE_MS after it was taken.
 */
export const IN_PROGRESS_REQUEUE_DELAY_SECONDS = 15;

export interface UserSyncConsumerDependencies extends CompanySyncDependencies {
  queue: UserSyncQueue;
}

export interface UserSyncConsumerOptions {
  /** IN_PROGRESS_REQUEUE_DELAY_SECONDS unless given (tests shorten the wait, never skip the queue). */
  requeueDelaySeconds?: number;
}

/** The user's sync; a request finding the user's sync in progress is sent again with a delay (then done here). */
export async function consumeUserSyncRequest(
  request: UserSyncRequest,
  deps: UserSyncConsumerDependencies,
  options: UserSyncConsumerOptions = {},
): Promise<UserSyncOutcome> {
  const outcome = await syncCompanyUser(request, deps);
  if (outcome.outcome === 'skipped' && outcome.reason === 'in-progress') {
    // Sent again rather than failed: a failure would spend the message's receives and dead-letter a busy user.
    await deps.queue.send([request], {
      delaySeconds: options.requeueDelaySeconds ?? IN_PROGRESS_REQUEUE_DELAY_SECONDS,
    });
    deps.telemetry.metrics.emit(METRICS.calendarUserSyncRequeued, 1);
  }
  return outcome;
}
