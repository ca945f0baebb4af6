/**
 * The ICS path's per-event caps, applied to a provider's instances: a provider
 * lists a series already expanded, so what the ICS path reads from an RRULE is read
 * here from the instances' series slots (their original starts). Anyone can send an
 * invite, so a stranger's series more often than daily, any series more often than
 * hourly, and more instances of one event than the per-event limit are refused or
 * cut before a schedule is paid for, named as the ICS path names them.
 */
import { EXPANSION_LIMITS, type ExpansionLimits, LimitLog, type LimitReached } from '../calendar-limits';
import type { Occurrence } from '../ics-occurrences';

/** The event a cap counts by: the series when the provider names it (Graph), else the uid. */
const eventOf = (occurrence: Occurrence): string => occurrence.series ?? occurrence.uid;

/** Series slots a day beyond which a series is read as more often than hourly (as feed-components.ts refuses). */
const MAX_SLOTS_PER_DAY = 24;

export interface CappedListing {
  occurrences: Occurrence[];
  limits: LimitReached[];
  /** Events cut short by the per-event cap: their missing instances are not cancelled ones. */
  partialUids: Set<string>;
}

/**
 * `occurrences` (soonest first) without the series refused and with each event cut
 * to `limits.occurrencesPerEvent`; `owners` (lowercased) may organize a sub-daily series.
 */
export function capListing(
  occurrences: readonly Occurrence[],
  owners: ReadonlySet<string>,
  limits: Pick<ExpansionLimits, 'occurrencesPerEvent'> = EXPANSION_LIMITS,
): CappedListing {
  const log = new LimitLog();
  const slotsPerDay = new Map<string, Map<string, Set<string>>>();
  for (const occurrence of occurrences) {
    if (occurrence.originalStart === undefined) continue;
    const days = slotsPerDay.get(eventOf(occurrence)) ?? new Map<string, Set<string>>();
    slotsPerDay.set(eventOf(occurrence), days);
    const day = occurrence.originalStart.slice(0, 10);
    days.set(day, (days.get(day) ?? new Set()).add(occurrence.originalStart));
  }
  const refused = new Set<string>();
  for (const [uid, days] of slotsPerDay) {
    const perDay = Math.max(...[...days.values()].map((slots) => slots.size));
    const organizer = occurrences.find((o) => eventOf(o) === uid)?.organizer?.toLowerCase() ?? '';
    if (perDay > MAX_SLOTS_PER_DAY) {
      refused.add(uid);
      log.add('recurrence-rule', uid, () => `repeats ${perDay} times a day, more often than hourly: not read`);
    } else if (perDay > 1 && !owners.has(organizer)) {
      refused.add(uid);
      log.add(
        'sub-daily-recurrence',
        uid,
        () => `repeats ${perDay} times a day and the calendar's owner does not organize it: not read`,
      );
    }
  }
  const taken = new Map<string, number>();
  const partialUids = new Set<string>();
  const cut = new Set<string>();
  const kept: Occurrence[] = [];
  for (const occurrence of occurrences) {
    const event = eventOf(occurrence);
    if (refused.has(event)) continue;
    const count = (taken.get(event) ?? 0) + 1;
    taken.set(event, count);
    if (count > limits.occurrencesPerEvent) {
      if (!cut.has(event))
        log.add(
          'occurrences-per-event',
          event,
          () => `more than ${limits.occurrencesPerEvent} instances in the window: the soonest are read`,
        );
      cut.add(event);
      partialUids.add(occurrence.uid);
      continue;
    }
    kept.push(occurrence);
  }
  return { occurrences: kept, limits: log.list(), partialUids };
}
