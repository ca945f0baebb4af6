/**
 * Each user's calendar as stored by the simulator: single events and weekly series
 * with per-instance exceptions (moved or cancelled instances). Every change stamps
 * the touched event or exception with the next value of one change counter; a sync
 * token remembers the counter, so an incremental list is "what changed after it".
 */

/** Timed events keep their wall-clock start in their zone, so a weekly series follows DST. */
export type EventTiming =
  | { kind: 'timed'; startLocal: string; timeZone: string; durationMinutes: number }
  | { kind: 'allDay'; date: string; days: number };

export type ResponseStatus = 'needsAction' | 'declined' | 'tentative' | 'accepted';

export interface InstanceException {
  /** Absent for a cancelled instance that was not moved. */
  timing?: EventTiming;
  status: 'confirmed' | 'cancelled';
  changeSeq: number;
  updatedMs: number;
}

export interface StoredEvent {
  id: string;
  iCalUID: string;
  status: 'confirmed' | 'cancelled';
  summary: string;
  timing: EventTiming;
  organizer: string;
  attendees: { email: string; responseStatus: ResponseStatus }[];
  hangoutLink?: string;
  videoUri?: string;
  location?: string;
  description?: string;
  /** Weekly series with this many occurrences. */
  weeklyCount?: number;
  /** Keyed by the instance's original start (UTC ms). */
  exceptions: Map<number, InstanceException>;
  changeSeq: number;
  updatedMs: number;
}

export class CalendarStore {
  /** owner email -> event id -> event. */
  readonly calendars = new Map<string, Map<string, StoredEvent>>();
  /** calendar owner -> readers who may list it. */
  readonly readers = new Map<string, Set<string>>();
  private changeCounter = 0;
  /** Told of every change to a calendar, by its owner (push channels deliver from it). */
  onChange: ((owner: string) => void) | undefined;

  get lastChangeSeq(): number {
    return this.changeCounter;
  }

  nextChangeSeq(): number {
    this.changeCounter += 1;
    return this.changeCounter;
  }

  /** Marks `owner`'s calendar changed (after the change is stored). */
  changed(owner: string): void {
    this.onChange?.(owner);
  }

  calendarOf(owner: string): Map<string, StoredEvent> {
    let calendar = this.calendars.get(owner);
    if (!calendar) {
      calendar = new Map();
      this.calendars.set(owner, calendar);
    }
    return calendar;
  }

  event(owner: string, eventId: string): StoredEvent {
    const event = this.calendars.get(owner)?.get(eventId);
    if (!event) throw new Error(`no event ${eventId} in ${owner}'s calendar`);
    return event;
  }

  mayRead(reader: string, owner: string): boolean {
    return reader === owner || (this.readers.get(owner)?.has(reader) ?? false);
  }
}
