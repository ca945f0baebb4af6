/**
 * The per-event caps on a provider's instances count by series where the provider names
 * one apart from the uid: Graph gives every occurrence an iCalUId of its own, so a
 * stranger's series every two hours would otherwise read as many one-off meetings.
 */
import { describe, expect, it } from 'vitest';
import { capListing } from '../../lambdas/core/calendar/company/listing-caps';
import type { Occurrence } from '../../lambdas/core/calendar/ics-occurrences';

const HOUR = 3_600_000;
const FROM = Date.parse('2027-03-01T00:00:00Z');

function instance(i: number, series: string | undefined): Occurrence {
  const start = new Date(FROM + i * 2 * HOUR).toISOString();
  return {
    uid: `occurrence-${i}`,
    ...(series !== undefined && { series }),
    originalStart: start,
    start,
    end: start,
    timeZone: undefined,
    title: 'hourly pitch',
    allDay: false,
    cancelled: false,
    organizer: 'stranger@elsewhere.example',
    attendees: [],
    links: { conference: [], url: undefined, location: undefined, description: undefined, descriptionHtml: undefined },
  };
}

describe('capListing by series', () => {
  it("refuses a stranger's series every two hours when its occurrences carry uids of their own", () => {
    const capped = capListing(
      Array.from({ length: 24 }, (_, i) => instance(i, 'AAMkSeriesMaster=')),
      new Set(['ada@acme.example']),
    );
    expect(capped.occurrences).toEqual([]);
    expect(capped.limits.map((hit) => hit.limit)).toEqual(['sub-daily-recurrence']);
  });

  it('reads the same instances as one-off meetings when no series is named (as before)', () => {
    const capped = capListing(
      Array.from({ length: 24 }, (_, i) => instance(i, undefined)),
      new Set(['ada@acme.example']),
    );
    expect(capped.occurrences).toHaveLength(24);
  });
});
