/**
 * Outlook's per-app, per-mailbox request limit: past it, Graph answers 429 with
 * a `Retry-After` header in seconds and code `ApplicationThrottled`. The real
 * limit (thousands of requests in ten minutes) is configurable here so a test
 * can reach it in a few calls; the window runs on the simulator's clock.
 */
export interface ThrottleLimit {
  requests: number;
  windowSeconds: number;
}

export class MailboxThrottle {
  private readonly windows = new Map<string, { startedAt: number; count: number }>();

  constructor(public limit: ThrottleLimit) {}

  /** Counts a request; answers the seconds to wait when it is over the limit, else undefined. */
  admit(clientId: string, userId: string, now: number): number | undefined {
    const key = `${clientId}|${userId}`;
    const windowMs = this.limit.windowSeconds * 1000;
    let window = this.windows.get(key);
    if (window === undefined || now - window.startedAt >= windowMs) {
      window = { startedAt: now, count: 0 };
      this.windows.set(key, window);
    }
    window.count += 1;
    if (window.count <= this.limit.requests) return undefined;
    return Math.max(1, Math.ceil((window.startedAt + windowMs - now) / 1000));
  }
}
