/**
 * One Calendar API event resource (as `events.list` with `singleEvents=true`
 * lists it) as the occurrence the rules read. Anyone can put an event into a
 * calendar, so every field is read leniently (unknown fields pass, a field of the
 * wrong type is read as absent) and every size is bounded as the ICS path bounds
 * it: link fields to what the link search reads, titles, attendee lists and ids.
 * Reference: https://developers.google.com/workspace/calendar/api/v3/reference/events
 */
import { createHash } from 'node:crypto';
import * as z from 'zod/mini';
import { ianaZone } from '../../iana-zone';
import type { Attendee, LinkFields, Occurrence } from '../../ics-occurrences';
import { MAX_LINK_FIELD_CHARS } from '../../meeting-link';
import type { ProviderItem } from '../provider-contract';

export const GOOGLE_EVENT_LIMITS = {
  /** Title characters kept: the rules match words in it; no real title is longer. */
  titleChars: 1_000,
  /** Location and description characters kept: what the link search reads anyway. */
  linkFieldChars: MAX_LINK_FIELD_CHARS,
  /** Attendees kept (the calendar owner's own entry always): Google caps a meeting's guests near this. */
  attendees: 1_000,
  /** Conference entry points read. */
  conferenceLinks: 10,
  /** An id or iCalUID longer than this is replaced by its digest: ids are stored and keyed on. */
  keyChars: 512,
  /** An address longer than this is no address (RFC 5321 allows 254). */
  emailChars: 320,
} as const;

/** A field read leniently: the wrong type reads as absent rather than refusing the event. */
const loose = <T extends z.ZodMiniType>(schema: T) => z.catch(z.optional(schema), undefined);

const eventTime = z.looseObject({
  dateTime: loose(z.string()),
  date: loose(z.string()),
  timeZone: loose(z.string()),
});

const eventSchema = z.looseObject({
  id: z.string().check(z.minLength(1)),
  status: loose(z.string()),
  iCalUID: loose(z.string()),
  summary: loose(z.string()),
  description: loose(z.string()),
  location: loose(z.string()),
  hangoutLink: loose(z.string()),
  start: loose(eventTime),
  end: loose(eventTime),
  recurringEventId: loose(z.string()),
  originalStartTime: loose(eventTime),
  organizer: loose(z.looseObject({ email: loose(z.string()), self: loose(z.boolean()) })),
  attendees: loose(
    z.array(
      z.catch(
        z.looseObject({ email: loose(z.string()), responseStatus: loose(z.string()), self: loose(z.boolean()) }),
        {},
      ),
    ),
  ),
  conferenceData: loose(
    z.looseObject({
      entryPoints: loose(
        z.array(z.catch(z.looseObject({ entryPointType: loose(z.string()), uri: loose(z.string()) }), {})),
      ),
    }),
  ),
});
type GoogleEvent = z.infer<typeof eventSchema>;
type EventTime = z.infer<typeof eventTime>;

/** What one listed resource is: an instance, an id Google says is gone, or nothing usable. */
export type ReadEvent =
  | { kind: 'item'; item: ProviderItem }
  | { kind: 'removed'; id: string }
  | { kind: 'unreadable'; reason: string };

const PARTSTAT: Record<string, string> = {
  accepted: 'ACCEPTED',
  declined: 'DECLINED',
  tentative: 'TENTATIVE',
  needsAction: 'NEEDS-ACTION',
};

/** Reads one resource of `owner`'s calendar. */
export function readGoogleEvent(resource: unknown, owner: string): ReadEvent {
  const parsed = eventSchema.safeParse(resource);
  if (!parsed.success) return { kind: 'unreadable', reason: 'an event without an id' };
  const event = parsed.data;
  const id = boundedKey(event.id);
  const cancelled = event.status === 'cancelled';
  const start = instantOf(event.start);
  const end = instantOf(event.end);
  // Google lists a deleted event (or instance) as its id and status, little more.
  if (cancelled && start === undefined) return { kind: 'removed', id };
  if (start === undefined) return { kind: 'unreadable', reason: `event ${id} has no readable start` };
  const occurrence: Occurrence = {
    uid: boundedKey(event.iCalUID ?? event.id),
    originalStart: event.recurringEventId === undefined ? undefined : instantOf(event.originalStartTime)?.iso,
    start: start.iso,
    end: end !== undefined && end.iso >= start.iso ? end.iso : start.iso,
    timeZone: zoneOf(event.start?.timeZone),
    title: cut(event.summary ?? '', GOOGLE_EVENT_LIMITS.titleChars),
    allDay: start.allDay,
    cancelled,
    // The calendar's own user by the name the source gives (an alias of theirs included): the rules compare that.
    organizer: event.organizer?.self === true ? owner.toLowerCase() : emailOf(event.organizer?.email),
    attendees: attendeesOf(event, owner),
    links: linksOf(event),
  };
  return { kind: 'item', item: { id, occurrence } };
}

/** `dateTime` (with its offset) as a UTC instant, or an all-day `date` as its UTC midnight, as ICS all-day dates are read. */
function instantOf(time: EventTime | undefined): { iso: string; allDay: boolean } | undefined {
  if (time?.dateTime !== undefined) {
    const ms = Date.parse(time.dateTime);
    return Number.isFinite(ms) && time.dateTime.length <= 40
      ? { iso: new Date(ms).toISOString(), allDay: false }
      : undefined;
  }
  if (time?.date !== undefined && /^\d{4}-\d{2}-\d{2}$/.test(time.date)) {
    const ms = Date.parse(`${time.date}T00:00:00Z`);
    return Number.isFinite(ms) ? { iso: new Date(ms).toISOString(), allDay: true } : undefined;
  }
  return undefined;
}

function attendeesOf(event: GoogleEvent, owner: string): Attendee[] {
  const listed = event.attendees ?? [];
  const me = owner.toLowerCase();
  const kept: Attendee[] = [];
  let ownEntry: Attendee | undefined;
  for (const entry of listed) {
    const email = emailOf(entry.email);
    if (email === undefined) continue;
    const attendee = { email, partstat: PARTSTAT[entry.responseStatus ?? ''] };
    // The owner's own answer decides "declined"/"accepted" rules: kept wherever it is listed.
    if (ownEntry === undefined && (entry.self === true || email === me)) ownEntry = { ...attendee, email: me };
    else if (kept.length < GOOGLE_EVENT_LIMITS.attendees - 1) kept.push(attendee);
  }
  return ownEntry === undefined ? kept : [ownEntry, ...kept];
}

function linksOf(event: GoogleEvent): LinkFields {
  const video = (event.conferenceData?.entryPoints ?? [])
    .filter((point) => point.entryPointType === 'video' && point.uri !== undefined)
    .slice(0, GOOGLE_EVENT_LIMITS.conferenceLinks)
    .map((point) => cut(point.uri ?? '', GOOGLE_EVENT_LIMITS.linkFieldChars));
  const conference = event.hangoutLink === undefined ? video : [...video, cut(event.hangoutLink, 2_048)];
  const description =
    event.description === undefined ? undefined : cut(event.description, GOOGLE_EVENT_LIMITS.linkFieldChars);
  // Google keeps a description written in its editor as HTML; the link search reads tags only in the HTML form.
  const html = description !== undefined && /<\/?[a-z][a-z0-9]*(?:\s[^<>]*)?\/?>/i.test(description);
  return {
    conference,
    url: undefined,
    location: event.location === undefined ? undefined : cut(event.location, GOOGLE_EVENT_LIMITS.linkFieldChars),
    description: html ? undefined : description,
    descriptionHtml: html ? description : undefined,
  };
}

function emailOf(value: string | undefined): string | undefined {
  if (value === undefined || value.length > GOOGLE_EVENT_LIMITS.emailChars || !value.includes('@')) return undefined;
  return value.toLowerCase();
}

/** IANA zone names are short; a long one is no zone and is not handed to Intl. */
const zoneOf = (name: string | undefined): string | undefined =>
  name !== undefined && name.length <= 64 ? ianaZone(name) : undefined;

const cut = (value: string, max: number): string => (value.length > max ? value.slice(0, max) : value);

/** Ids and uids as stored: a hostile one past the bound becomes its digest, the same in every copy. */
export function boundedKey(value: string): string {
  return value.length <= GOOGLE_EVENT_LIMITS.keyChars
    ? value
    : `sha256:${createHash('sha256').update(value).digest('base64url')}`;
}
