/**
 * `GET /v1.0/users/{id | userPrincipalName}/calendarView/delta` for an app-only
 * token, refusing what Graph refuses:
 * - 401 `InvalidAuthenticationToken`: no bearer token, an unknown or expired one,
 *   or one whose audience is not Graph;
 * - 403 `ErrorAccessDenied`: the app holds no calendar read permission (or it was
 *   revoked), or the tenant's application access policy leaves this mailbox out;
 * - 404 `ErrorInvalidUser`: no such user in the token's tenant;
 * - 429 `ApplicationThrottled` with `Retry-After` (throttle.ts);
 * - 400 `ErrorInvalidParameter`: a first call without both ends of the window;
 * - 400 `ErrorInvalidUrlQuery`: a skip or delta token that is unknown, was handed out
 *   for another mailbox, app or window (Graph ignores a window sent beside a token;
 *   the simulator refuses it, so a client that thinks it moved its window learns it did not);
 * - 410 `syncStateNotFound`: a token the mailbox voided (a full sync must follow).
 * A round's first call pages the whole view; the last page's deltaLink then
 * returns what changed since the round began: changed items, and items deleted or
 * moved out of the window as `@removed` with reason `deleted`. As Graph does, a plain
 * occurrence of a series is a stub (its id, series, type and times only: no subject,
 * link or attendees), an exception is written in full, and a series' master is
 * listed in full, after the instances, when its first occurrence lies in the window.
 * Every second page is short (SHORT_PAGE_EVERY): only a nextLink says more follows.
 */
import { randomBytes } from 'node:crypto';
import type { CalendarStore } from './calendar-store';
import type { Directory } from './directory';
import { eventJson, occurrenceStub, seriesMasterJson } from './event-json';
import type { GraphRefusal } from './graph-errors';
import { mailboxAccess } from './mailbox-access';
import { parsePrefer } from './prefer-header';
import type { MailboxThrottle } from './throttle';

/**
 * Every second page of a round holds at most half of what was asked: Graph's
 * `odata.maxpagesize` is an upper bound, so a client that reads a short page as
 * the last one loses the rest here, as it would against Graph.
 */
const SHORT_PAGE_EVERY = 2;

interface SyncState {
  tenantId: string;
  clientId: string;
  userId: string;
  start: number;
  end: number;
  generation: number;
  /** Sequence of the mailbox's change log when the round began. */
  roundSeq: number;
  /** For a skip token: the ids the round returns, and where the next page starts. */
  pending?: string[];
  offset?: number;
  /** For a skip token: how many pages of the round were answered before. */
  pageIndex?: number;
  /** For a skip token in an incremental round: the sequence the changes are counted from. */
  since?: number;
}

export interface DeltaRequest {
  userKey: string;
  query: URLSearchParams;
  authorization: string | undefined;
  prefer: string[];
  baseUrl: string;
}

export type DeltaAnswer =
  | { status: 200; body: Record<string, unknown>; headers: Record<string, string> }
  | { status: number; refusal: GraphRefusal };

function refuse(status: number, code: string, message: string, headers?: Record<string, string>): DeltaAnswer {
  return { status, refusal: { status, code, message, ...(headers === undefined ? {} : { headers }) } };
}

/** Changed ids with the series masters moved after the instances, each group in its order. */
function mastersLast(ids: string[], isMaster: (id: string) => boolean): string[] {
  return [...ids.filter((id) => !isMaster(id)), ...ids.filter(isMaster)];
}

export class CalendarViewDelta {
  private readonly states = new Map<string, SyncState>();

  constructor(
    private readonly directory: Directory,
    private readonly store: CalendarStore,
    private readonly throttle: MailboxThrottle,
  ) {}

  answer(request: DeltaRequest): DeltaAnswer {
    const access = mailboxAccess(this.directory, this.throttle, request.authorization, request.userKey);
    if ('refusal' in access) return { status: access.refusal.status, refusal: access.refusal };
    const { app, user } = access;
    const token = { tenantId: access.tenantId };

    const { pageSize, zone, applied } = parsePrefer(request.prefer);
    const skipToken = request.query.get('$skiptoken');
    const deltaToken = request.query.get('$deltatoken');
    const startParam = request.query.get('startDateTime') ?? request.query.get('startdatetime');
    const endParam = request.query.get('endDateTime') ?? request.query.get('enddatetime');
    const calendar = this.store.calendar(user.id);

    let state: SyncState;
    let ids: string[];
    let offset: number;
    let pageIndex = 0;
    let since: number | undefined;
    if (skipToken !== null || deltaToken !== null) {
      const found = this.states.get((skipToken ?? deltaToken)!);
      const isSkip = skipToken !== null;
      if (
        found === undefined ||
        isSkip !== (found.pending !== undefined) ||
        found.tenantId !== token.tenantId ||
        found.clientId !== app.clientId ||
        found.userId !== user.id
      )
        return refuse(400, 'ErrorInvalidUrlQuery', 'The skip or delta token is not valid for this mailbox and query.');
      if (
        (startParam !== null && Date.parse(startParam) !== found.start) ||
        (endParam !== null && Date.parse(endParam) !== found.end)
      )
        return refuse(400, 'ErrorInvalidUrlQuery', 'The token was handed out for another window.');
      if (found.generation !== calendar.syncGeneration)
        return refuse(
          410,
          'syncStateNotFound',
          'The sync state is gone; synchronize this calendar view again in full.',
        );
      state = found;
      if (isSkip) {
        ids = found.pending!;
        offset = found.offset!;
        pageIndex = found.pageIndex ?? 0;
        since = found.since;
      } else {
        // An incremental round: everything logged since the last round began.
        since = found.roundSeq;
        state = { ...found, roundSeq: this.store.sequence() };
        ids = mastersLast(
          this.store.changedSince(user.id, since),
          (id) => calendar.events.get(id)?.weekly !== undefined,
        );
        offset = 0;
      }
    } else {
      if (startParam === null || endParam === null)
        return refuse(
          400,
          'ErrorInvalidParameter',
          'This request needs a time window: give both startDateTime and endDateTime.',
        );
      const start = Date.parse(startParam);
      const end = Date.parse(endParam);
      if (Number.isNaN(start) || Number.isNaN(end) || end <= start)
        return refuse(400, 'ErrorInvalidParameter', 'startDateTime and endDateTime must be dates, start before end.');
      state = {
        tenantId: token.tenantId,
        clientId: app.clientId,
        userId: user.id,
        start,
        end,
        generation: calendar.syncGeneration,
        roundSeq: this.store.sequence(),
      };
      // Masters after every instance: a client must read the whole round before filling an occurrence.
      ids = [
        ...this.store.view(user.id, start, end).map((item) => item.id),
        ...this.store.mastersInView(user.id, start, end).map((event) => event.id),
      ];
      offset = 0;
    }

    const taken = pageIndex % SHORT_PAGE_EVERY === 1 ? Math.max(1, Math.floor(pageSize / 2)) : pageSize;
    const page = ids.slice(offset, offset + taken);
    // The view is read once per page, not once per item: a test's calendar may hold thousands.
    const inView = new Map(this.store.view(user.id, state.start, state.end).map((item) => [item.id, item]));
    const value = page.flatMap((id) => {
      const item = inView.get(id);
      if (item !== undefined) return [item.type === 'occurrence' ? occurrenceStub(item, zone) : eventJson(item, zone)];
      const master = this.store.masterInView(user.id, id, state.start, state.end, since !== undefined);
      if (master !== undefined) return [seriesMasterJson(master, zone)];
      // A live series whose first occurrence lies outside the window: its master is not listed, nor removed.
      if (calendar.events.has(id)) return [];
      return [{ '@removed': { reason: 'deleted' }, id }];
    });
    const link = `${request.baseUrl}/v1.0/users/${encodeURIComponent(request.userKey)}/calendarView/delta`;
    const body: Record<string, unknown> = {
      '@odata.context': `${request.baseUrl}/v1.0/$metadata#Collection(event)`,
    };
    const handle = randomBytes(24).toString('base64url');
    if (offset + taken < ids.length) {
      this.states.set(handle, {
        ...state,
        pending: ids,
        offset: offset + taken,
        pageIndex: pageIndex + 1,
        ...(since === undefined ? {} : { since }),
      });
      body['@odata.nextLink'] = `${link}?$skiptoken=${handle}`;
    } else {
      const { pending: _pending, offset: _offset, pageIndex: _pageIndex, since: _since, ...closed } = state;
      this.states.set(handle, closed);
      body['@odata.deltaLink'] = `${link}?$deltatoken=${handle}`;
    }
    body.value = value;
    return {
      status: 200,
      body,
      headers: applied.length === 0 ? {} : { 'Preference-Applied': applied.join(', ') },
    };
  }
}
