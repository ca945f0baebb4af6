/**
 * `GET /calendar/v3/calendars/{calendarId}/events` with the rules of Google's
 * reference (https://developers.google.com/workspace/calendar/api/v3/reference/events/list
 * and the sync guide https://developers.google.com/workspace/calendar/api/guides/sync):
 * - a Bearer access token is required (401 `authError`, status UNAUTHENTICATED);
 * - `primary` is the token's user; another user's calendar needs read access (403);
 * - `maxResults` is the page size: 250 by default, 2500 at most;
 * - `syncToken` cannot be combined with `timeMin`, `timeMax`, `q`, `iCalUID`,
 *   `orderBy`, `updatedMin` or extended-property filters (400);
 * - a `pageToken` only continues the query that issued it (400 otherwise);
 * - a sync token the server voided (expired, ACL change, ...) answers 410 with reason
 *   `fullSyncRequired`: the client must drop its store and list in full again;
 * - every page but the last carries `nextPageToken`, the last carries `nextSyncToken`;
 * - `maxResults` is an upper bound, not a promise: every second page of a list holds
 *   at most half of it (SHORT_PAGE_EVERY), so only `nextPageToken` tells a page is not the last;
 * - an incremental list holds only what changed since the token, and deleted or
 *   cancelled events always appear there (with `status: "cancelled"`), whatever
 *   `showDeleted` says; a full list shows them only with `showDeleted=true`.
 */
import { randomBytes } from 'node:crypto';
import type { CalendarStore } from './calendar-store';
import type { SimulatedClock } from './clock';
import { type ListedItem, listedItems } from './event-instances';
import { apiError, type SimulatorAnswer } from './google-errors';
import { CALENDAR_READ_SCOPES, type Tenant } from './tenant';
import type { UserQuotas } from './user-quota';

export const DEFAULT_PAGE_SIZE = 250;
export const MAX_PAGE_SIZE = 2500;
/** Every this many pages of one list, a page holds at most half of `maxResults` (Google may answer fewer). */
const SHORT_PAGE_EVERY = 2;
const FILTERS_REFUSED_WITH_SYNC_TOKEN = [
  'timeMin',
  'timeMax',
  'q',
  'iCalUID',
  'orderBy',
  'updatedMin',
  'privateExtendedProperty',
  'sharedExtendedProperty',
];
const RFC3339_WITH_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

interface PageCursor {
  queryKey: string;
  offset: number;
  /** Pages of this list answered before this one. */
  pageIndex: number;
  /** The change counter when the first page was served: the sync token the last page hands out. */
  snapshotSeq: number;
}

interface SyncCursor {
  owner: string;
  seq: number;
  singleEvents: boolean;
}

export class EventsList {
  private readonly pageCursors = new Map<string, PageCursor>();
  private readonly syncCursors = new Map<string, SyncCursor>();

  constructor(
    private readonly store: CalendarStore,
    private readonly tenant: Tenant,
    private readonly quotas: UserQuotas,
    private readonly clock: SimulatedClock,
  ) {}

  /** Voids every sync token issued for `owner`'s calendar: the next incremental list answers 410. */
  voidSyncTokens(owner: string): void {
    for (const [token, cursor] of this.syncCursors) if (cursor.owner === owner) this.syncCursors.delete(token);
  }

  answer(calendarId: string, query: URLSearchParams, authorization: string | undefined): SimulatorAnswer {
    const bearer = /^Bearer (\S+)$/.exec(authorization ?? '')?.[1];
    const token = bearer ? this.tenant.accessTokens.get(bearer) : undefined;
    if (!token || token.expiresAtMs <= this.clock.now()) {
      return apiError(401, 'authError', 'Invalid Credentials', { location: 'Authorization', locationType: 'header' });
    }
    const refusal = this.quotas.admit(token.user, this.clock.now());
    if (refusal) return refusal;
    if (!token.scopes.some((scope) => (CALENDAR_READ_SCOPES as readonly string[]).includes(scope))) {
      return apiError(403, 'insufficientPermissions', 'Request had insufficient authentication scopes.');
    }
    const owner = calendarId === 'primary' ? token.user : calendarId;
    if (!this.store.mayRead(token.user, owner)) {
      return apiError(403, 'forbidden', `The caller has no access to the calendar ${calendarId}`);
    }
    return this.list(owner, query);
  }

  private list(owner: string, query: URLSearchParams): SimulatorAnswer {
    const maxResultsText = query.get('maxResults');
    const maxResults = maxResultsText === null ? DEFAULT_PAGE_SIZE : Number(maxResultsText);
    if (!Number.isInteger(maxResults) || maxResults < 1 || maxResults > MAX_PAGE_SIZE) {
      return invalidParameter('maxResults', `maxResults must be an integer from 1 to ${MAX_PAGE_SIZE}`);
    }
    const syncToken = query.get('syncToken');
    if (syncToken !== null) {
      const clash = FILTERS_REFUSED_WITH_SYNC_TOKEN.find((name) => query.has(name));
      if (clash) return invalidParameter(clash, `${clash} cannot be used together with syncToken`);
    }
    for (const name of ['timeMin', 'timeMax'] as const) {
      const value = query.get(name);
      if (value !== null && !RFC3339_WITH_OFFSET.test(value)) {
        return invalidParameter(name, `${name} must be an RFC 3339 timestamp with a time-zone offset`);
      }
    }
    const singleEvents = query.get('singleEvents') === 'true';
    const queryKey = queryKeyOf(owner, query);
    const pageToken = query.get('pageToken');
    let cursor: PageCursor;
    if (pageToken !== null) {
      const found = this.pageCursors.get(pageToken);
      if (!found || found.queryKey !== queryKey) {
        return invalidParameter('pageToken', 'The page token was not issued for this query');
      }
      cursor = found;
    } else {
      cursor = { queryKey, offset: 0, pageIndex: 0, snapshotSeq: this.store.lastChangeSeq };
    }

    let items: ListedItem[];
    if (syncToken !== null) {
      const since = this.syncCursors.get(syncToken);
      if (!since || since.owner !== owner || since.singleEvents !== singleEvents) {
        return apiError(410, 'fullSyncRequired', 'The sync token is no longer valid; a full sync is required.');
      }
      // Changes made while the pages are read show up here and again in the next incremental
      // list (the sync token remembers where the first page started): at least once, never lost.
      items = this.allItems(owner, singleEvents).filter((item) => item.changeSeq > since.seq);
    } else {
      const timeMin = query.get('timeMin');
      const timeMax = query.get('timeMax');
      const fromMs = timeMin === null ? Number.NEGATIVE_INFINITY : Date.parse(timeMin);
      const toMs = timeMax === null ? Number.POSITIVE_INFINITY : Date.parse(timeMax);
      if (fromMs >= toMs) return invalidParameter('timeMax', 'The specified time range is empty.', 'timeRangeEmpty');
      const showDeleted = query.get('showDeleted') === 'true';
      items = this.allItems(owner, singleEvents).filter(
        (item) => (showDeleted || item.resource.status !== 'cancelled') && item.endMs > fromMs && item.startMs < toMs,
      );
    }

    const taken = cursor.pageIndex % SHORT_PAGE_EVERY === 1 ? Math.max(1, Math.floor(maxResults / 2)) : maxResults;
    const page = items.slice(cursor.offset, cursor.offset + taken);
    const nextOffset = cursor.offset + page.length;
    const body: Record<string, unknown> = {
      kind: 'calendar#events',
      summary: owner,
      timeZone: 'UTC',
      updated: new Date(this.clock.now()).toISOString(),
      items: page.map((item) => item.resource),
    };
    if (nextOffset < items.length) {
      const next = randomToken();
      this.pageCursors.set(next, { ...cursor, offset: nextOffset, pageIndex: cursor.pageIndex + 1 });
      body.nextPageToken = next;
    } else {
      const next = randomToken();
      this.syncCursors.set(next, { owner, seq: cursor.snapshotSeq, singleEvents });
      body.nextSyncToken = next;
    }
    return { status: 200, body };
  }

  private allItems(owner: string, singleEvents: boolean): ListedItem[] {
    const events = [...(this.store.calendars.get(owner)?.values() ?? [])];
    return events
      .flatMap((event) => listedItems(event, singleEvents))
      .sort((a, b) => a.startMs - b.startMs || a.resource.id.localeCompare(b.resource.id));
  }
}

function invalidParameter(parameter: string, message: string, reason = 'invalid'): SimulatorAnswer {
  return apiError(400, reason, message, { location: parameter, locationType: 'parameter' });
}

/** Everything that defines the result set: the calendar and every parameter but the cursor and page size. */
function queryKeyOf(owner: string, query: URLSearchParams): string {
  const params = [...query.entries()]
    .filter(([name]) => name !== 'pageToken' && name !== 'maxResults')
    .sort(([a], [b]) => a.localeCompare(b));
  return JSON.stringify([owner, params]);
}

function randomToken(): string {
  return randomBytes(18).toString('base64url');
}
