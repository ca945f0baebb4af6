/**
 * One item of a Graph calendarView/delta page as what the rules read. Graph
 * writes times in UTC because we ask it to (`Prefer: outlook.timezone="UTC"`);
 * an occurrence or exception of a series carries its slot (`originalStart`),
 * which with the iCalUId names it in every attendee's copy. Series masters are
 * not occurrences (the view lists their instances) and are skipped.
 *
 * Every field is an outsider's: unknown fields are ignored, text is cut to what
 * is searched or shown, lists to what a real invitation holds. An item that
 * cannot be read (no times) is given back as removed by its id, so nothing
 * scheduled from an earlier copy of it stays.
 */
import * as z from 'zod/mini';
import type { Attendee, LinkFields, Occurrence } from '../../ics-occurrences';
import { MAX_LINK_FIELD_CHARS } from '../../meeting-link';
import type { ProviderItem } from '../provider-contract';

/** Outlook refuses to send an invitation to more than 500 recipients. */
export const MAX_ATTENDEES = 500;
/** Titles are shown, never searched: a line's worth is kept. */
export const MAX_TITLE_CHARS = 1_000;
/** Graph ids are about 150 characters; iCalUIds from other systems may be longer, but not this long. */
const MAX_ID_CHARS = 2_048;
const MAX_LOCATIONS = 20;

export type NormalisedEntry =
  | { kind: 'item'; item: ProviderItem }
  | { kind: 'removed'; id: string }
  /** A series master: its instances come as their own items. */
  | { kind: 'skipped' };

/** Optional text, cut to `max`; a value of another type is read as absent. */
const text = (max: number) =>
  z.catch(
    z.nullish(
      z.pipe(
        z.string(),
        z.transform((value) => (value.length > max ? value.slice(0, max) : value)),
      ),
    ),
    undefined,
  );

/** An optional part of the event; a malformed one is read as absent, the rest of the event still counts. */
const part = <T extends z.ZodMiniType>(schema: T) => z.catch(z.nullish(schema), undefined);

/** A list cut to `max` entries, each entry read on its own later. */
const list = (max: number) =>
  part(
    z.pipe(
      z.array(z.unknown()),
      z.transform((entries) => entries.slice(0, max)),
    ),
  );

const id = z.string().check(z.minLength(1), z.maxLength(MAX_ID_CHARS));

const EmailAddress = part(z.object({ address: text(320), name: text(MAX_TITLE_CHARS) }));

const DateTimeTimeZone = z.object({
  dateTime: z.string().check(z.maxLength(64)),
  timeZone: z.nullish(z.string().check(z.maxLength(100))),
});

const GraphAttendee = z.object({
  emailAddress: EmailAddress,
  status: part(z.object({ response: text(40) })),
});

const Location = z.object({ displayName: text(MAX_LINK_FIELD_CHARS), locationUri: text(MAX_LINK_FIELD_CHARS) });

const GraphEventJson = z.object({
  id,
  iCalUId: part(id),
  type: part(z.enum(['singleInstance', 'occurrence', 'exception', 'seriesMaster'])),
  seriesMasterId: part(id),
  subject: text(MAX_TITLE_CHARS),
  start: DateTimeTimeZone,
  end: DateTimeTimeZone,
  originalStart: part(z.string().check(z.maxLength(64))),
  originalStartTimeZone: text(100),
  isAllDay: part(z.boolean()),
  isCancelled: part(z.boolean()),
  responseStatus: part(z.object({ response: text(40) })),
  isOrganizer: part(z.boolean()),
  organizer: part(z.object({ emailAddress: EmailAddress })),
  attendees: list(MAX_ATTENDEES),
  onlineMeeting: part(z.object({ joinUrl: text(MAX_LINK_FIELD_CHARS) })),
  onlineMeetingUrl: text(MAX_LINK_FIELD_CHARS),
  location: part(Location),
  locations: list(MAX_LOCATIONS),
  body: part(z.object({ contentType: text(10), content: text(MAX_LINK_FIELD_CHARS) })),
});

type GraphEventJson = z.infer<typeof GraphEventJson>;

const RemovedJson = z.object({ id, '@removed': z.unknown() });
const IdOnly = z.object({ id });

/** Graph's attendee `status.response` (and an event's `responseStatus`) as iCalendar's PARTSTAT. */
const PARTSTAT: Record<string, string> = {
  accepted: 'ACCEPTED',
  organizer: 'ACCEPTED',
  declined: 'DECLINED',
  tentativelyAccepted: 'TENTATIVE',
  none: 'NEEDS-ACTION',
  notResponded: 'NEEDS-ACTION',
};

/** `2027-03-15T08:00:00.0000000` in UTC (seven fraction digits, no offset, as Graph writes it) as an ISO instant. */
function utcInstant(value: { dateTime: string; timeZone?: string | null | undefined }): string | undefined {
  if (value.timeZone !== undefined && value.timeZone !== null && !/^(UTC|Etc\/UTC)$/i.test(value.timeZone))
    return undefined;
  const match = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(\.\d+)?$/.exec(value.dateTime);
  if (match === null) return undefined;
  const ms = Date.parse(`${match[1]}${(match[2] ?? '').slice(0, 4)}Z`);
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
}

/** `originalStart` is an offset date-time (`2027-03-29T07:00:00Z`). */
function instant(value: string | null | undefined): string | undefined {
  if (value === undefined || value === null) return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
}

/** Zone names already checked: building an Intl formatter to check one costs far more than reading an event. */
const zoneNames = new Map<string, string | undefined>();
const MAX_ZONE_NAMES = 1_000;

function ianaZone(name: string | null | undefined): string | undefined {
  if (name === undefined || name === null || name === '') return undefined;
  if (zoneNames.has(name)) return zoneNames.get(name);
  let zone: string | undefined;
  try {
    zone = new Intl.DateTimeFormat('en', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    zone = undefined;
  }
  // Graph writes a handful of Windows and IANA names; an outsider's odd names stop being remembered past the cap.
  if (zoneNames.size < MAX_ZONE_NAMES) zoneNames.set(name, zone);
  return zone;
}

const emailOf = (address: string | null | undefined): string | undefined =>
  address === undefined || address === null || address === '' ? undefined : address.toLowerCase();

function attendeesOf(event: GraphEventJson, mailbox: string | undefined): Attendee[] {
  const attendees: Attendee[] = [];
  for (const raw of event.attendees ?? []) {
    const parsed = GraphAttendee.safeParse(raw);
    const email = parsed.success ? emailOf(parsed.data.emailAddress?.address) : undefined;
    if (!parsed.success || email === undefined) continue;
    const response = parsed.data.status?.response;
    attendees.push({ email, partstat: response === undefined || response === null ? undefined : PARTSTAT[response] });
  }
  // The mailbox's own answer is its copy's `responseStatus`; the attendee list may lag or leave it out.
  const own = event.responseStatus?.response;
  const ownPartstat = own === undefined || own === null || own === 'organizer' ? undefined : PARTSTAT[own];
  if (mailbox !== undefined && ownPartstat !== undefined && own !== 'none') {
    const entry = attendees.find((attendee) => attendee.email === mailbox);
    if (entry !== undefined) entry.partstat = ownPartstat;
    else if (attendees.length < MAX_ATTENDEES) attendees.push({ email: mailbox, partstat: ownPartstat });
  }
  return attendees;
}

function linksOf(event: GraphEventJson): LinkFields {
  const conference = [event.onlineMeeting?.joinUrl, event.onlineMeetingUrl].filter(
    (link): link is string => typeof link === 'string' && link !== '',
  );
  const places = new Set<string>();
  const addPlace = (place: z.infer<typeof Location> | undefined) => {
    for (const value of [place?.displayName, place?.locationUri]) if (value) places.add(value);
  };
  addPlace(event.location ?? undefined);
  for (const raw of event.locations ?? []) {
    const parsed = Location.safeParse(raw);
    if (parsed.success) addPlace(parsed.data);
  }
  const location = [...places].join('\n').slice(0, MAX_LINK_FIELD_CHARS);
  const content = event.body?.content ?? undefined;
  const isHtml = event.body?.contentType?.toLowerCase() === 'html';
  return {
    conference,
    url: undefined,
    location: location === '' ? undefined : location,
    description: content !== undefined && !isHtml && content !== '' ? content : undefined,
    descriptionHtml: content !== undefined && isHtml && content !== '' ? content : undefined,
  };
}

/**
 * `mailbox`: the calendar owner's address (lowercase) when the user is named by
 * one, so the owner's own answer to an invitation reaches the rules.
 */
export function normaliseGraphEvent(json: unknown, mailbox?: string): NormalisedEntry | undefined {
  const removed = RemovedJson.safeParse(json);
  if (removed.success) return { kind: 'removed', id: removed.data.id };
  const parsed = GraphEventJson.safeParse(json);
  if (!parsed.success) {
    const id = IdOnly.safeParse(json);
    return id.success ? { kind: 'removed', id: id.data.id } : undefined;
  }
  const event = parsed.data;
  if (event.type === 'seriesMaster') return { kind: 'skipped' };
  const start = utcInstant(event.start);
  const end = utcInstant(event.end);
  if (start === undefined || end === undefined) return { kind: 'removed', id: event.id };
  const inSeries = event.type === 'occurrence' || event.type === 'exception';
  // An unmoved occurrence starts at its slot; Graph names the slot anyway, this covers an answer without it.
  const originalStart = inSeries
    ? (instant(event.originalStart) ?? (event.type === 'occurrence' ? start : undefined))
    : undefined;
  const occurrence: Occurrence = {
    uid: event.iCalUId ?? event.id,
    ...(inSeries && typeof event.seriesMasterId === 'string' && { series: event.seriesMasterId }),
    originalStart,
    start,
    end,
    timeZone: ianaZone(event.originalStartTimeZone),
    title: event.subject ?? '',
    allDay: event.isAllDay === true,
    cancelled: event.isCancelled === true,
    // The mailbox's own meeting names the mailbox as the source gives it (a UPN other than its mail, an
    // object id): the rules compare owners by that name.
    organizer:
      mailbox !== undefined && (event.isOrganizer === true || event.responseStatus?.response === 'organizer')
        ? mailbox
        : emailOf(event.organizer?.emailAddress?.address),
    attendees: attendeesOf(event, mailbox),
    links: linksOf(event),
  };
  return { kind: 'item', item: { id: event.id, occurrence } };
}
