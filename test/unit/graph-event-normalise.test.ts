/**
 * A Graph calendarView/delta item as the occurrence the rules read: UTC times,
 * the series slot of occurrences and exceptions, attendees' answers as PARTSTAT,
 * the Teams join link first, body as text or HTML; series masters skipped,
 * removals and unreadable items given back as removed ids, and every field an
 * outsider writes bounded.
 */
import { describe, expect, it } from 'vitest';
import {
  MAX_ATTENDEES,
  MAX_TITLE_CHARS,
  normaliseGraphEvent,
} from '../../lambdas/core/calendar/company/microsoft/graph-event';
import { findMeetingLink, MAX_LINK_FIELD_CHARS } from '../../lambdas/core/calendar/meeting-link';

const JOIN =
  'https://teams.microsoft.com/l/meetup-join/19%3ameeting_abc%40thread.v2/0?context=%7b%22Tid%22%3a%22t-1%22%2c%22Oid%22%3a%22o-1%22%7d';

function graphEvent(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    '@odata.type': '#microsoft.graph.event',
    '@odata.etag': 'W/"abc"',
    id: 'AAMkAGevent1=',
    iCalUId: '040000008200E00074C5B7101A82E008000000001',
    type: 'singleInstance',
    subject: 'Design review',
    start: { dateTime: '2027-03-10T10:00:00.0000000', timeZone: 'UTC' },
    end: { dateTime: '2027-03-10T10:30:00.0000000', timeZone: 'UTC' },
    originalStartTimeZone: 'W. Europe Standard Time',
    isAllDay: false,
    isCancelled: false,
    responseStatus: { response: 'organizer', time: '0001-01-01T00:00:00Z' },
    organizer: { emailAddress: { name: 'Ada', address: 'Ada@Contoso.example' } },
    attendees: [
      { type: 'required', status: { response: 'accepted' }, emailAddress: { address: 'bob@contoso.example' } },
      { type: 'required', status: { response: 'declined' }, emailAddress: { address: 'cy@contoso.example' } },
      {
        type: 'optional',
        status: { response: 'tentativelyAccepted' },
        emailAddress: { address: 'di@contoso.example' },
      },
      { type: 'required', status: { response: 'none' }, emailAddress: { address: 'ed@contoso.example' } },
      { type: 'required', status: { response: 'notResponded' }, emailAddress: { address: 'fy@contoso.example' } },
      { type: 'required', status: { response: 'organizer' }, emailAddress: { address: 'ada@contoso.example' } },
    ],
    onlineMeeting: { joinUrl: JOIN },
    location: { displayName: 'Room 4' },
    locations: [{ displayName: 'Room 4' }, { displayName: 'Teams', locationUri: 'https://example.com/room' }],
    body: { contentType: 'html', content: '<p>Agenda</p>' },
    someFieldGraphAddsLater: { nested: true },
    ...extra,
  };
}

function itemOf(json: unknown, mailbox?: string) {
  const entry = normaliseGraphEvent(json, mailbox);
  if (entry?.kind !== 'item') throw new Error(`expected an item, got ${JSON.stringify(entry)}`);
  return entry.item;
}

describe('normaliseGraphEvent', () => {
  it('reads a single event: UTC times, title, organizer, answers as PARTSTAT, links in order', () => {
    const item = itemOf(graphEvent());
    expect(item).toEqual({
      id: 'AAMkAGevent1=',
      occurrence: {
        uid: '040000008200E00074C5B7101A82E008000000001',
        originalStart: undefined,
        start: '2027-03-10T10:00:00.000Z',
        end: '2027-03-10T10:30:00.000Z',
        timeZone: undefined,
        title: 'Design review',
        allDay: false,
        cancelled: false,
        organizer: 'ada@contoso.example',
        attendees: [
          { email: 'bob@contoso.example', partstat: 'ACCEPTED' },
          { email: 'cy@contoso.example', partstat: 'DECLINED' },
          { email: 'di@contoso.example', partstat: 'TENTATIVE' },
          { email: 'ed@contoso.example', partstat: 'NEEDS-ACTION' },
          { email: 'fy@contoso.example', partstat: 'NEEDS-ACTION' },
          { email: 'ada@contoso.example', partstat: 'ACCEPTED' },
        ],
        links: {
          conference: [JOIN],
          url: undefined,
          location: 'Room 4\nTeams\nhttps://example.com/room',
          description: undefined,
          descriptionHtml: '<p>Agenda</p>',
        },
      },
    });
    expect(findMeetingLink(item.occurrence.links)).toMatchObject({ found: true, source: 'conference', kind: 'teams' });
  });

  it('keeps a text body as the description, and an IANA zone when Graph names one', () => {
    const item = itemOf(
      graphEvent({ body: { contentType: 'text', content: 'join at x' }, originalStartTimeZone: 'Europe/Berlin' }),
    );
    expect(item.occurrence.links.description).toBe('join at x');
    expect(item.occurrence.links.descriptionHtml).toBeUndefined();
    expect(item.occurrence.timeZone).toBe('Europe/Berlin');
  });

  it('gives an occurrence and an exception their series slot from originalStart, in UTC', () => {
    const occurrence = itemOf(
      graphEvent({ type: 'occurrence', seriesMasterId: 'm', originalStart: '2027-03-22T08:00:00Z' }),
    );
    expect(occurrence.occurrence.originalStart).toBe('2027-03-22T08:00:00.000Z');
    const exception = itemOf(
      graphEvent({
        type: 'exception',
        originalStart: '2027-03-29T09:00:00+02:00',
        start: { dateTime: '2027-03-29T08:00:00.0000000', timeZone: 'UTC' },
        end: { dateTime: '2027-03-29T08:30:00.0000000', timeZone: 'UTC' },
      }),
    );
    expect(exception.occurrence.originalStart).toBe('2027-03-29T07:00:00.000Z');
    expect(exception.occurrence.start).toBe('2027-03-29T08:00:00.000Z');
  });

  it('marks a cancelled meeting and an all-day event', () => {
    const item = itemOf(
      graphEvent({
        isCancelled: true,
        isAllDay: true,
        start: { dateTime: '2027-03-10T00:00:00.0000000', timeZone: 'UTC' },
        end: { dateTime: '2027-03-11T00:00:00.0000000', timeZone: 'UTC' },
      }),
    );
    expect(item.occurrence).toMatchObject({ cancelled: true, allDay: true, end: '2027-03-11T00:00:00.000Z' });
  });

  it("puts the mailbox owner's own answer (responseStatus) on their attendee entry, or adds it", () => {
    const declinedCopy = graphEvent({ responseStatus: { response: 'declined' } });
    expect(itemOf(declinedCopy, 'bob@contoso.example').occurrence.attendees[0]).toEqual({
      email: 'bob@contoso.example',
      partstat: 'DECLINED',
    });
    const notListed = itemOf(declinedCopy, 'gus@contoso.example').occurrence.attendees;
    expect(notListed.at(-1)).toEqual({ email: 'gus@contoso.example', partstat: 'DECLINED' });
    expect(itemOf(graphEvent(), 'gus@contoso.example').occurrence.attendees).toHaveLength(6);
  });

  it('skips a series master', () => {
    expect(normaliseGraphEvent(graphEvent({ type: 'seriesMaster' }))).toEqual({ kind: 'skipped' });
  });

  it('reads @removed as a removal of that id', () => {
    expect(normaliseGraphEvent({ '@removed': { reason: 'deleted' }, id: 'AAMkAGgone=' })).toEqual({
      kind: 'removed',
      id: 'AAMkAGgone=',
    });
  });

  it('gives an item without readable UTC times back as removed, and drops one without an id', () => {
    expect(normaliseGraphEvent(graphEvent({ start: undefined }))).toEqual({ kind: 'removed', id: 'AAMkAGevent1=' });
    const zoned = graphEvent({ start: { dateTime: '2027-03-10T10:00:00.0000000', timeZone: 'Pacific Standard Time' } });
    expect(normaliseGraphEvent(zoned)).toEqual({ kind: 'removed', id: 'AAMkAGevent1=' });
    expect(normaliseGraphEvent(graphEvent({ start: { dateTime: 'soon', timeZone: 'UTC' } }))).toMatchObject({
      kind: 'removed',
    });
    expect(normaliseGraphEvent({ subject: 'no id' })).toBeUndefined();
    expect(normaliseGraphEvent('not an object')).toBeUndefined();
  });

  it('reads an item whose optional fields have unexpected types, ignoring those fields', () => {
    const item = itemOf(
      graphEvent({ attendees: 'everyone', organizer: 7, onlineMeeting: [], body: null, subject: null, iCalUId: 5 }),
    );
    expect(item.occurrence).toMatchObject({
      uid: 'AAMkAGevent1=',
      title: '',
      organizer: undefined,
      attendees: [],
      links: { conference: [], description: undefined, descriptionHtml: undefined },
    });
  });

  it('bounds what an outsider writes: attendees, title, body, locations', () => {
    const attendees = Array.from({ length: MAX_ATTENDEES + 100 }, (_, n) => ({
      status: { response: 'none' },
      emailAddress: { address: `p${n}@example.com` },
    }));
    const item = itemOf(
      graphEvent({
        attendees,
        subject: 'x'.repeat(MAX_TITLE_CHARS * 5),
        body: { contentType: 'html', content: 'y'.repeat(MAX_LINK_FIELD_CHARS * 3) },
        locations: Array.from({ length: 1_000 }, (_, n) => ({ displayName: `room ${n}` })),
      }),
    );
    expect(item.occurrence.attendees).toHaveLength(MAX_ATTENDEES);
    expect(item.occurrence.title).toHaveLength(MAX_TITLE_CHARS);
    expect(item.occurrence.links.descriptionHtml).toHaveLength(MAX_LINK_FIELD_CHARS);
    expect(item.occurrence.links.location!.split('\n').length).toBeLessThanOrEqual(21);
  });

  it('refuses an id longer than any Graph id', () => {
    expect(normaliseGraphEvent(graphEvent({ id: 'A'.repeat(10_000) }))).toBeUndefined();
  });
  it('names the mailbox as the source gives it (an object id, a UPN other than the mail) as organizer of its own meeting and in its own answer', () => {
    const guid = '7c1e7f52-8a1b-4c8e-9c1d-2f3a4b5c6d7e';
    expect(itemOf(graphEvent({ isOrganizer: true }), guid).occurrence.organizer).toBe(guid);
    const invited = itemOf(
      graphEvent({ isOrganizer: false, responseStatus: { response: 'accepted' } }),
      'ada@contoso.onmicrosoft.example',
    ).occurrence;
    expect(invited.organizer).toBe('ada@contoso.example');
    expect(invited.attendees).toContainEqual({ email: 'ada@contoso.onmicrosoft.example', partstat: 'ACCEPTED' });
  });
});
