/**
 * `GET /v1.0/users/{id | userPrincipalName}/events/{id}`: one event in full, as a
 * client reads a series master that a delta round named only by an occurrence's
 * `seriesMasterId`. A master answers as `seriesMaster`, an occurrence or exception
 * id as that instance in full, a single event as itself. The mailbox is checked as
 * for a calendar view (mailbox-access.ts); an id the mailbox does not hold (never
 * did, or deleted) is 404 `ErrorItemNotFound`.
 */
import type { CalendarStore } from './calendar-store';
import type { Directory } from './directory';
import { eventJson, seriesMasterJson } from './event-json';
import type { GraphRefusal } from './graph-errors';
import { mailboxAccess } from './mailbox-access';
import { parsePrefer } from './prefer-header';
import type { MailboxThrottle } from './throttle';

export interface EventGetRequest {
  userKey: string;
  eventId: string;
  authorization: string | undefined;
  prefer: string[];
  baseUrl: string;
}

export type EventGetAnswer =
  | { status: 200; body: Record<string, unknown>; headers: Record<string, string> }
  | { status: number; refusal: GraphRefusal };

export class EventGet {
  constructor(
    private readonly directory: Directory,
    private readonly store: CalendarStore,
    private readonly throttle: MailboxThrottle,
  ) {}

  answer(request: EventGetRequest): EventGetAnswer {
    const access = mailboxAccess(this.directory, this.throttle, request.authorization, request.userKey);
    if ('refusal' in access) return { status: access.refusal.status, refusal: access.refusal };
    const { zone, applied } = parsePrefer(request.prefer);
    const userId = access.user.id;
    const event = this.store.calendar(userId).events.get(request.eventId);
    let json: Record<string, unknown> | undefined;
    if (event?.weekly !== undefined) json = seriesMasterJson(event, zone);
    else {
      const item = this.store.item(userId, request.eventId);
      json = item === undefined ? undefined : eventJson(item, zone);
    }
    if (json === undefined)
      return {
        status: 404,
        refusal: {
          status: 404,
          code: 'ErrorItemNotFound',
          message: 'The specified object was not found in the store.',
        },
      };
    const zoneApplied = applied.filter((preference) => preference.startsWith('outlook.timezone'));
    return {
      status: 200,
      body: {
        '@odata.context': `${request.baseUrl}/v1.0/$metadata#users('${encodeURIComponent(request.userKey)}')/events/$entity`,
        ...json,
      },
      headers: zoneApplied.length === 0 ? {} : { 'Preference-Applied': zoneApplied.join(', ') },
    };
  }
}
