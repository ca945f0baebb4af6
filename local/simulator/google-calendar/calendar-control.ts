/**
 * The control API tests and local mode use to change calendars and the tenant, as a
 * user or an administrator would in Google's own UI: add, move and cancel events and
 * single instances of a series, give an invitee their copy of a meeting (same
 * iCalUID and id, in their calendar), answer an invitation, grant or revoke
 * domain-wide delegation, void sync tokens, share a calendar, and define the
 * directory's groups (nested ones too), admins and suspended users.
 */
import { randomBytes } from 'node:crypto';
import type { CalendarStore, EventTiming, ResponseStatus, StoredEvent } from './calendar-store';
import type { SimulatedClock } from './clock';
import { occurrenceTiming, timingBounds } from './event-instances';
import type { EventsList } from './events-list';
import type { Tenant } from './tenant';

export interface NewEvent {
  id?: string;
  summary: string;
  timing: EventTiming;
  organizer?: string;
  attendees?: { email: string; responseStatus?: ResponseStatus }[];
  hangoutLink?: string;
  videoUri?: string;
  location?: string;
  description?: string;
  /** A weekly series with this many occurrences. */
  weeklyCount?: number;
}

export class CalendarControl {
  constructor(
    private readonly store: CalendarStore,
    private readonly tenant: Tenant,
    private readonly eventsList: EventsList,
    private readonly clock: SimulatedClock,
  ) {}

  addUser(email: string): void {
    this.tenant.users.add(email);
    this.store.calendarOf(email);
  }

  registerServiceAccount(account: { clientEmail: string; clientId: string; publicKeyPem: string }): void {
    this.tenant.serviceAccounts.set(account.clientEmail, { ...account });
  }

  grantDelegation(clientId: string, scopes: string[]): void {
    this.tenant.delegationGrants.set(clientId, new Set(scopes));
  }

  revokeDelegation(clientId: string): void {
    this.tenant.delegationGrants.delete(clientId);
  }

  /** Gives `email` the admin role the Directory API requires of its caller. */
  makeAdmin(email: string): void {
    this.tenant.admins.add(email);
  }

  /** Defines (or redefines) a group; a member that is itself a defined group is a nested group. */
  defineGroup(group: string, members: string[]): void {
    this.tenant.groups.set(
      group.toLowerCase(),
      members.map((member) => member.toLowerCase()),
    );
  }

  /** Suspends a user: still in their groups, listed with status SUSPENDED. */
  suspendUser(email: string): void {
    this.tenant.suspendedUsers.add(email);
  }

  /** Ends every access token issued for `user` now, as Google does when it revokes them early. */
  expireAccessTokens(user: string): void {
    for (const token of this.tenant.accessTokens.values()) {
      if (token.user === user) token.expiresAtMs = Math.min(token.expiresAtMs, this.clock.now());
    }
  }

  shareCalendar(owner: string, reader: string): void {
    const readers = this.store.readers.get(owner) ?? new Set<string>();
    readers.add(reader);
    this.store.readers.set(owner, readers);
  }

  voidSyncTokens(owner: string): void {
    this.eventsList.voidSyncTokens(owner);
  }

  advanceClock(ms: number): void {
    this.clock.advance(ms);
  }

  addEvent(owner: string, input: NewEvent): string {
    const id = input.id ?? randomBytes(10).toString('hex');
    const event: StoredEvent = {
      id,
      iCalUID: `${id}@google.com`,
      status: 'confirmed',
      summary: input.summary,
      timing: input.timing,
      organizer: input.organizer ?? owner,
      attendees: (input.attendees ?? []).map((a) => ({
        email: a.email,
        responseStatus: a.responseStatus ?? 'needsAction',
      })),
      ...(input.hangoutLink !== undefined ? { hangoutLink: input.hangoutLink } : {}),
      ...(input.videoUri !== undefined ? { videoUri: input.videoUri } : {}),
      ...(input.location !== undefined ? { location: input.location } : {}),
      ...(input.description !== undefined ? { description: input.description } : {}),
      ...(input.weeklyCount !== undefined ? { weeklyCount: input.weeklyCount } : {}),
      exceptions: new Map(),
      changeSeq: this.store.nextChangeSeq(),
      updatedMs: this.clock.now(),
    };
    this.store.calendarOf(owner).set(id, event);
    this.store.changed(owner);
    return id;
  }

  /** The invitee's copy of the organizer's meeting: same id and iCalUID, in the invitee's calendar. */
  addInviteeCopy(organizer: string, eventId: string, invitee: string): void {
    const original = this.store.event(organizer, eventId);
    this.store.calendarOf(invitee).set(eventId, {
      ...original,
      attendees: original.attendees.map((a) => ({ ...a })),
      exceptions: new Map(original.exceptions),
      changeSeq: this.store.nextChangeSeq(),
      updatedMs: this.clock.now(),
    });
    this.store.changed(invitee);
  }

  moveEvent(owner: string, eventId: string, timing: EventTiming): void {
    this.touch(owner, eventId).timing = timing;
  }

  cancelEvent(owner: string, eventId: string): void {
    this.touch(owner, eventId).status = 'cancelled';
  }

  /** Sets `attendee`'s answer on the copy in `owner`'s calendar. */
  respond(owner: string, eventId: string, attendee: string, responseStatus: ResponseStatus): void {
    const event = this.touch(owner, eventId);
    const entry = event.attendees.find((a) => a.email === attendee);
    if (!entry) throw new Error(`${attendee} is not invited to ${eventId}`);
    entry.responseStatus = responseStatus;
  }

  /** Moves occurrence `index` (0-based) of a weekly series; the instance keeps its original start. */
  moveInstance(owner: string, seriesId: string, index: number, timing: EventTiming): void {
    this.setException(owner, seriesId, index, { timing, status: 'confirmed' });
  }

  cancelInstance(owner: string, seriesId: string, index: number): void {
    this.setException(owner, seriesId, index, { status: 'cancelled' });
  }

  private setException(
    owner: string,
    seriesId: string,
    index: number,
    change: { timing?: EventTiming; status: 'confirmed' | 'cancelled' },
  ): void {
    const series = this.store.event(owner, seriesId);
    if (series.weeklyCount === undefined || index < 0 || index >= series.weeklyCount) {
      throw new Error(`${seriesId} has no occurrence ${index}`);
    }
    const originalStartMs = timingBounds(occurrenceTiming(series, index)).startMs;
    // Cancelling a moved instance keeps where it had been moved to.
    const timing = change.timing ?? series.exceptions.get(originalStartMs)?.timing;
    series.exceptions.set(originalStartMs, {
      ...(timing ? { timing } : {}),
      status: change.status,
      changeSeq: this.store.nextChangeSeq(),
      updatedMs: this.clock.now(),
    });
    this.store.changed(owner);
  }

  /** Stamps the event changed; its owner's push channels hear of it (delivery is I/O: the caller's edit lands first). */
  private touch(owner: string, eventId: string): StoredEvent {
    const event = this.store.event(owner, eventId);
    event.changeSeq = this.store.nextChangeSeq();
    event.updatedMs = this.clock.now();
    this.store.changed(owner);
    return event;
  }
}
