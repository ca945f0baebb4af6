/**
 * Turns stored events into the Calendar API's event resources: one resource per
 * event, or with `singleEvents=true` one per occurrence of a series, each carrying
 * `recurringEventId` and `originalStartTime` (a moved instance keeps its original
 * start there). Instance ids are `<seriesId>_<original start as compact UTC>`.
 * Reference: https://developers.google.com/workspace/calendar/api/v3/reference/events
 */
import type { EventTiming, InstanceException, StoredEvent } from './calendar-store';
import { addLocalDays, compactUtc, formatZoned, zonedToUtc } from './zoned-time';

export interface EventTime {
  dateTime?: string;
  date?: string;
  timeZone?: string;
}

export interface EventResource {
  kind: 'calendar#event';
  id: string;
  status: 'confirmed' | 'cancelled';
  updated: string;
  iCalUID?: string;
  summary?: string;
  description?: string;
  location?: string;
  start?: EventTime;
  end?: EventTime;
  organizer?: { email: string };
  attendees?: { email: string; responseStatus: string }[];
  hangoutLink?: string;
  conferenceData?: { entryPoints: { entryPointType: 'video'; uri: string }[] };
  recurrence?: string[];
  recurringEventId?: string;
  originalStartTime?: EventTime;
}

/** One listed item with what the list needs to filter, order and sync it. */
export interface ListedItem {
  resource: EventResource;
  startMs: number;
  endMs: number;
  changeSeq: number;
}

export function timingBounds(timing: EventTiming): { startMs: number; endMs: number } {
  if (timing.kind === 'allDay') {
    // All-day events have no zone; the simulator takes their dates as UTC days.
    const startMs = Date.parse(`${timing.date}T00:00:00Z`);
    return { startMs, endMs: startMs + timing.days * 86_400_000 };
  }
  const startMs = zonedToUtc(timing.startLocal, timing.timeZone);
  return { startMs, endMs: startMs + timing.durationMinutes * 60_000 };
}

function renderTimes(timing: EventTiming): { start: EventTime; end: EventTime } {
  if (timing.kind === 'allDay') {
    const endDate = new Date(Date.parse(`${timing.date}T00:00:00Z`) + timing.days * 86_400_000);
    return { start: { date: timing.date }, end: { date: endDate.toISOString().slice(0, 10) } };
  }
  const { startMs, endMs } = timingBounds(timing);
  return {
    start: { dateTime: formatZoned(startMs, timing.timeZone), timeZone: timing.timeZone },
    end: { dateTime: formatZoned(endMs, timing.timeZone), timeZone: timing.timeZone },
  };
}

/** Occurrence `index` (0-based) of a weekly series, before any exception: same wall time, 7 days apart. */
export function occurrenceTiming(series: StoredEvent, index: number): EventTiming {
  const t = series.timing;
  if (t.kind === 'allDay') return { ...t, date: addLocalDays(`${t.date}T00:00:00`, 7 * index).slice(0, 10) };
  return { ...t, startLocal: addLocalDays(t.startLocal, 7 * index) };
}

function fullResource(event: StoredEvent, timing: EventTiming, updatedMs: number): EventResource {
  return {
    kind: 'calendar#event',
    id: event.id,
    status: 'confirmed',
    updated: new Date(updatedMs).toISOString(),
    iCalUID: event.iCalUID,
    summary: event.summary,
    ...(event.description !== undefined ? { description: event.description } : {}),
    ...(event.location !== undefined ? { location: event.location } : {}),
    ...renderTimes(timing),
    organizer: { email: event.organizer },
    attendees: event.attendees.map((a) => ({ email: a.email, responseStatus: a.responseStatus })),
    ...(event.hangoutLink !== undefined ? { hangoutLink: event.hangoutLink } : {}),
    ...(event.videoUri !== undefined
      ? { conferenceData: { entryPoints: [{ entryPointType: 'video' as const, uri: event.videoUri }] } }
      : {}),
  };
}

/** Google sends a deleted event as little more than its id and `status: "cancelled"`. */
function cancelledResource(id: string, updatedMs: number, instanceOf?: EventResource): EventResource {
  return {
    kind: 'calendar#event',
    id,
    status: 'cancelled',
    updated: new Date(updatedMs).toISOString(),
    ...(instanceOf?.recurringEventId !== undefined
      ? { recurringEventId: instanceOf.recurringEventId, originalStartTime: instanceOf.originalStartTime! }
      : {}),
  };
}

function instanceItem(series: StoredEvent, index: number): ListedItem {
  const originalTiming = occurrenceTiming(series, index);
  const original = timingBounds(originalTiming);
  const exception: InstanceException | undefined = series.exceptions.get(original.startMs);
  const timing = exception?.timing ?? originalTiming;
  const updatedMs = Math.max(series.updatedMs, exception?.updatedMs ?? 0);
  const changeSeq = Math.max(series.changeSeq, exception?.changeSeq ?? 0);
  const shape = fullResource(series, timing, updatedMs);
  const resource: EventResource = {
    ...shape,
    id: `${series.id}_${compactUtc(original.startMs)}`,
    recurringEventId: series.id,
    originalStartTime: renderTimes(originalTiming).start,
  };
  const cancelled = series.status === 'cancelled' || exception?.status === 'cancelled';
  const { startMs, endMs } = timingBounds(timing);
  return {
    resource: cancelled ? cancelledResource(resource.id, updatedMs, resource) : resource,
    startMs,
    endMs,
    changeSeq,
  };
}

/** All items of one stored event, expanded into instances when `singleEvents` is set. */
export function listedItems(event: StoredEvent, singleEvents: boolean): ListedItem[] {
  if (event.weeklyCount === undefined) {
    const { startMs, endMs } = timingBounds(event.timing);
    const resource =
      event.status === 'cancelled'
        ? cancelledResource(event.id, event.updatedMs)
        : fullResource(event, event.timing, event.updatedMs);
    return [{ resource, startMs, endMs, changeSeq: event.changeSeq }];
  }
  const instances = Array.from({ length: event.weeklyCount }, (_, index) => instanceItem(event, index));
  if (singleEvents) return instances;
  // Without expansion: the series itself with its rule, then its exceptions as their own items.
  const { startMs } = timingBounds(event.timing);
  const last = instances.at(-1)!;
  const master: ListedItem = {
    resource:
      event.status === 'cancelled'
        ? cancelledResource(event.id, event.updatedMs)
        : {
            ...fullResource(event, event.timing, event.updatedMs),
            recurrence: [`RRULE:FREQ=WEEKLY;COUNT=${event.weeklyCount}`],
          },
    startMs,
    endMs: last.endMs,
    changeSeq: event.changeSeq,
  };
  const exceptionStarts = new Set(event.exceptions.keys());
  const exceptions = instances.filter((item) => {
    const original = item.resource.originalStartTime;
    const originalMs = original?.dateTime ? Date.parse(original.dateTime) : Number.NaN;
    return exceptionStarts.has(originalMs);
  });
  return [master, ...exceptions];
}
