/**
 * Per-user request quota. Google counts Calendar API requests per minute per project
 * and per user in a sliding window (600 per user per minute by default) and, when a
 * caller goes over, answers 403 with reason `rateLimitExceeded` or
 * `userRateLimitExceeded`, or 429 `rateLimitExceeded`; callers are told to back off
 * exponentially. The reference documents no Retry-After header for these answers, so
 * the simulator sends one only when a test asks for it.
 * References: https://developers.google.com/workspace/calendar/api/guides/quota and
 * https://developers.google.com/workspace/calendar/api/guides/errors
 */
import { apiError, type SimulatorAnswer } from './google-errors';

export type QuotaRefusal = '403 rateLimitExceeded' | '403 userRateLimitExceeded' | '429';

export interface UserQuota {
  requests: number;
  windowMs: number;
  refusal: QuotaRefusal;
  retryAfterSeconds?: number;
}

export class UserQuotas {
  readonly limits = new Map<string, UserQuota>();
  private readonly recent = new Map<string, number[]>();

  /** Counts the request; answers the refusal when the user is over quota in the window. */
  admit(user: string, nowMs: number): SimulatorAnswer | undefined {
    const quota = this.limits.get(user);
    if (!quota) return undefined;
    const inWindow = (this.recent.get(user) ?? []).filter((at) => at > nowMs - quota.windowMs);
    inWindow.push(nowMs);
    this.recent.set(user, inWindow);
    if (inWindow.length <= quota.requests) return undefined;
    const answer =
      quota.refusal === '429'
        ? apiError(429, 'rateLimitExceeded', 'Rate Limit Exceeded', undefined, 'usageLimits')
        : quota.refusal === '403 userRateLimitExceeded'
          ? apiError(403, 'userRateLimitExceeded', 'User Rate Limit Exceeded', undefined, 'usageLimits')
          : apiError(403, 'rateLimitExceeded', 'Rate Limit Exceeded', undefined, 'usageLimits');
    if (quota.retryAfterSeconds !== undefined) answer.headers = { 'retry-after': String(quota.retryAfterSeconds) };
    return answer;
  }
}
