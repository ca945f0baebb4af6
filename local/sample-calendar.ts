/**
 * `npm run dev -- --calendar sample`: an ICS feed dated from today, so the calendar demo always has meetings
 * in its window. Each event shows one decision: meetings with links the rules join, one the rules leave out
 * (its title), one without a meeting link, and one past the 14-day window.
 */

/** The rules the sample is registered with: join every meeting with a link, except titles marked "[no bot]". */
export const SAMPLE_RULES = { join: 'all', title_exclude: ['[no bot]'] } as const;

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** 20261125T100000Z, as ICS writes a UTC time. */
const icsTime = (ms: number) =>
  new Date(ms)
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');

interface SampleEvent {
  title: string;
  /** Days from today, and the UTC hour of the day. */
  day: number;
  hour: number;
  link?: string;
}

export const SAMPLE_EVENTS: readonly SampleEvent[] = [
  { title: 'Design review', day: 1, hour: 10, link: 'https://meet.google.com/dsg-revw-abc' },
  { title: 'Customer call', day: 2, hour: 15, link: 'https://acme.zoom.us/j/85512345678' },
  { title: 'Sprint planning', day: 3, hour: 9, link: 'https://meet.google.com/spr-plan-xyz' },
  { title: 'Dentist [no bot]', day: 2, hour: 8, link: 'https://meet.google.com/pri-vate-apt' },
  { title: 'Lunch with Bo', day: 1, hour: 12 },
  { title: 'Quarterly planning', day: 30, hour: 14, link: 'https://meet.google.com/qtr-plan-nng' },
];

/** The feed's text for `now`: each event on its day from today (UTC midnight), 45 minutes long. */
export function sampleCalendarFeed(now: number): string {
  const today = Math.floor(now / DAY_MS) * DAY_MS;
  const events = SAMPLE_EVENTS.map((event, i) => {
    const start = today + event.day * DAY_MS + event.hour * HOUR_MS;
    return [
      'BEGIN:VEVENT',
      `UID:sample-${i + 1}@meeting-pipeline.local`,
      `DTSTAMP:${icsTime(now)}`,
      `DTSTART:${icsTime(start)}`,
      `DTEND:${icsTime(start + 45 * 60_000)}`,
      `SUMMARY:${event.title}`,
      'ORGANIZER:mailto:ada@acme.example',
      'ATTENDEE;PARTSTAT=ACCEPTED:mailto:ada@acme.example',
      'ATTENDEE;PARTSTAT=NEEDS-ACTION:mailto:bo@acme.example',
      ...(event.link === undefined ? [] : [`LOCATION:${event.link}`]),
      'END:VEVENT',
    ];
  });
  return [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//meeting-pipeline//sample calendar//EN',
    ...events.flat(),
    'END:VCALENDAR',
    '',
  ].join('\r\n');
}
