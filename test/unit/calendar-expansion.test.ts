/**
 * The expansion (node-ical with rrule-temporal, plus our RDATE handling) checked
 * against a second, independent implementation, ical.js, over a year of
 * occurrences of every fixture, with each series left open-ended so a year is full.
 */
import ICAL from 'ical.js';
import { describe, expect, it } from 'vitest';
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
