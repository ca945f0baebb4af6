/**
 * The instances of series in one delta round made whole (delta-entry.ts): each
 * stub takes its series' fields, and each instance the series' iCalUId, from the
 * master listed in the same round, else from one
 * `GET users/{user}/events/{seriesMasterId}` per series (never twice in a listing).
 * Only after the whole round is read: Graph may list a master after its stubs, or
 * on a later page. A master listed without its instances (the series changed in all
 * but its times) refills the occurrences kept from earlier listings.
 *
 * A series Graph no longer holds (its master removed in the round, or a 404 on its
 * GET) has no instances left: they are given back as removed, with a reason.
 * What the GETs may cost is bounded: a calendar anyone can invite into may name
 * thousands of series, so at most PROVIDER_LIMITS.seriesMastersPerListing masters
 * are fetched, the series with the soonest instances first; the others' instances are
 * left out and reported as a limit, so the listing is not taken as complete.
 */
import * as z from 'zod/mini';
import type { LimitReached } from '../../calendar-limits';
import { PROVIDER_LIMITS, type ProviderItem, ProviderUnavailableError } from '../provider-contract';
import { calendarRefusal } from './calendar-refusal';
import { fillFromMaster } from './delta-entry';
import { type GraphClient, graphError } from './graph-client';
import { normaliseGraphEvent } from './graph-event';
import type { CallCount } from './graph-http';

/** Graph serves at most four requests at once per app and mailbox: the masters are fetched that many at a time. */
const MASTER_FETCHES_AT_ONCE = 4;

/** An instance of a series as the round listed it: a stub, or whole (an exception). */
export interface SeriesMember {
  id: string;
  seriesMasterId: string;
  whole: boolean;
  json: Record<string, unknown>;
}

export interface FilledOccurrences {
  items: ProviderItem[];
  /** Ids of instances whose series is gone: nothing scheduled from an earlier copy of them may stay. */
  removed: string[];
  problems: string[];
  limits: LimitReached[];
}

const MasterAnswer = z.object({ id: z.string() });

/** An instance's start (Graph writes UTC as we ask), for fetching the soonest series first. */
const startOf = (member: SeriesMember): string => {
  const start = member.json.start as { dateTime?: unknown } | undefined;
  return typeof start?.dateTime === 'string' ? start.dateTime : '';
};

export async function fillOccurrences(
  graph: GraphClient,
  user: string,
  mailbox: string,
  members: Iterable<SeriesMember>,
  listed: { masters: ReadonlyMap<string, Record<string, unknown>>; removed: ReadonlySet<string> },
  count: CallCount,
): Promise<FilledOccurrences> {
  const bySeries = new Map<string, SeriesMember[]>();
  for (const member of members) {
    const series = bySeries.get(member.seriesMasterId) ?? [];
    series.push(member);
    bySeries.set(member.seriesMasterId, series);
  }
  const result: FilledOccurrences = { items: [], removed: [], problems: [], limits: [] };
  const gone: string[] = [];
  const fill = (series: SeriesMember[], master: Record<string, unknown>) => {
    for (const member of series) {
      const entry = normaliseGraphEvent(fillFromMaster(member, master), mailbox);
      if (entry?.kind === 'item') result.items.push(member.whole ? entry.item : { ...entry.item, fromSeries: true });
      else if (entry?.kind === 'removed') result.removed.push(entry.id);
    }
  };
  const toFetch: Array<[string, SeriesMember[]]> = [];
  for (const [masterId, series] of bySeries) {
    const master = listed.masters.get(masterId);
    if (master !== undefined) fill(series, master);
    else if (listed.removed.has(masterId)) gone.push(masterId);
    else toFetch.push([masterId, series]);
  }
  const soonest = (series: SeriesMember[]) => series.map(startOf).sort()[0] ?? '';
  toFetch.sort(([a, first], [b, second]) => soonest(first).localeCompare(soonest(second)) || a.localeCompare(b));
  const fetching = toFetch.slice(0, PROVIDER_LIMITS.seriesMastersPerListing);
  const left = toFetch.slice(PROVIDER_LIMITS.seriesMastersPerListing);
  const masters = await fetchMasters(
    graph,
    user,
    fetching.map(([masterId]) => masterId),
    count,
  );
  for (const [masterId, series] of fetching) {
    const master = masters.get(masterId);
    if (master === undefined) gone.push(masterId);
    else fill(series, master);
  }
  for (const masterId of gone) for (const member of bySeries.get(masterId) ?? []) result.removed.push(member.id);
  if (gone.length > 0) {
    const instancesGone = gone.reduce((sum, masterId) => sum + (bySeries.get(masterId)?.length ?? 0), 0);
    result.problems.push(
      `${instancesGone} instance(s) of ${gone.length} series Graph no longer holds (the series master was deleted) were skipped`,
    );
  }
  if (left.length > 0)
    result.limits.push({
      limit: 'series-masters-per-listing',
      reason: `the listing names more than ${PROVIDER_LIMITS.seriesMastersPerListing} series whose master Graph did not list: the instances of the ${left.length} series starting last are left out until a later sync`,
    });
  return result;
}

/**
 * Kept occurrences whose series' master this round lists without them: Graph may
 * list a changed series by its master alone, and an occurrence filled from it must
 * follow (its own id and times, as a stub would give them). Exceptions keep theirs.
 */
export function keptOfChangedSeries(
  kept: readonly ProviderItem[],
  masters: ReadonlyMap<string, unknown>,
  listed: (id: string) => boolean,
): SeriesMember[] {
  const graphTime = (iso: string) => ({ dateTime: iso.replace(/Z$/, ''), timeZone: 'UTC' });
  return kept.flatMap((item) => {
    const series = item.occurrence.series;
    if (item.fromSeries !== true || series === undefined || !masters.has(series) || listed(item.id)) return [];
    const json = {
      id: item.id,
      type: 'occurrence',
      seriesMasterId: series,
      start: graphTime(item.occurrence.start),
      end: graphTime(item.occurrence.end),
    };
    return [{ id: item.id, seriesMasterId: series, whole: false, json }];
  });
}

/** Each master by GET, a few at a time: the master's JSON, or absent when Graph no longer holds it (404). */
async function fetchMasters(
  graph: GraphClient,
  user: string,
  ids: readonly string[],
  count: CallCount,
): Promise<Map<string, Record<string, unknown>>> {
  const masters = new Map<string, Record<string, unknown>>();
  let next = 0;
  // One refusal ends the listing: the other workers ask for nothing more.
  let stopped = false;
  const worker = async () => {
    for (let masterId = ids[next++]; masterId !== undefined && !stopped; masterId = ids[next++]) {
      const url = graph.url(`/users/${encodeURIComponent(user)}/events/${encodeURIComponent(masterId)}`);
      const answer = await graph.get(
        url,
        { prefer: 'outlook.timezone="UTC"' },
        count,
        `the series master of an occurrence in ${user}'s calendar`,
      );
      if (answer.status === 404 && graphError(answer).code === 'ErrorItemNotFound') continue;
      if (answer.status !== 200) throw calendarRefusal(answer, user, false);
      const parsed = MasterAnswer.safeParse(answer.json);
      // A body that is not the event asked for says nothing of the series: neither gone nor a meeting.
      if (!parsed.success || parsed.data.id !== masterId)
        throw new ProviderUnavailableError(
          `Graph answered the series master of ${user}'s occurrence with no such event`,
        );
      masters.set(masterId, answer.json as Record<string, unknown>);
    }
  };
  const guarded = () =>
    worker().catch((error: unknown) => {
      stopped = true;
      throw error;
    });
  await Promise.all(Array.from({ length: Math.min(MASTER_FETCHES_AT_ONCE, ids.length) }, guarded));
  return masters;
}
