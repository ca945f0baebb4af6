/**
 * An event as Graph writes it: times in the zone the client asked for with
 * `Prefer: outlook.timezone` (UTC when it asked for none, as Graph does), an
 * occurrence's `seriesMasterId` and `type`, the online meeting's join link, and the
 * mailbox's own response beside each attendee's. A delta page writes a plain
 * occurrence of a series as a stub (occurrenceStub) and the series itself as its
 * master (seriesMasterJson); a GET of one event writes it in full.
 */
import { createHash } from 'node:crypto';
import { type StoredEvent, singleInstanceItem, type ViewItem } from './calendar-store';
import { instantToWall } from './time-zones';

const DAY_NAMES = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];

/** A weak ETag that changes with every change to the event (Graph's is the item's change key). */
function etag(event: StoredEvent, id: string): string {
  const key = createHash('sha256').update(`${id}|${event.lastModified}`).digest('base64').slice(0, 28);
  return `W/"${key}"`;
}

function dateTimeIn(instant: number, zone: string): { dateTime: string; timeZone: string } {
  return { dateTime: instantToWall(instant, zone), timeZone: zone };
}

export function eventJson(item: ViewItem, zone: string): Record<string, unknown> {
  const event = item.event;
  const lastModified = new Date(event.lastModified).toISOString();
  return {
    '@odata.type': '#microsoft.graph.event',
    '@odata.etag': etag(event, item.id),
    id: item.id,
    // Graph gives each occurrence of a series an iCalUId of its own (the same in every attendee's copy).
    iCalUId:
      item.originalStartInstant === undefined
        ? event.iCalUId
        : `${event.iCalUId}${new Date(item.originalStartInstant).toISOString().replace(/\D/g, '').slice(0, 14)}`,
    subject: item.subject,
    type: item.type,
    seriesMasterId: item.seriesMasterId ?? null,
    start: dateTimeIn(item.startInstant, zone),
    end: dateTimeIn(item.endInstant, zone),
    ...(item.originalStartInstant === undefined
      ? {}
      : { originalStart: new Date(item.originalStartInstant).toISOString().replace('.000Z', 'Z') }),
    originalStartTimeZone: event.timeZone,
    originalEndTimeZone: event.timeZone,
    isAllDay: event.isAllDay ?? false,
    isCancelled: event.isCancelled,
    isOrganizer: event.responseStatus === 'organizer',
    responseStatus: { response: event.responseStatus, time: '0001-01-01T00:00:00Z' },
    organizer: { emailAddress: event.organizer },
    attendees: (event.attendees ?? []).map((attendee) => ({
      type: 'required',
      status: { response: attendee.response, time: '0001-01-01T00:00:00Z' },
      emailAddress: { name: attendee.name, address: attendee.address },
    })),
    isOnlineMeeting: event.joinUrl !== undefined,
    onlineMeetingProvider: event.joinUrl === undefined ? 'unknown' : 'teamsForBusiness',
    onlineMeeting: event.joinUrl === undefined ? null : { joinUrl: event.joinUrl },
    location: { displayName: event.location ?? '' },
    body: { contentType: 'html', content: event.body ?? '' },
    lastModifiedDateTime: lastModified,
    createdDateTime: lastModified,
  };
}

/**
 * A plain occurrence as calendarView/delta lists it: its slot's times and its series,
 * nothing else (microsoft-graph-docs #1716, #7632, #22197).
 */
export function occurrenceStub(item: ViewItem, zone: string): Record<string, unknown> {
  return {
    '@odata.type': '#microsoft.graph.event',
    '@odata.etag': etag(item.event, item.id),
    id: item.id,
    seriesMasterId: item.seriesMasterId,
    type: 'occurrence',
    start: dateTimeIn(item.startInstant, zone),
    end: dateTimeIn(item.endInstant, zone),
  };
}

/**
 * A weekly series' master in full: the first occurrence's times, the series'
 * iCalUId (each occurrence has one of its own) and its recurrence.
 */
export function seriesMasterJson(event: StoredEvent, zone: string): Record<string, unknown> {
  const { originalStart: _slot, ...json } = eventJson(singleInstanceItem(event), zone);
  const startDate = event.start.slice(0, 10);
  return {
    ...json,
    type: 'seriesMaster',
    seriesMasterId: null,
    recurrence: {
      pattern: {
        type: 'weekly',
        interval: 1,
        month: 0,
        dayOfMonth: 0,
        daysOfWeek: [DAY_NAMES[new Date(`${startDate}T00:00:00Z`).getUTCDay()]],
        firstDayOfWeek: 'sunday',
        index: 'first',
      },
      range: {
        type: 'numbered',
        startDate,
        endDate: '0001-01-01',
        recurrenceTimeZone: event.timeZone,
        numberOfOccurrences: event.weekly?.count ?? 1,
      },
    },
  };
}
