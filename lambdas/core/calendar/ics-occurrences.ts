/**
 * An ICS feed as the occurrences of its meetings in a time window. node-ical
 * parses the feed (Windows zone names as Outlook writes them included) and its
 * rrule-temporal expands RRULEs in the event's own zone, so a weekly 09:00 stays
 * at 09:00 across a DST change; EXDATE and RECURRENCE-ID overrides apply. RDATE
 * it leaves as text, so those dates are added here.
 */
import ical, { type DateWithTimeZone, type EventInstance, type ParameterValue, type VEvent } from 'node-ical';
import { Temporal } from 'temporal-polyfill';
import { EXPANSION_LIMITS, type ExpansionLimits, LimitLog, type LimitReached, shownUid } from './calendar-limits';
import { selectComponents } from './feed-components';
import { ianaZone } from './iana-zone';
import { occurrencesPerDayBound } from './recurrence-density';

export interface Attendee {
  email: string;
  /** ACCEPTED, DECLINED, TENTATIVE, NEEDS-ACTION… */
  partstat: string | undefined;
}

/** Where a meeting link may be, in the order links are looked for (meeting-link.ts). */
export interface LinkFields {
  /** Conference data: X-GOOGLE-CONFERENCE, Outlook's Teams properties. */
  conference: string[];
  url: string | undefined;
  location: string | undefined;
  /** DESCRIPTION, and its HTML form (X-ALT-DESC) when the feed has one. */
  description: string | undefined;
  descriptionHtml: string | undefined;
}

export interface Occurrence {
  uid: string;
  /**
   * Where its series put it (RECURRENCE-ID), UTC: with the uid, the occurrence's
   * stable identity. Undefined for a one-off event, which its uid alone names, so
   * moving it keeps its identity too.
   */
  originalStart: string | undefined;
  /**
   * The series this instance belongs to, when a provider names it apart from the uid (Graph gives each
   * occurrence an iCalUId of its own; its `seriesMasterId` names the series). The caps count by it.
   */
  series?: string;
  start: string;
  end: string;
  /** The event's zone (IANA), when it has one. */
  timeZone: string | undefined;
  title: string;
  allDay: boolean;
  cancelled: boolean;
  organizer: string | undefined;
  attendees: Attendee[];
  links: LinkFields;
}

/** Outlook writes its Teams link into these (besides the description). */
const CONFERENCE_PROPERTIES = [
  'GOOGLE-CONFERENCE',
  'MICROSOFT-SKYPETEAMSMEETINGURL',
  'MICROSOFT-ONLINEMEETINGEXTERNALLINK',
  'MICROSOFT-ONLINEMEETINGCONFLINK',
];

const text = (value: ParameterValue | undefined | unknown): string | undefined => {
  if (typeof value === 'string') return value;
  if (value !== null && typeof value === 'object' && 'val' in value) {
    const inner = (value as { val: unknown }).val;
    return typeof inner === 'string' ? inner : undefined;
  }
  return undefined;
};

const emailOf = (value: unknown): string | undefined =>
  text(value)
    ?.replace(/^mailto:/i, '')
    .toLowerCase();

function attendeesOf(event: VEvent): Attendee[] {
  const list = event.attendee === undefined ? [] : Array.isArray(event.attendee) ? event.attendee : [event.attendee];
  return list.flatMap((attendee) => {
    const email = emailOf(attendee);
    if (email === undefined) return [];
    const params = typeof attendee === 'object' ? (attendee.params as Record<string, string> | undefined) : undefined;
    return [{ email, partstat: params?.PARTSTAT?.toUpperCase() }];
  });
}

function linkFieldsOf(event: VEvent): LinkFields {
  const raw = event as Record<string, unknown>;
  const html = text(raw['ALT-DESC']);
  return {
    conference: CONFERENCE_PROPERTIES.flatMap((name) => text(raw[name]) ?? []),
    url: text(raw.url),
    location: text(event.location),
    description: text(event.description),
    descriptionHtml: html,
  };
}

/**
 * What every occurrence of one VEVENT shares, read once per VEVENT: a series'
 * occurrences hold the same objects, so the meeting link is looked for once per
 * event (rules.ts), however often it repeats.
 */
interface SharedFields {
  attendees: Attendee[];
  links: LinkFields;
}

const sharedFields = new WeakMap<VEvent, SharedFields>();

function sharedFieldsOf(event: VEvent): SharedFields {
  let fields = sharedFields.get(event);
  if (fields === undefined) {
    fields = { attendees: attendeesOf(event), links: linkFieldsOf(event) };
    sharedFields.set(event, fields);
  }
  return fields;
}

function occurrenceOf(instance: EventInstance, master: VEvent, originalStart: Date | undefined): Occurrence {
  const event = instance.event;
  return {
    uid: master.uid,
    originalStart: originalStart?.toISOString(),
    start: instance.start.toISOString(),
    end: instance.end.toISOString(),
    timeZone: instance.start.tz ?? master.start.tz,
    title: text(instance.summary) ?? text(master.summary) ?? '',
    allDay: instance.isFullDay,
    cancelled: event.status === 'CANCELLED' || master.status === 'CANCELLED',
    organizer: emailOf(event.organizer ?? master.organizer),
    attendees: sharedFieldsOf(event.attendee === undefined ? master : event).attendees,
    links: sharedFieldsOf(event).links,
  };
}

/** `20261031T100000` (with `Z`, or in `zone`) or `20261031` as a UTC instant. */
function instantOf(value: string, zone: string | undefined): Date | undefined {
  const match = /^(\d{4})(\d{2})(\d{2})(?:T(\d{2})(\d{2})(\d{2})(Z)?)?$/.exec(value.trim());
  if (match === null) return undefined;
  const [, year, month, day, hour = '00', minute = '00', second = '00', utc] = match;
  const wall = Temporal.PlainDateTime.from(`${year}-${month}-${day}T${hour}:${minute}:${second}`);
  if (utc === 'Z') return new Date(wall.toZonedDateTime('UTC').epochMilliseconds);
  // Floating times (no zone) are read as UTC: Lambda's own zone, so AWS and tests agree.
  return new Date(wall.toZonedDateTime(zone ?? 'UTC').epochMilliseconds);
}

/** The extra dates an RDATE adds, each as an instant (PERIOD values by their start), at most `max` values read. */
function rdatesOf(event: VEvent, max: number): { dates: Date[]; capped: boolean } {
  const raw = (event as Record<string, unknown>).rdate;
  const entries = raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
  const dates: Date[] = [];
  let read = 0;
  for (const entry of entries as unknown[]) {
    const value = text(entry);
    if (value === undefined) continue;
    const params =
      typeof entry === 'object' && entry !== null ? (entry as { params?: Record<string, string> }).params : undefined;
    // Outlook writes Windows zone names; node-ical resolved the event's own, which an RDATE shares.
    const zone = ianaZone(ianaZone(params?.TZID) ?? event.start.tz);
    for (const part of value.matchAll(/[^,]+/g)) {
      if (++read > max) return { dates, capped: true };
      const date = instantOf(part[0].split('/')[0] ?? '', zone);
      if (date !== undefined) dates.push(date);
    }
  }
  return { dates, capped: false };
}

function isExcluded(date: Date, event: VEvent): boolean {
  const excluded = Object.values(event.exdate ?? {}) as DateWithTimeZone[];
  return excluded.some((exdate) => exdate.getTime() === date.getTime());
}

const DAY_MS = 86_400_000;
/** The RRULE's own text (FREQ=…), as the parser kept it. */
const ruleTextOf = (event: VEvent): string => /(?:^|\n)RRULE:([^\n]*)/.exec(String(event.rrule))?.[1] ?? '';

export interface ExpandedEvent {
  occurrences: Occurrence[];
  /** A limit cut the event's occurrences in the window short. */
  capped: boolean;
}

/**
 * The event's occurrences within [from, to], at most `max` of them, found
 * without ever listing more: the window is walked in slices that, by the rule's
 * bound per day, hold no more than the occurrences still wanted.
 */
function expandEvent(
  event: VEvent,
  from: Date,
  to: Date,
  max: number,
  rdateMax: number,
  deadline: () => boolean,
): ExpandedEvent {
  const rdates = rdatesOf(event, rdateMax);
  const recurring = event.rrule !== undefined || event.recurrences !== undefined || rdates.dates.length > 0;
  const found: Occurrence[] = [];
  let capped = rdates.capped;
  const perDay = event.rrule === undefined ? 1 : occurrencesPerDayBound(ruleTextOf(event));
  const span = to.getTime() - from.getTime();
  const sliceMs = perDay * (span / DAY_MS + 1) <= max ? span : Math.max(1_000, Math.floor((max / perDay) * DAY_MS));
  let sliceFrom = from.getTime();
  while (sliceFrom <= to.getTime()) {
    if (found.length >= max || deadline()) {
      capped = true;
      break;
    }
    const sliceTo = Math.min(to.getTime(), sliceFrom + sliceMs);
    for (const instance of ical.expandRecurringEvent(event, { from: new Date(sliceFrom), to: new Date(sliceTo) })) {
      if (found.length >= max) {
        capped = true;
        break;
      }
      const original = instance.isOverride ? instance.event.recurrenceid : undefined;
      // An instance invited on its own (RECURRENCE-ID without its series) keeps its series' identity.
      found.push(
        recurring
          ? occurrenceOf(instance, event, original ?? instance.start)
          : occurrenceOf(instance, event, event.recurrenceid),
      );
    }
    sliceFrom = sliceTo + 1;
  }
  if (!recurring) return { occurrences: found, capped };
  const seen = new Set(found.map((occurrence) => occurrence.originalStart));
  for (const key of Object.keys(event.recurrences ?? {})) seen.add(new Date(key).toISOString());
  const lengthMs = (event.end?.getTime() ?? event.start.getTime()) - event.start.getTime();
  const allDay = event.datetype === 'date';
  for (const date of rdates.dates) {
    if (seen.has(date.toISOString()) || isExcluded(date, event) || date < from || date > to) continue;
    if (found.length >= max) {
      capped = true;
      break;
    }
    seen.add(date.toISOString());
    const start = Object.assign(new Date(date), event.start.tz === undefined ? {} : { tz: event.start.tz });
    const instance: EventInstance = {
      start,
      end: new Date(date.getTime() + lengthMs),
      summary: event.summary,
      isFullDay: allDay,
      isRecurring: true,
      isOverride: false,
      event,
    };
    found.push(occurrenceOf(instance, event, date));
  }
  return { occurrences: found, capped };
}

export interface ExpandedFeed {
  occurrences: Occurrence[];
  /** Events that could not be read, by uid, with why: reported, never fatal to the rest. */
  problems: string[];
  /** Each limit the feed reached, with what it left out. */
  limits: LimitReached[];
  /**
   * What the occurrences may leave out because a limit cut them short: the whole
   * feed (`feed`), or these events. Their schedules stand as they are: a missing
   * occurrence is not a cancelled one.
   */
  partial: { feed: boolean; uids: ReadonlySet<string> };
}

export interface ExpandOptions {
  /** The calendar owner's addresses: events they organize may repeat more often than daily. */
  ownerEmails?: readonly string[];
  limits?: ExpansionLimits;
  /** Milliseconds, for the expansion's time budget. */
  clock?: () => number;
}

/** Problems listed by name at most; an attacker can make every event unreadable. */
const MAX_PROBLEMS = 20;

/** Every occurrence starting within [from, to], sorted by start, within the limits. */
export function expandFeed(feed: string, from: Date, to: Date, options: ExpandOptions = {}): ExpandedFeed {
  const limits = options.limits ?? EXPANSION_LIMITS;
  const clock = options.clock ?? (() => performance.now());
  const log = new LimitLog();
  const owners = new Set((options.ownerEmails ?? []).map((email) => email.toLowerCase()));
  const selected = selectComponents(feed, { from, to }, owners, limits, log);
  const parsed = ical.sync.parseICS(selected.text);
  const deadlineAt = clock() + limits.expansionBudgetMs;
  const deadline = () => clock() > deadlineAt;
  const occurrences: Occurrence[] = [];
  const problems: string[] = [];
  let unreadable = 0;
  const partialUids = new Set<string>();
  let partialFeed = selected.truncated;
  const events = Object.values(parsed).filter((component) => component?.type === 'VEVENT') as VEvent[];
  for (const [index, event] of events.entries()) {
    const left = limits.occurrencesPerFeed - occurrences.length;
    if (left <= 0 || deadline()) {
      partialFeed = true;
      const notExpanded = events.length - index;
      if (left <= 0)
        log.add(
          'occurrences-per-feed',
          undefined,
          () =>
            `the feed has more than ${limits.occurrencesPerFeed} occurrences in the window; ${notExpanded} event(s) were not expanded`,
        );
      else
        log.add(
          'expansion-time',
          undefined,
          () => `expanding took over ${limits.expansionBudgetMs} ms; ${notExpanded} event(s) were not expanded`,
        );
      break;
    }
    const uid = shownUid(String(event.uid));
    try {
      const perEvent = Math.min(limits.occurrencesPerEvent, left);
      const expanded = expandEvent(event, from, to, perEvent, limits.rdatesPerEvent, deadline);
      occurrences.push(...expanded.occurrences);
      if (expanded.capped) {
        partialUids.add(event.uid);
        const limit = deadline()
          ? 'expansion-time'
          : perEvent < limits.occurrencesPerEvent
            ? 'occurrences-per-feed'
            : 'occurrences-per-event';
        const taken = expanded.occurrences.length;
        log.add(
          limit,
          event.uid,
          () =>
            `only its first ${taken} occurrences in the window were expanded (at most ${limits.occurrencesPerEvent} per event, ${limits.occurrencesPerFeed} per feed, ${limits.rdatesPerEvent} RDATE values, ${limits.expansionBudgetMs} ms)`,
        );
      }
    } catch (error) {
      unreadable++;
      if (problems.length < MAX_PROBLEMS)
        problems.push(`${uid}: ${(error instanceof Error ? error.message : String(error)).slice(0, 200)}`);
    }
  }
  if (unreadable > problems.length) problems.push(`and ${unreadable - problems.length} more unreadable event(s)`);
  occurrences.sort((a, b) => a.start.localeCompare(b.start) || a.uid.localeCompare(b.uid));
  return { occurrences, problems, limits: log.list(), partial: { feed: partialFeed, uids: partialUids } };
}
