/**
 * Each user's calendar as Outlook keeps it: single events and weekly series
 * (with moved or changed occurrences, the exceptions, and cancelled ones), and
 * the change log a delta round reads. A calendar view expands a series into its
 * occurrences in the series' own zone, so an occurrence keeps its wall time
 * across a DST change and its UTC time moves.
 */
import { createHash, randomBytes } from 'node:crypto';
import { wallToInstant } from './time-zones';

export type ResponseStatus = 'none' | 'organizer' | 'tentativelyAccepted' | 'accepted' | 'declined' | 'notResponded';

export interface Attendee {
  address: string;
  name: string;
  response: ResponseStatus;
}

/** The parts of an event a test sets; the store fills in ids and times. */
export interface EventFields {
  subject: string;
  /** Wall times `YYYY-MM-DDTHH:mm:ss` in `timeZone`. */
  start: string;
  end: string;
  timeZone: string;
  isAllDay?: boolean;
  organizer: { address: string; name: string };
  attendees?: Attendee[];
  joinUrl?: string;
  location?: string;
  body?: string;
}

export interface OccurrenceChange {
  start?: string;
  end?: string;
  subject?: string;
}

export interface StoredEvent extends EventFields {
  id: string;
  iCalUId: string;
  /** The organizer cancelled it; an attendee's copy stays, marked cancelled, until removed. */
  isCancelled: boolean;
  /** This mailbox's own answer to the invitation. */
  responseStatus: ResponseStatus;
  lastModified: number;
  /** A weekly series: `count` occurrences, one week apart, from `start`. */
  weekly?: { count: number; exceptions: Map<string, OccurrenceChange>; cancelled: Set<string> };
}

/** One entry of a calendar view: a single event, an occurrence or an exception. */
export interface ViewItem {
  id: string;
  event: StoredEvent;
  type: 'singleInstance' | 'occurrence' | 'exception';
  seriesMasterId?: string;
  startWall: string;
  endWall: string;
  /** An occurrence's or exception's slot in its series, before any change (Graph's `originalStart`). */
  originalStartInstant?: number;
  startInstant: number;
  endInstant: number;
  subject: string;
}

const DAY_MS = 86_400_000;

function addDays(wall: string, days: number): string {
  const shifted = new Date(Date.parse(`${wall.slice(0, 19)}Z`) + days * DAY_MS);
  return shifted.toISOString().slice(0, 19);
}

/** Outlook ids are long opaque strings; an occurrence's id is derived from its series and original date. */
function newId(): string {
  return `AAMkAG${randomBytes(30).toString('base64url')}=`;
}

export function occurrenceId(masterId: string, originalDate: string): string {
  return `AAMkAGocc${createHash('sha256').update(`${masterId}|${originalDate}`).digest('base64url')}=`;
}

export class UserCalendar {
  readonly events = new Map<string, StoredEvent>();
  /** Every change as (sequence, view item id); a delta round returns the ids logged after its token's sequence. */
  readonly changes: Array<{ seq: number; id: string }> = [];
  /** Raised to void every delta and skip token handed out for this mailbox. */
  syncGeneration = 0;
}

export class CalendarStore {
  private readonly calendars = new Map<string, UserCalendar>();
  private seq = 0;
  /** Told of every logged change (subscriptions deliver notifications from it). */
  onChange: ((userId: string, ids: string[], changeType: 'created' | 'updated' | 'deleted') => void) | undefined;

  constructor(private readonly now: () => number) {}

  calendar(userId: string): UserCalendar {
    let calendar = this.calendars.get(userId);
    if (calendar === undefined) {
      calendar = new UserCalendar();
      this.calendars.set(userId, calendar);
    }
    return calendar;
  }

  sequence(): number {
    return this.seq;
  }

  /** Every view item of an event (one for a single event, one per occurrence for a series). */
  expand(event: StoredEvent): ViewItem[] {
    if (event.weekly === undefined) return [singleInstanceItem(event)];
    const items: ViewItem[] = [];
    for (let week = 0; week < event.weekly.count; week += 1) {
      const originalStart = addDays(event.start, 7 * week);
      const originalDate = originalStart.slice(0, 10);
      if (event.weekly.cancelled.has(originalDate)) continue;
      const change = event.weekly.exceptions.get(originalDate);
      const startWall = change?.start ?? originalStart;
      const endWall = change?.end ?? addDays(event.end, 7 * week);
      items.push({
        id: occurrenceId(event.id, originalDate),
        event,
        type: change === undefined ? 'occurrence' : 'exception',
        seriesMasterId: event.id,
        startWall,
        endWall,
        originalStartInstant: wallToInstant(originalStart, event.timeZone),
        startInstant: wallToInstant(startWall, event.timeZone),
        endInstant: wallToInstant(endWall, event.timeZone),
        subject: change?.subject ?? event.subject,
      });
    }
    return items;
  }

  /** Every occurrence id a series ever had (cancelled ones included), so a change to it logs them all. */
  private allIds(event: StoredEvent): string[] {
    if (event.weekly === undefined) return [event.id];
    const ids: string[] = [];
    for (let week = 0; week < event.weekly.count; week += 1)
      ids.push(occurrenceId(event.id, addDays(event.start, 7 * week).slice(0, 10)));
    return ids;
  }

  /**
   * Logs a change to view items. `event`: the series whose definition changed, so a
   * delta round lists its master too (subscriptions are told of the master only when
   * no instance changed).
   */
  private log(
    userId: string,
    ids: string[],
    changeType: 'created' | 'updated' | 'deleted' = 'updated',
    event?: StoredEvent,
  ): void {
    const calendar = this.calendar(userId);
    this.seq += 1;
    for (const id of ids) calendar.changes.push({ seq: this.seq, id });
    if (event?.weekly !== undefined) calendar.changes.push({ seq: this.seq, id: event.id });
    this.onChange?.(userId, ids.length === 0 && event !== undefined ? [event.id] : ids, changeType);
  }

  add(
    userId: string,
    fields: EventFields,
    options: { iCalUId?: string; weeklyCount?: number; responseStatus?: ResponseStatus } = {},
  ): StoredEvent {
    const event: StoredEvent = {
      ...fields,
      id: newId(),
      iCalUId: options.iCalUId ?? `040000008200E00074C5B7101A82E008${randomBytes(16).toString('hex').toUpperCase()}`,
      isCancelled: false,
      responseStatus: options.responseStatus ?? 'organizer',
      lastModified: this.now(),
      ...(options.weeklyCount === undefined
        ? {}
        : { weekly: { count: options.weeklyCount, exceptions: new Map(), cancelled: new Set<string>() } }),
    };
    this.calendar(userId).events.set(event.id, event);
    this.log(userId, this.allIds(event), 'created', event);
    return event;
  }

  event(userId: string, eventId: string): StoredEvent {
    const event = this.calendar(userId).events.get(eventId);
    if (event === undefined) throw new Error(`no event ${eventId} in ${userId}'s calendar`);
    return event;
  }

  /**
   * Applies a change to an event (or series) and logs every view item it touches. A
   * change to a series that leaves its times alone (subject, link, attendees, answers)
   * is logged on its master alone: a stub shows nothing of it, so a client must carry
   * the master's change to the occurrences it holds.
   */
  update(userId: string, eventId: string, change: (event: StoredEvent) => void): StoredEvent {
    const event = this.event(userId, eventId);
    const before = this.allIds(event);
    const times = () => JSON.stringify([event.start, event.end, event.timeZone, event.weekly?.count]);
    const timesBefore = times();
    change(event);
    event.lastModified = this.now();
    const masterOnly = event.weekly !== undefined && times() === timesBefore;
    this.log(userId, masterOnly ? [] : [...new Set([...before, ...this.allIds(event)])], 'updated', event);
    return event;
  }

  /** Changes one occurrence of a series (it becomes an exception). */
  changeOccurrence(userId: string, masterId: string, originalDate: string, change: OccurrenceChange): void {
    const event = this.event(userId, masterId);
    if (event.weekly === undefined) throw new Error(`${masterId} is not a series`);
    const merged = { ...event.weekly.exceptions.get(originalDate), ...change };
    event.weekly.exceptions.set(originalDate, merged);
    event.lastModified = this.now();
    this.log(userId, [occurrenceId(masterId, originalDate)]);
  }

  /** Deletes one occurrence of a series: the view no longer holds it. */
  cancelOccurrence(userId: string, masterId: string, originalDate: string): void {
    const event = this.event(userId, masterId);
    if (event.weekly === undefined) throw new Error(`${masterId} is not a series`);
    event.weekly.cancelled.add(originalDate);
    event.lastModified = this.now();
    this.log(userId, [occurrenceId(masterId, originalDate)]);
  }

  /** Deletes an event (or a whole series) from the mailbox. */
  remove(userId: string, eventId: string): void {
    const event = this.event(userId, eventId);
    this.calendar(userId).events.delete(eventId);
    this.log(userId, this.allIds(event), 'deleted', event);
  }

  /** Every view item of the mailbox whose time overlaps [start, end). */
  view(userId: string, start: number, end: number): ViewItem[] {
    const items: ViewItem[] = [];
    for (const event of this.calendar(userId).events.values())
      for (const item of this.expand(event)) if (item.startInstant < end && item.endInstant > start) items.push(item);
    return items.sort((a, b) => a.startInstant - b.startInstant || a.id.localeCompare(b.id));
  }

  /**
   * A series whose first occurrence overlaps [start, end): Graph's delta lists such a
   * master itself, and leaves out the master of a series that began before the window.
   * `changed`: the series changed since the last round, which lists its master when
   * any instance overlaps the window (else the change would go unseen).
   */
  masterInView(userId: string, eventId: string, start: number, end: number, changed = false): StoredEvent | undefined {
    const event = this.calendar(userId).events.get(eventId);
    if (event?.weekly === undefined) return undefined;
    const first = wallToInstant(event.start, event.timeZone);
    const firstEnd = wallToInstant(event.end, event.timeZone);
    if (first < end && firstEnd > start) return event;
    return changed && this.expand(event).some((item) => item.startInstant < end && item.endInstant > start)
      ? event
      : undefined;
  }

  /** The series masters of the mailbox listed in a view of [start, end) (masterInView). */
  mastersInView(userId: string, start: number, end: number): StoredEvent[] {
    return [...this.calendar(userId).events.keys()]
      .map((id) => this.masterInView(userId, id, start, end))
      .filter((event): event is StoredEvent => event !== undefined)
      .sort((a, b) => a.id.localeCompare(b.id));
  }

  /** A view item by id (a single event, an occurrence or an exception), wherever its time lies. */
  item(userId: string, id: string): ViewItem | undefined {
    for (const event of this.calendar(userId).events.values())
      for (const item of this.expand(event)) if (item.id === id) return item;
    return undefined;
  }

  /** The distinct ids changed in the mailbox after sequence `since`, in the order of their last change. */
  changedSince(userId: string, since: number): string[] {
    const last = new Map<string, number>();
    for (const change of this.calendar(userId).changes) if (change.seq > since) last.set(change.id, change.seq);
    return [...last.entries()].sort((a, b) => a[1] - b[1]).map(([id]) => id);
  }
}

/** An event as one item at its own times: a single event, or a series master read as itself. */
export function singleInstanceItem(event: StoredEvent): ViewItem {
  return {
    id: event.id,
    event,
    type: 'singleInstance',
    startWall: event.start,
    endWall: event.end,
    startInstant: wallToInstant(event.start, event.timeZone),
    endInstant: wallToInstant(event.end, event.timeZone),
    subject: event.subject,
  };
}
