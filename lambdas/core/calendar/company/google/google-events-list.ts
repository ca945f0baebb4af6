/**
 * One user's `events.list` (Calendar API v3), in full or since a sync token,
 * every page followed to `nextSyncToken`, as the contract's ChangeSet.
 * - full: `timeMin`/`timeMax` from the window and `showDeleted=false`, so only
 *   live instances of the window come back;
 * - incremental: `syncToken` alone (Google refuses time filters beside it with
 *   400), so changes anywhere in the calendar come back, cancellations included;
 * - `singleEvents=true` both ways: a series arrives as its instances, a moved one
 *   carrying `recurringEventId` and `originalStartTime`.
 * Reference: https://developers.google.com/workspace/calendar/api/guides/sync
 */
import {
  AccessRevokedError,
  type ChangeSet,
  CursorVoidError,
  PROVIDER_LIMITS,
  type ProviderItem,
  ProviderUnavailableError,
  type SyncWindow,
} from '../provider-contract';
import { readGoogleEvent } from './google-event';
import { apiRefusal, exchange, type GoogleAnswer, record } from './google-http';
import type { ThrottleLog } from './google-throttle';

/** Project-wide quota reasons besides the per-user ones: the whole project waits, so they throttle too. */
const THROTTLE_REASONS = new Set(['rateLimitExceeded', 'userRateLimitExceeded', 'quotaExceeded', 'dailyLimitExceeded']);
/**
 * 403 reasons about the project or the grant, not the user: the API is not
 * enabled, the token lacks the scope (delegation grants scopes for all users at
 * once), service accounts are refused.
 */
const SOURCE_REASONS = new Set(['accessNotConfigured', 'insufficientPermissions', 'forbiddenForServiceAccounts']);

export interface EventsListDependencies {
  calendarApi: string;
  fetch: typeof fetch;
  now(): number;
  throttle: ThrottleLog;
  /** The user's token; `fresh` asks for a new one, past the cache. */
  token(user: string, fresh: boolean, onRequest: () => void): Promise<string>;
}

export async function listGoogleChanges(
  user: string,
  cursor: string | undefined,
  window: SyncWindow,
  deps: EventsListDependencies,
): Promise<ChangeSet> {
  const full = cursor === undefined;
  const base = new URLSearchParams({ singleEvents: 'true', maxResults: String(PROVIDER_LIMITS.pageSize) });
  if (cursor === undefined) {
    base.set('timeMin', new Date(window.from).toISOString());
    base.set('timeMax', new Date(window.to).toISOString());
    base.set('showDeleted', 'false');
  } else {
    base.set('syncToken', cursor);
  }
  const items: ProviderItem[] = [];
  const removed: string[] = [];
  let calls = 0;
  let truncated = false;
  let pageToken: string | undefined;
  const deadline = performance.now() + PROVIDER_LIMITS.listingDeadlineMs;
  for (let page = 1; ; page++) {
    if (page > PROVIDER_LIMITS.pagesPerListing) {
      // An incremental listing covers the whole calendar, not the window (Google takes no time filter with a
      // sync token): past the cap, list the window in full instead. A full listing keeps what it read, cut.
      if (!full)
        throw new CursorVoidError(
          `${user}'s changes run past ${PROVIDER_LIMITS.pagesPerListing} pages of ${PROVIDER_LIMITS.pageSize}; the window is listed in full instead`,
        );
      return { full, items, removed, cursor: '', calls, truncated: true };
    }
    if (performance.now() > deadline)
      throw new ProviderUnavailableError(
        `listing ${user}'s calendar took longer than ${PROVIDER_LIMITS.listingDeadlineMs / 1000} s; given up, tried again at the next sync`,
      );
    const query = new URLSearchParams(base);
    if (pageToken !== undefined) query.set('pageToken', pageToken);
    const url = `${deps.calendarApi}/calendars/${encodeURIComponent(user)}/events?${query}`;
    const body = await getPage(url, user, deps, () => calls++);
    const listed = Array.isArray(body.items) ? body.items : [];
    for (const resource of listed) {
      const read = readGoogleEvent(resource, user);
      if (read.kind === 'removed') removed.push(read.id);
      else if (read.kind === 'item') {
        if (items.length < PROVIDER_LIMITS.itemsPerUser) items.push(read.item);
        else truncated = true;
      }
    }
    if (typeof body.nextPageToken === 'string' && body.nextPageToken !== '') {
      pageToken = body.nextPageToken;
      continue;
    }
    if (typeof body.nextSyncToken === 'string' && body.nextSyncToken !== '') {
      return { full, items, removed, cursor: body.nextSyncToken, calls, truncated };
    }
    throw new ProviderUnavailableError(`Google ended ${user}'s listing with neither a page token nor a sync token`);
  }
}

/** One page, with a token renewed once when Google refuses the cached one. */
async function getPage(
  url: string,
  user: string,
  deps: EventsListDependencies,
  count: () => void,
): Promise<Record<string, unknown>> {
  let answer: GoogleAnswer | undefined;
  for (const fresh of [false, true]) {
    const token = await deps.token(user, fresh, count);
    count();
    answer = await exchange(deps.fetch, url, {
      headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
    });
    // A cached token Google no longer honours (revoked early, clocks apart): once more with a new one.
    if (answer.status !== 401) break;
  }
  if (answer === undefined) throw new ProviderUnavailableError('no answer');
  const body = record(answer.body);
  if (answer.status === 200 && body !== undefined) {
    deps.throttle.answered(user);
    return body;
  }
  throw refusalError(answer, user, deps);
}

function refusalError(answer: GoogleAnswer, user: string, deps: EventsListDependencies): Error {
  const refusal = apiRefusal(answer);
  const { reason } = refusal;
  const { status } = answer;
  if (status === 410) return new CursorVoidError(`Google voided ${user}'s sync token: ${refusal.text}`);
  if (status === 429 || (status === 403 && reason !== undefined && THROTTLE_REASONS.has(reason))) {
    return deps.throttle.throttled(user, answer.headers, deps.now(), refusal.text);
  }
  // 401 with a token just issued: the grant gives tokens for this user that the API
  // will not take. Only this user is cut off: the other users' tokens may hold, and
  // if the fault is the grant's, each of them meets it on their own.
  if (status === 401) return new AccessRevokedError('user', `Google refused a new token for ${user}: ${refusal.text}`);
  if (status === 403 && reason !== undefined && SOURCE_REASONS.has(reason)) {
    return new AccessRevokedError('source', `Google refused the service account: ${refusal.text}`);
  }
  if (status === 403 || status === 404) {
    return new AccessRevokedError('user', `Google refused ${user}'s calendar: ${refusal.text}`);
  }
  if (status === 200) return new ProviderUnavailableError(`Google answered ${user}'s listing with no JSON object`);
  return new ProviderUnavailableError(`Google answered ${user}'s listing with ${refusal.text}`);
}
