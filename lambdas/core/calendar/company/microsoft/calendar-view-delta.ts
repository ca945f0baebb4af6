/**
 * A user's changes from Graph's calendarView/delta. A full listing asks for the
 * window and follows `@odata.nextLink` to the `@odata.deltaLink`, which is the
 * cursor; an incremental one GETs that deltaLink and follows its pages the same
 * way. Removals (`@removed`) come back as removed ids. What a listing may cost
 * is bounded (PROVIDER_LIMITS): items past itemsPerUser are paged over and
 * dropped (`truncated`), and no more than pagesPerListing pages are read.
 */
import * as z from 'zod/mini';
import {
  AccessRevokedError,
  type ChangeSet,
  CursorVoidError,
  PROVIDER_LIMITS,
  type ProviderItem,
  ProviderUnavailableError,
  type SyncWindow,
} from '../provider-contract';
import { type GraphClient, graphError } from './graph-client';
import { normaliseGraphEvent } from './graph-event';
import type { CallCount, HttpAnswer } from './graph-http';

const DeltaPage = z.object({
  value: z.array(z.unknown()),
  '@odata.nextLink': z.optional(z.string().check(z.maxLength(16 * 1024))),
  '@odata.deltaLink': z.optional(z.string().check(z.maxLength(16 * 1024))),
});

/** UTC times (the normaliser reads no other zone) and pages as large as we take. */
export const DELTA_PREFER = `outlook.timezone="UTC", odata.maxpagesize=${PROVIDER_LIMITS.pageSize}`;

/**
 * Graph's refusal of a user's calendar as the contract's errors. 403
 * `ErrorAccessDenied` means one of two things: the app lacks Calendars.Read (the
 * tenant's grant, so every user: 'source'), or the tenant's application access
 * policy leaves this mailbox out (this user: 'user'). Graph's message for the
 * latter names the policy ("… AccessPolicy settings"), so that decides.
 */
function calendarRefusal(answer: HttpAnswer, user: string, onCursor: boolean): Error {
  const { code, message, words } = graphError(answer);
  if (answer.status === 410) return new CursorVoidError(`Graph voided the sync state of ${user}'s calendar: ${words}`);
  // A delta or skip token Graph no longer takes (ErrorInvalidUrlQuery): only a full listing recovers.
  if (answer.status === 400 && onCursor) return new CursorVoidError(`Graph refused the kept delta token: ${words}`);
  if (answer.status === 403) {
    const policy = /access ?policy|Access to OData is disabled/i.test(message);
    return policy
      ? new AccessRevokedError('user', `the tenant's application access policy leaves out this mailbox: ${words}`)
      : new AccessRevokedError('source', `Graph refused to read calendars (the app needs Calendars.Read): ${words}`);
  }
  if (answer.status === 404)
    return new AccessRevokedError(
      'user',
      `Graph knows no mailbox ${JSON.stringify(user)} (${code || 'HTTP 404'}): ${words}`,
    );
  return new ProviderUnavailableError(`Graph answered HTTP ${answer.status} for ${user}'s calendar view: ${words}`);
}

export async function listCalendarChanges(
  graph: GraphClient,
  user: string,
  cursor: string | undefined,
  window: SyncWindow,
  count: CallCount,
): Promise<ChangeSet> {
  const full = cursor === undefined;
  if (cursor !== undefined && !graph.isOwnLink(cursor))
    throw new CursorVoidError(`the kept deltaLink is not on the configured Graph endpoint ${graph.origin}`);
  let url =
    cursor ??
    graph.url(`/users/${encodeURIComponent(user)}/calendarView/delta`, {
      startDateTime: window.from,
      endDateTime: window.to,
    });
  // The user as the source names it (UPN, or object id): the name the rules know the owner by.
  const mailbox = user.toLowerCase();
  const items = new Map<string, ProviderItem>();
  const removed = new Set<string>();
  let truncated = false;
  for (let page = 0; page < PROVIDER_LIMITS.pagesPerListing; page += 1) {
    const answer = await graph.get(url, { prefer: DELTA_PREFER }, count, `the calendar view of ${user}`);
    if (answer.status !== 200) throw calendarRefusal(answer, user, !full || page > 0);
    const parsed = DeltaPage.safeParse(answer.json);
    if (!parsed.success)
      throw new ProviderUnavailableError(`Graph answered a calendar view page of ${user} that is not one`);
    for (const json of parsed.data.value) {
      const entry = normaliseGraphEvent(json, mailbox);
      if (entry === undefined || entry.kind === 'skipped') continue;
      const id = entry.kind === 'item' ? entry.item.id : entry.id;
      // An id seen twice in one listing (changed while we paged): the later word holds.
      const known = items.has(id) || removed.has(id);
      if (!known && items.size + removed.size >= PROVIDER_LIMITS.itemsPerUser) {
        truncated = true;
        continue;
      }
      items.delete(id);
      removed.delete(id);
      if (entry.kind === 'item') items.set(id, entry.item);
      else removed.add(id);
    }
    const next = parsed.data['@odata.nextLink'];
    const delta = parsed.data['@odata.deltaLink'];
    if (next !== undefined) url = graph.followable(next, 'nextLink');
    else if (delta !== undefined)
      return {
        full,
        items: [...items.values()],
        removed: [...removed],
        cursor: graph.followable(delta, 'deltaLink'),
        calls: count.calls,
        truncated,
      };
    else
      throw new ProviderUnavailableError(
        `Graph's calendar view page of ${user} has neither a nextLink nor a deltaLink`,
      );
  }
  // Past the page limit: an incremental listing gives what it read and keeps its cursor, so the next one reads it again.
  if (cursor !== undefined)
    return { full, items: [...items.values()], removed: [...removed], cursor, calls: count.calls, truncated: true };
  throw new ProviderUnavailableError(
    `${user}'s calendar view took more than ${PROVIDER_LIMITS.pagesPerListing} pages; listing stopped`,
  );
}
