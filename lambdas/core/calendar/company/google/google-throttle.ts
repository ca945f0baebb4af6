/**
 * How long to leave a user alone after Google throttled them. Google's quota
 * answers (403 `rateLimitExceeded`/`userRateLimitExceeded`, 429) usually carry no
 * Retry-After; its guidance is exponential backoff. So: Retry-After when sent
 * (seconds or an HTTP date), else 30 s doubled for each throttle of this user in a
 * row (30 s, 1 min, 2 min… at most 16 min), reset by the next answer that is not one.
 * Per-user quota is a sliding minute, so the first wait already clears it unless
 * the project as a whole is over quota, which the doubling then eases.
 */
import { ThrottledError } from '../provider-contract';

export const THROTTLE_BASE_MS = 30_000;
export const THROTTLE_MAX_MS = 16 * 60_000;
/** A Retry-After past this is read as this: no user is parked for longer than a day by one answer. */
const MAX_RETRY_AFTER_MS = 24 * 3_600_000;

export class ThrottleLog {
  private readonly inARow = new Map<string, number>();

  /** The error for `key` (a user, or the directory) throttled now; counts it. */
  throttled(key: string, headers: Headers, nowMs: number, words: string): ThrottledError {
    const count = (this.inARow.get(key) ?? 0) + 1;
    this.inARow.set(key, count);
    const told = retryAfterMs(headers.get('retry-after'), nowMs);
    const waitMs = told ?? Math.min(THROTTLE_MAX_MS, THROTTLE_BASE_MS * 2 ** (count - 1));
    return new ThrottledError(waitMs, `Google throttled the calendar requests: ${words}`);
  }

  answered(key: string): void {
    this.inARow.delete(key);
  }
}

export function retryAfterMs(value: string | null, nowMs: number): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  const text = value.trim();
  const ms = /^\d+$/.test(text) ? Number(text) * 1000 : Date.parse(text) - nowMs;
  if (!Number.isFinite(ms)) return undefined;
  return Math.min(MAX_RETRY_AFTER_MS, Math.max(0, ms));
}
