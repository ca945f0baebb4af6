/**
 * An ICS feed as the occurrences of its meetings in a time window. node-ical
 * parses the feed (Windows zone names as Outlook writes them included) and its
 * rrule-temporal expands RRULEs in the event's own zone, so a weekly 09:00 stays
 * at 09:00 across a DST change; EXDATE and RECURRENCE-ID overrides apply. RDATE
 * it leaves as text, so those dates are added here.
 */
import ical, { type DateWithTimeZone, type EventInstance, type ParameterValue, type VEvent } from 'node-ical';
import { Temporal } from 'temporal-polyfill';

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
    attendees: attendeesOf(event.attendee === undefined ? master : event),
    links: linkFieldsOf(event),
  };
}

/** A zone name Intl knows (IANA), or undefined. */
function ianaZone(name: string | undefined): string | undefined {
  if (name === undefined) return undefined;
  try {
    return new Intl.DateTimeFormat('en', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
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

/** The extra dates an RDATE adds, each as an instant (PERIOD values by their start). */
function rdatesOf(event: VEvent): Date[] {
  const raw = (event as Record<string, unknown>).rdate;
  const entries = raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
  return entries.flatMap((entry: unknown) => {
    const value = text(entry);
    if (value === undefined) return [];
    const params =
      typeof entry === 'object' && entry !== null ? (entry as { params?: Record<string, string> }).params : undefined;
    // Outlook writes Windows zone names; node-ical resolved the event's own, which an RDATE shares.
    const zone = ianaZone(params?.TZID) ?? event.start.tz;
    return value.split(',').flatMap((part) => instantOf(part.split('/')[0] ?? '', ianaZone(zone)) ?? []);
  });
}

function isExcluded(date: Date, event: VEvent): boolean {
  const excluded = Object.values(event.exdate ?? {}) as DateWithTimeZone[];
  return excluded.some((exdate) => exdate.getTime() === date.getTime());
}

function expandEvent(event: VEvent, from: Date, to: Date): Occurrence[] {
  const instances = ical.expandRecurringEvent(event, { from, to });
  const recurring = event.rrule !== undefined || event.recurrences !== undefined || rdatesOf(event).length > 0;
  const found = instances.map((instance) => {
    const original = instance.isOverride ? instance.event.recurrenceid : undefined;
    // An instance invited on its own (RECURRENCE-ID without its series) keeps its series' identity.
    if (!recurring) return occurrenceOf(instance, event, event.recurrenceid);
    return occurrenceOf(instance, event, original ?? instance.start);
  });
  if (!recurring) return found;
  const seen = new Set(found.map((occurrence) => occurrence.originalStart));
  for (const key of Object.keys(event.recurrences ?? {})) seen.add(new Date(key).toISOString());
  const lengthMs = (event.end?.getTime() ?? event.start.getTime()) - event.start.getTime();
  const allDay = event.datetype === 'date';
  for (const date of rdatesOf(event)) {
    if (seen.has(date.toISOString()) || isExcluded(date, event) || date < from || date > to) continue;
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
  return found;
}

export interface ExpandedFeed {
  occurrences: Occurrence[];
  /** Events that could not be read, by uid, with why: reported, never fatal to the rest. */
  problems: string[];
}

/** Every occurrence starting within [from, to], sorted by start. */
export function expandFeed(feed: string, from: Date, to: Date): ExpandedFeed {
  const parsed = ical.sync.parseICS(feed);
  const occurrences: Occurrence[] = [];
  const problems: string[] = [];
  for (const component of Object.values(parsed)) {
    if (component?.type !== 'VEVENT') continue;
    const event = component as VEvent;
    try {
      occurrences.push(...expandEvent(event, from, to));
    } catch (error) {
      problems.push(`${event.uid}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  occurrences.sort((a, b) => a.start.localeCompare(b.start) || a.uid.localeCompare(b.uid));
  return { occurrences, problems };
}
