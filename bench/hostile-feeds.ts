/**
 * Calendar feeds built to be as costly as a feed of `bytes` can be: each fills
 * the feed size limit with what costs the parser or the expansion most.
 */
export const HOSTILE_OWNER = 'owner@victim.example';

const WINDOW_START = '20270301T090000Z';

/** Repeats `event(i)` inside one VCALENDAR until the next one would pass `bytes`. */
function filled(bytes: number, event: (i: number) => string): string {
  const parts = ['BEGIN:VCALENDAR\r\nVERSION:2.0\r\n'];
  let length = parts[0]?.length ?? 0;
  const close = 'END:VCALENDAR\r\n';
  for (let i = 0; ; i++) {
    const part = event(i);
    if (length + part.length + close.length > bytes) break;
    parts.push(part);
    length += part.length;
  }
  parts.push(close);
  return parts.join('');
}

/** A distinct instant in the window for each i: one a second from its start. */
const secondOf = (i: number) => {
  const at = new Date(Date.parse('2027-03-01T09:00:00Z') + i * 1000).toISOString();
  return `${at.slice(0, 19).replace(/[-:]/g, '')}Z`;
};

/** One event whose body is `line(i)` repeated until the feed is `bytes` long. */
function oneEvent(bytes: number, head: string, line: (i: number) => string): string {
  const lines: string[] = [];
  let length = 200;
  for (let i = 0; ; i++) {
    const next = line(i);
    if (length + next.length > bytes) break;
    lines.push(next);
    length += next.length;
  }
  return `BEGIN:VCALENDAR\r\nVERSION:2.0\r\n${vevent(0, `${head}${lines.join('')}`)}END:VCALENDAR\r\n`;
}

const vevent = (i: number, lines: string) =>
  `BEGIN:VEVENT\r\nUID:h${i}\r\nDTSTART:${WINDOW_START}\r\nORGANIZER:mailto:${HOSTILE_OWNER}\r\n${lines}END:VEVENT\r\n`;

const everySecond = `BYSECOND=${Array.from({ length: 60 }, (_, i) => i).join(',')}`;
const everyMinute = `BYMINUTE=${Array.from({ length: 60 }, (_, i) => i).join(',')}`;
const everyHour = `BYHOUR=${Array.from({ length: 24 }, (_, i) => i).join(',')}`;

/** Each hostile feed by name, built when called; every event claims the calendar's owner as organizer (an attacker can write that). */
export function hostileFeeds(bytes: number): Record<string, () => string> {
  return {
    'small one-off events': () => filled(bytes, (i) => vevent(i, 'SUMMARY:x\r\n')),
    'every minute, organized by the owner': () => filled(bytes, (i) => vevent(i, 'RRULE:FREQ=MINUTELY\r\n')),
    'every second in a month that never comes': () =>
      filled(bytes, (i) => vevent(i, `RRULE:FREQ=YEARLY;BYMONTH=2;${everyHour};${everyMinute};${everySecond}\r\n`)),
    'a rule that never matches': () => filled(bytes, (i) => vevent(i, 'RRULE:FREQ=DAILY;BYSETPOS=2\r\n')),
    'one event made of RDATEs': () => oneEvent(bytes, 'RRULE:FREQ=DAILY\r\n', (i) => `RDATE:${secondOf(i)}\r\n`),
    'one event made of EXDATEs': () => oneEvent(bytes, 'RRULE:FREQ=DAILY\r\n', (i) => `EXDATE:${secondOf(i)}\r\n`),
    'one event made of attendees': () =>
      oneEvent(bytes, 'SUMMARY:x\r\n', (i) => `ATTENDEE;PARTSTAT=ACCEPTED:mailto:a${i}@x.example\r\n`),
    'every event an override of one series': () =>
      filled(bytes, (i) =>
        `BEGIN:VEVENT\r\nUID:series\r\nRECURRENCE-ID:${secondOf(i)}\r\nDTSTART:${secondOf(i)}\r\nEND:VEVENT\r\n`.replace(
          'BEGIN:VEVENT\r\nUID:series',
          i === 0
            ? `BEGIN:VEVENT\r\nUID:series\r\nRRULE:FREQ=DAILY\r\nORGANIZER:mailto:${HOSTILE_OWNER}`
            : 'BEGIN:VEVENT\r\nUID:series',
        ),
      ),
  };
}
