/**
 * A user's changes from Graph's calendarView/delta. A full listing asks for the
 * window and follows `@odata.nextLink` to the `@odata.deltaLink`, which is the
 * cursor; an incremental one GETs that deltaLink and follows its pages the same
 * way. Removals (`@removed`) come back as removed ids. A plain occurrence of a
 * series comes as a stub and is filled from its series master once the whole
 * round is read, and every instance takes the series' iCalUId (occurrence-fill.ts); a master is the series, not a meeting, and
 * is never an item itself. What a listing may cost is bounded (PROVIDER_LIMITS):
 * items past itemsPerUser are paged over and dropped (`truncated`), no more than
 * pagesPerListing pages are read, and no more than seriesMastersPerListing
 * masters fetched.
 */
import * as z from 'zod/mini';
import {
  type ChangeSet,
  CursorVoidError,
  PROVIDER_LIMITS,
  type ProviderItem,
  ProviderUnavailableError,
  type SyncWindow,
} from '../provider-contract';
import { calendarRefusal } from './calendar-refusal';
import { readDeltaEntry } from './delta-entry';
import type { GraphClient } from './graph-client';
import { normaliseGraphEvent } from './graph-event';
import type { CallCount } from './graph-http';
import { fillOccurrences, keptOfChangedSeries, type SeriesMember } from './occurrence-fill';

const DeltaPage = z.object({
  value: z.array(z.unknown()),
  '@odata.nextLink': z.optional(z.string().check(z.maxLength(16 * 1024))),
  '@odata.deltaLink': z.optional(z.string().check(z.maxLength(16 * 1024))),
});

/** UTC times (the normaliser reads no other zone) and pages as large as we take. */
export const DELTA_PREFER = `outlook.timezone="UTC", odata.maxpagesize=${PROVIDER_LIMITS.pageSize}`;

export async function listCalendarChanges(
  graph: GraphClient,
  user: string,
  cursor: string | undefined,
  window: SyncWindow,
  count: CallCount,
  kept: readonly ProviderItem[] = [],
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
  // In listing order: an item read, or an instance of a series to fill once the round is read.
  const items = new Map<string, ProviderItem | SeriesMember>();
  const removed = new Set<string>();
  // Series masters of the round: not meetings, the fields their stubs lack (kept no more than instances are).
  const masters = new Map<string, Record<string, unknown>>();
  let truncated = false;
  const finish = async (next: string, cut: boolean): Promise<ChangeSet> => {
    const members = [
      ...[...items.values()].filter((entry): entry is SeriesMember => !('occurrence' in entry)),
      ...keptOfChangedSeries(kept, masters, (id) => items.has(id) || removed.has(id)),
    ];
    const filled = await fillOccurrences(graph, user, mailbox, members, { masters, removed }, count);
    for (const id of filled.removed) removed.add(id);
    const made = new Map(filled.items.map((item) => [item.id, item]));
    return {
      full,
      items: [
        ...[...items.values()].flatMap((entry) => {
          const item = 'occurrence' in entry ? entry : made.get(entry.id);
          return item === undefined ? [] : [item];
        }),
        ...filled.items.filter((item) => !items.has(item.id)),
      ],
      removed: [...removed],
      cursor: next,
      calls: count.calls,
      truncated: cut,
      limits: filled.limits,
      problems: filled.problems,
    };
  };
  for (let page = 0; page < PROVIDER_LIMITS.pagesPerListing; page += 1) {
    const answer = await graph.get(url, { prefer: DELTA_PREFER }, count, `the calendar view of ${user}`);
    if (answer.status !== 200) throw calendarRefusal(answer, user, !full || page > 0);
    const parsed = DeltaPage.safeParse(answer.json);
    if (!parsed.success)
      throw new ProviderUnavailableError(`Graph answered a calendar view page of ${user} that is not one`);
    for (const json of parsed.data.value) {
      const read = readDeltaEntry(json);
      if (read.kind === 'master') {
        if (masters.has(read.id) || masters.size < PROVIDER_LIMITS.itemsPerUser) masters.set(read.id, read.json);
        removed.delete(read.id);
        continue;
      }
      const entry =
        read.kind === 'member'
          ? ({ kind: 'member', id: read.id, member: read } as const)
          : normaliseGraphEvent(read.json, mailbox);
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
      else if (entry.kind === 'member') items.set(id, entry.member);
      else {
        removed.add(id);
        masters.delete(id);
      }
    }
    const next = parsed.data['@odata.nextLink'];
    const delta = parsed.data['@odata.deltaLink'];
    // Only the links tell whether the round goes on: a page may hold fewer items than asked for.
    if (next !== undefined) url = graph.followable(next, 'nextLink');
    else if (delta !== undefined) return finish(graph.followable(delta, 'deltaLink'), truncated);
    else
      throw new ProviderUnavailableError(
        `Graph's calendar view page of ${user} has neither a nextLink nor a deltaLink`,
      );
  }
  // Past the page limit: an incremental listing gives what it read and keeps its cursor, so the next one reads it again.
  if (cursor !== undefined) return finish(cursor, true);
  throw new ProviderUnavailableError(
    `${user}'s calendar view took more than ${PROVIDER_LIMITS.pagesPerListing} pages; listing stopped`,
  );
}
