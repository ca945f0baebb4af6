/**
 * A strict local Microsoft Graph calendar simulator and the TypeScript control
 * API tests drive it with: tenants, apps and their grants (secrets and
 * certificates), users and nested groups, the application access policy, users'
 * calendars (single events, weekly series with exceptions and cancelled
 * occurrences, an invitee's copy of a meeting, a decline), voided delta tokens,
 * throttling and the clock. The HTTP side is server.ts.
 */

import { createHash, X509Certificate } from 'node:crypto';
import type { Attendee, EventFields, OccurrenceChange, StoredEvent } from './calendar-store';
import { CalendarStore } from './calendar-store';
import { CalendarViewDelta } from './calendar-view-delta';
import { Directory, type SimulatedGroup, type SimulatedUser } from './directory';
import { EventGet } from './event-get';
import { GroupMembers } from './group-members';
import { GraphHttpServer } from './server';
import { type LifecycleEvent, Subscriptions } from './subscriptions';
import { MailboxThrottle, type ThrottleLimit } from './throttle';

/** Outlook's published per-app, per-mailbox limit: 10,000 requests in ten minutes. */
export const OUTLOOK_MAILBOX_LIMIT: ThrottleLimit = { requests: 10_000, windowSeconds: 600 };

export interface MicrosoftGraphSimulatorOptions {
  /** The simulated clock's start (ms since the epoch). */
  now: number;
  throttle?: ThrottleLimit;
}

export class MicrosoftGraphSimulator {
  readonly directory: Directory;
  readonly store: CalendarStore;
  readonly throttle: MailboxThrottle;
  /** Change-notification subscriptions and their deliveries (subscriptions.ts). */
  readonly subscriptions: Subscriptions;
  private readonly http: GraphHttpServer;

  constructor(options: MicrosoftGraphSimulatorOptions) {
    this.directory = new Directory(options.now);
    this.store = new CalendarStore(() => this.directory.now());
    this.throttle = new MailboxThrottle(options.throttle ?? OUTLOOK_MAILBOX_LIMIT);
    this.subscriptions = new Subscriptions(this.directory);
    this.store.onChange = (userId, ids, changeType) => this.subscriptions.changed(userId, ids, changeType);
    this.http = new GraphHttpServer(
      this.directory,
      new CalendarViewDelta(this.directory, this.store, this.throttle),
      new GroupMembers(this.directory),
      this.subscriptions,
      new EventGet(this.directory, this.store, this.throttle),
    );
  }

  /** Graph sends a lifecycle notification for the subscription (`subscriptionRemoved` also ends it). */
  sendLifecycle(subscriptionId: string, event: LifecycleEvent): void {
    this.subscriptions.sendLifecycle(subscriptionId, event);
  }

  /** Starts the server on a free port of 127.0.0.1; answers its base URL (Graph and login alike). */
  start(): Promise<string> {
    return this.http.start();
  }

  stop(): Promise<void> {
    return this.http.stop();
  }

  advanceClock(ms: number): void {
    this.directory.advance(ms);
  }

  setThrottle(limit: ThrottleLimit): void {
    this.throttle.limit = limit;
  }

  addApp(tenantId: string, app: { clientId: string; secret?: string; roles: string[] }): void {
    this.directory.tenant(tenantId).apps.set(app.clientId, {
      clientId: app.clientId,
      secret: app.secret,
      roles: new Set(app.roles),
      allowedUsers: undefined,
      certificates: new Map(),
    });
  }

  /** Uploads a certificate (PEM) to the app registration: assertions signed by its key, naming its thumbprint, are taken. */
  addCertificate(tenantId: string, clientId: string, certificatePem: string): void {
    const certificate = new X509Certificate(certificatePem);
    const thumbprint = createHash('sha1').update(certificate.raw).digest('base64url');
    this.app(tenantId, clientId).certificates.set(thumbprint, certificate.publicKey);
  }

  addUser(tenantId: string, user: SimulatedUser): void {
    this.directory.tenant(tenantId).users.set(user.id, user);
  }

  /** A group whose members are user or group ids (nesting as Entra allows it). */
  addGroup(tenantId: string, group: SimulatedGroup): void {
    this.directory.tenant(tenantId).groups.set(group.id, group);
  }

  /** An administrator blocks sign-in: the account stays in its groups, with accountEnabled false. */
  disableUser(tenantId: string, userId: string): void {
    const user = this.directory.tenants.get(tenantId)?.users.get(userId);
    if (user === undefined) throw new Error(`no user ${userId} in tenant ${tenantId}`);
    user.accountEnabled = false;
  }

  private app(tenantId: string, clientId: string) {
    const app = this.directory.tenants.get(tenantId)?.apps.get(clientId);
    if (app === undefined) throw new Error(`no app ${clientId} in tenant ${tenantId}`);
    return app;
  }

  /** An administrator removes an application permission (a revoked grant); tokens already out lose it too. */
  revokePermission(tenantId: string, clientId: string, role: string): void {
    this.app(tenantId, clientId).roles.delete(role);
  }

  /** The tenant's application access policy: the users the app may read, or undefined for no policy (all). */
  setAccessPolicy(tenantId: string, clientId: string, userIds: string[] | undefined): void {
    this.app(tenantId, clientId).allowedUsers = userIds === undefined ? undefined : new Set(userIds);
  }

  /** Voids every delta and skip token handed out for the user's mailbox: the next call with one gets 410. */
  voidDeltaTokens(userId: string): void {
    this.store.calendar(userId).syncGeneration += 1;
  }

  addEvent(userId: string, fields: EventFields): StoredEvent {
    return this.store.add(userId, fields);
  }

  /** A weekly series of `count` occurrences starting at `fields.start`, in `fields.timeZone`. */
  addWeeklySeries(userId: string, fields: EventFields, count: number): StoredEvent {
    return this.store.add(userId, fields, { weeklyCount: count });
  }

  /** The invitee's own copy of a meeting: same iCalUId, its own id, not yet answered. */
  addInviteeCopy(inviteeId: string, original: StoredEvent): StoredEvent {
    const { id: _id, iCalUId, isCancelled: _c, responseStatus: _r, lastModified: _l, weekly, ...fields } = original;
    return this.store.add(inviteeId, fields, {
      iCalUId,
      responseStatus: 'notResponded',
      ...(weekly === undefined ? {} : { weeklyCount: weekly.count }),
    });
  }

  moveEvent(userId: string, eventId: string, start: string, end: string): StoredEvent {
    return this.store.update(userId, eventId, (event) => {
      event.start = start;
      event.end = end;
    });
  }

  /** The organizer cancels: gone from the organizer's calendar. */
  cancelEvent(userId: string, eventId: string): void {
    this.store.remove(userId, eventId);
  }

  /** An invitee's copy of a meeting its organizer cancelled: it stays, marked cancelled, until removed. */
  markCancelled(userId: string, eventId: string): StoredEvent {
    return this.store.update(userId, eventId, (event) => {
      event.isCancelled = true;
    });
  }

  changeOccurrence(userId: string, masterId: string, originalDate: string, change: OccurrenceChange): void {
    this.store.changeOccurrence(userId, masterId, originalDate, change);
  }

  cancelOccurrence(userId: string, masterId: string, originalDate: string): void {
    this.store.cancelOccurrence(userId, masterId, originalDate);
  }

  /** The mailbox's owner answers the invitation; the organizer's attendee list shows it too. */
  respond(
    userId: string,
    eventId: string,
    response: Attendee['response'],
    organizer?: { userId: string; eventId: string },
  ): void {
    const address = this.userAddress(userId);
    const setOn = (event: StoredEvent) => {
      for (const attendee of event.attendees ?? []) if (attendee.address === address) attendee.response = response;
    };
    this.store.update(userId, eventId, (event) => {
      event.responseStatus = response;
      setOn(event);
    });
    if (organizer !== undefined) this.store.update(organizer.userId, organizer.eventId, setOn);
  }

  private userAddress(userId: string): string {
    for (const tenant of this.directory.tenants.values()) {
      const user = tenant.users.get(userId);
      if (user !== undefined) return user.userPrincipalName;
    }
    throw new Error(`no user ${userId}`);
  }
}
