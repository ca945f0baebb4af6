/**
 * A Calendar API event resource read as the occurrence the rules see: each field
 * the provider maps, the removals Google sends as bare ids, and hostile sizes cut
 * to their bounds.
 */
import { describe, expect, it } from 'vitest';
import {
  boundedKey,
  GOOGLE_EVENT_LIMITS,
  readGoogleEvent,
} from '../../lambdas/core/calendar/company/google/google-event';
import type { ProviderItem } from '../../lambdas/core/calendar/company/provider-contract';
import { findMeetingLink } from '../../lambdas/core/calendar/meeting-link';

const OWNER = 'ada@acme.example';

const timed = {
  kind: 'calendar#event',
  id: 'evt1',
  status: 'confirmed',
  iCalUID: 'evt1@google.com',
  summary: 'Design review',
  start: { dateTime: '2026-03-30T09:00:00+02:00', timeZone: 'Europe/Berlin' },
  end: { dateTime: '2026-03-30T09:30:00+02:00', timeZone: 'Europe/Berlin' },
  organizer: { email: 'Bob@Acme.example' },
  attendees: [
    { email: 'bob@acme.example', responseStatus: 'accepted' },
    { email: 'ada@acme.example', responseStatus: 'declined', self: true },
    { email: 'cy@acme.example', responseStatus: 'tentative' },
    { email: 'dee@acme.example', responseStatus: 'needsAction' },
  ],
};

function item(resource: unknown, owner = OWNER): ProviderItem {
  const read = readGoogleEvent(resource, owner);
  if (read.kind !== 'item') throw new Error(`expected an item, read ${JSON.stringify(read)}`);
  return read.item;
}

describe('readGoogleEvent', () => {
  it('maps a timed event: uid from iCalUID, UTC start and end, zone, title, organizer, attendees with PARTSTAT', () => {
    const { id, occurrence } = item(timed);
    expect(id).toBe('evt1');
    expect(occurrence).toMatchObject({
      uid: 'evt1@google.com',
      originalStart: undefined,
      start: '2026-03-30T07:00:00.000Z',
      end: '2026-03-30T07:30:00.000Z',
      timeZone: 'Europe/Berlin',
      title: 'Design review',
      allDay: false,
      cancelled: false,
      organizer: 'bob@acme.example',
    });
    // The owner's own answer first, then the others in Google's order.
    expect(occurrence.attendees).toEqual([
      { email: 'ada@acme.example', partstat: 'DECLINED' },
      { email: 'bob@acme.example', partstat: 'ACCEPTED' },
      { email: 'cy@acme.example', partstat: 'TENTATIVE' },
      { email: 'dee@acme.example', partstat: 'NEEDS-ACTION' },
    ]);
  });

  it('falls back to the id when there is no iCalUID', () => {
    const { iCalUID: _, ...withoutUid } = timed;
    expect(item(withoutUid).occurrence.uid).toBe('evt1');
  });

  it('reads an all-day event from its dates', () => {
    const { occurrence } = item({ ...timed, start: { date: '2026-04-01' }, end: { date: '2026-04-02' } });
    expect(occurrence).toMatchObject({
      allDay: true,
      start: '2026-04-01T00:00:00.000Z',
      end: '2026-04-02T00:00:00.000Z',
    });
  });

  it("keeps an instance's original start (dateTime or date) only for an instance of a series", () => {
    const instance = {
      ...timed,
      id: 'series_20260330T070000Z',
      recurringEventId: 'series',
      originalStartTime: { dateTime: '2026-03-30T09:00:00+02:00', timeZone: 'Europe/Berlin' },
      start: { dateTime: '2026-03-30T11:00:00+02:00' },
      end: { dateTime: '2026-03-30T11:30:00+02:00' },
    };
    expect(item(instance).occurrence).toMatchObject({
      originalStart: '2026-03-30T07:00:00.000Z',
      start: '2026-03-30T09:00:00.000Z',
    });
    const allDay = { ...instance, originalStartTime: { date: '2026-03-30' }, start: { date: '2026-03-31' } };
    expect(item(allDay).occurrence.originalStart).toBe('2026-03-30T00:00:00.000Z');
    const { recurringEventId: _, ...oneOff } = instance;
    expect(item(oneOff).occurrence.originalStart).toBeUndefined();
  });

  it('reads a cancelled event that still has its times as a cancelled item', () => {
    expect(item({ ...timed, status: 'cancelled' }).occurrence.cancelled).toBe(true);
  });

  it('reads a cancelled event with only its id and status (as incremental lists send it) as removed', () => {
    expect(readGoogleEvent({ kind: 'calendar#event', id: 'gone', status: 'cancelled' }, OWNER)).toEqual({
      kind: 'removed',
      id: 'gone',
    });
    const instance = {
      id: 'series_20260330T070000Z',
      status: 'cancelled',
      recurringEventId: 'series',
      originalStartTime: { dateTime: '2026-03-30T09:00:00+02:00' },
    };
    expect(readGoogleEvent(instance, OWNER)).toEqual({ kind: 'removed', id: 'series_20260330T070000Z' });
  });

  it('refuses a resource without an id or a confirmed one without a start, as unreadable', () => {
    expect(readGoogleEvent({ summary: 'x' }, OWNER).kind).toBe('unreadable');
    expect(readGoogleEvent('not an object', OWNER).kind).toBe('unreadable');
    expect(readGoogleEvent({ id: 'x', start: { dateTime: 'soon' } }, OWNER).kind).toBe('unreadable');
  });

  it('reads a field of the wrong type as absent, not the event as unreadable', () => {
    const { occurrence } = item({ ...timed, summary: 42, attendees: 'everyone', organizer: [] });
    expect(occurrence).toMatchObject({ title: '', attendees: [], organizer: undefined });
  });

  it('takes video entry points and hangoutLink as conference links, ahead of location and description', () => {
    const { occurrence } = item({
      ...timed,
      conferenceData: {
        entryPoints: [
          { entryPointType: 'phone', uri: 'tel:+1-555-0100' },
          { entryPointType: 'video', uri: 'https://meet.google.com/abc-defg-hij' },
        ],
      },
      hangoutLink: 'https://meet.google.com/abc-defg-hij',
      location: 'https://zoom.us/j/123456789',
      description: 'Join https://teams.microsoft.com/l/meetup-join/x',
    });
    expect(occurrence.links).toEqual({
      conference: ['https://meet.google.com/abc-defg-hij', 'https://meet.google.com/abc-defg-hij'],
      url: undefined,
      location: 'https://zoom.us/j/123456789',
      description: 'Join https://teams.microsoft.com/l/meetup-join/x',
      descriptionHtml: undefined,
    });
    expect(findMeetingLink(occurrence.links)).toMatchObject({ found: true, source: 'conference', kind: 'google-meet' });
  });

  it('reads a description with tags as the HTML form, whose anchor the link search finds', () => {
    const description = 'Agenda<br><a href="https://zoom.us/j/987654321">Join Zoom</a>';
    const { occurrence } = item({ ...timed, description });
    expect(occurrence.links).toMatchObject({ description: undefined, descriptionHtml: description });
    expect(findMeetingLink(occurrence.links)).toMatchObject({ found: true, source: 'description', kind: 'zoom' });
  });
});

describe('hostile sizes', () => {
  it('cuts a huge title, location and description to their bounds', () => {
    const huge = 'x'.repeat(1_000_000);
    const { occurrence } = item({ ...timed, summary: huge, location: huge, description: huge });
    expect(occurrence.title).toHaveLength(GOOGLE_EVENT_LIMITS.titleChars);
    expect(occurrence.links.location).toHaveLength(GOOGLE_EVENT_LIMITS.linkFieldChars);
    expect(occurrence.links.description).toHaveLength(GOOGLE_EVENT_LIMITS.linkFieldChars);
  });

  it("keeps at most the attendee bound, the owner's own entry included even when listed last", () => {
    const attendees = Array.from({ length: 50_000 }, (_, i) => ({ email: `guest${i}@else.example` }));
    attendees.push({ email: OWNER, responseStatus: 'declined' } as never);
    const { occurrence } = item({ ...timed, attendees });
    expect(occurrence.attendees).toHaveLength(GOOGLE_EVENT_LIMITS.attendees);
    expect(occurrence.attendees[0]).toEqual({ email: OWNER, partstat: 'DECLINED' });
  });

  it('reads at most the bound of video entry points and drops addresses no mailbox has', () => {
    const entryPoints = Array.from({ length: 1_000 }, (_, i) => ({
      entryPointType: 'video',
      uri: `https://meet.google.com/a${i}`,
    }));
    const { occurrence } = item({
      ...timed,
      conferenceData: { entryPoints },
      organizer: { email: `${'o'.repeat(400)}@acme.example` },
    });
    expect(occurrence.links.conference).toHaveLength(GOOGLE_EVENT_LIMITS.conferenceLinks);
    expect(occurrence.organizer).toBeUndefined();
  });

  it('replaces an id or iCalUID past the key bound by its digest, the same for the same value', () => {
    const long = 'u'.repeat(100_000);
    const { id, occurrence } = item({ ...timed, id: long, iCalUID: long });
    expect(id).toBe(boundedKey(long));
    expect(occurrence.uid).toBe(id);
    expect(id.length).toBeLessThanOrEqual(GOOGLE_EVENT_LIMITS.keyChars);
    expect(readGoogleEvent({ id: long, status: 'cancelled' }, OWNER)).toEqual({ kind: 'removed', id });
  });
  it("names the calendar's own user as the source gives it (an alias of theirs) as organizer and in its own answer", () => {
    const alias = 'ada.lovelace@acme.example';
    const own = item({ ...timed, organizer: { email: 'ada@acme.example', self: true } }, alias).occurrence;
    expect(own.organizer).toBe(alias);
    expect(own.attendees[0]).toEqual({ email: alias, partstat: 'DECLINED' });
  });
});
