/**
 * The expansion (node-ical with rrule-temporal, plus our RDATE handling) checked
 * against a second, independent implementation, ical.js, over a year of
 * occurrences of every fixture, with each series left open-ended so a year is full.
 */
import ICAL from 'ical.js';
import { describe, expect, it } from 'vitest';
import { EXPANSION_LIMITS } from '../../lambdas/core/calendar/calendar-limits';
import { expandFeed } from '../../lambdas/core/calendar/ics-occurrences';
import { fixtureFeed } from '../fixtures/calendar-harness';

const FROM = new Date('2027-03-01T00:00:00Z');
const TO = new Date('2028-03-01T00:00:00Z');

/** Every timed occurrence per ical.js, as `uid start`, the feed's own VTIMEZONEs registered. */
function icalJsOccurrences(feed: string): string[] {
  const calendar = new ICAL.Component(ICAL.parse(feed));
  for (const zone of calendar.getAllSubcomponents('vtimezone')) ICAL.TimezoneService.register(zone);
  const events = calendar.getAllSubcomponents('vevent').map((component) => new ICAL.Event(component));
  const masters = events.filter((event) => !event.isRecurrenceException());
  const found: string[] = [];
  for (const master of masters) {
    for (const exception of events.filter((e) => e.isRecurrenceException() && e.uid === master.uid))
      master.relateException(exception);
    if (master.startDate.isDate) continue; // all-day: skipped by the sync as well
    if (!master.isRecurring()) {
      const start = master.startDate.toJSDate();
      if (start >= FROM && start <= TO) found.push(`${master.uid} ${start.toISOString()}`);
      continue;
    }
    const iterator = master.iterator();
    for (let next = iterator.next(); next !== null && next !== undefined; next = iterator.next()) {
      const details = master.getOccurrenceDetails(next);
      const start = details.startDate.toJSDate();
      if (details.recurrenceId.toJSDate() > TO && start > TO) break;
      if (start >= FROM && start <= TO) found.push(`${master.uid} ${start.toISOString()}`);
    }
  }
  return found.sort();
}

const openEnded = (feed: string) => feed.replace(/;(UNTIL|COUNT)=[^;\r\n]+/g, '');

describe('recurrence expansion agrees with ical.js', () => {
  for (const name of ['outlook', 'google', 'google-attendee']) {
    it(`over a year of ${name}.ics`, () => {
      const feed = openEnded(fixtureFeed(name));
      const ours = expandFeed(feed, FROM, TO)
        .occurrences.filter((o) => !o.allDay)
        .map((o) => `${o.uid} ${o.start}`)
        .sort();
      const theirs = icalJsOccurrences(feed);
      expect(ours.length).toBeGreaterThan(name === 'google-attendee' ? 0 : 50);
      expect(ours).toEqual(theirs);
    });
  }
});

describe('expansion within limits', () => {
  const event = (uid: string, lines: string[]) =>
    ['BEGIN:VEVENT', `UID:${uid}`, 'DTSTART:20270302T090000Z', 'DURATION:PT30M', ...lines, 'END:VEVENT'].join('\r\n');
  const feed = (events: string[]) => `BEGIN:VCALENDAR\r\nVERSION:2.0\r\n${events.join('\r\n')}\r\nEND:VCALENDAR\r\n`;
  const owner = 'owner@acme.example';

  it('stops an hourly series of the owner at the per-event limit, and shares one set of fields per event', () => {
    const expanded = expandFeed(
      feed([
        event('hourly', [
          'RRULE:FREQ=HOURLY',
          `ORGANIZER:mailto:${owner}`,
          'LOCATION:https://meet.google.com/abc-defg-hij',
        ]),
      ]),
      FROM,
      TO,
      { ownerEmails: [owner] },
    );
    expect(expanded.occurrences).toHaveLength(EXPANSION_LIMITS.occurrencesPerEvent);
    expect(expanded.occurrences.at(-1)?.start).toBe('2027-03-10T16:00:00.000Z');
    expect(expanded.partial.uids).toEqual(new Set(['hourly']));
    expect(expanded.limits).toEqual([expect.objectContaining({ limit: 'occurrences-per-event', uid: 'hourly' })]);
    // The link of a series is looked for once: every occurrence holds the same fields.
    expect(expanded.occurrences[0]?.links).toBe(expanded.occurrences[199]?.links);
  });

  it("reads no sub-daily series but the owner's, and no rule more often than hourly", () => {
    const expanded = expandFeed(
      feed([
        event('stranger', ['RRULE:FREQ=HOURLY;INTERVAL=2', 'ORGANIZER:mailto:x@evil.example']),
        event('minutely', ['RRULE:FREQ=MINUTELY;INTERVAL=3', `ORGANIZER:mailto:${owner}`]),
        event('twice-daily', ['RRULE:FREQ=DAILY;BYHOUR=9,17', `ORGANIZER:mailto:${owner}`]),
        event('daily', ['RRULE:FREQ=DAILY;COUNT=3', 'ORGANIZER:mailto:x@evil.example']),
      ]),
      FROM,
      TO,
      { ownerEmails: [owner] },
    );
    const count = (uid: string) => expanded.occurrences.filter((o) => o.uid === uid).length;
    expect([count('stranger'), count('minutely'), count('twice-daily'), count('daily')]).toEqual([0, 0, 200, 3]);
    expect(expanded.limits.map((l) => `${l.limit} ${l.uid}`)).toEqual([
      'sub-daily-recurrence stranger',
      'recurrence-rule minutely',
      'occurrences-per-event twice-daily',
    ]);
  });

  it('reads at most the events and occurrences a feed may hold, and passes over past events unread', () => {
    const past = Array.from({ length: 3_000 }, (_, i) => event(`past-${i}`, []).replace('20270302', '20200302'));
    const current = Array.from({ length: EXPANSION_LIMITS.eventsPerFeed + 10 }, (_, i) => event(`now-${i}`, []));
    const expanded = expandFeed(feed([...past, ...current]), FROM, TO);
    expect(expanded.occurrences).toHaveLength(EXPANSION_LIMITS.eventsPerFeed);
    expect(expanded.partial.feed).toBe(true);
    expect(expanded.limits).toEqual([expect.objectContaining({ limit: 'events-per-feed' })]);
  });
});
