/**
 * A calendar view item as Graph writes it in a delta page: times in the zone the
 * client asked for with `Prefer: outlook.timezone` (UTC when it asked for none,
 * as Graph does), an occurrence's `seriesMasterId` and `type`, the online
 * meeting's join link, and the mailbox's own response beside each attendee's.
 */
import type { ViewItem } from './calendar-store';
import { instantToWall } from './time-zones';

function dateTimeIn(instant: number, zone: string): { dateTime: string; timeZone: string } {
  return { dateTime: instantToWall(instant, zone), timeZone: zone };
}

export function eventJson(item: ViewItem, zone: string): Record<string, unknown> {
  const event = item.event;
  const lastModified = new Date(event.lastModified).toISOString();
  return {
    '@odata.type': '#microsoft.graph.event',
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
