/**
 * Windows time-zone names (what Outlook stores on an event and what the
 * `Prefer: outlook.timezone` header names) and the conversion between a wall
 * time in such a zone and an instant. The zone rules come from the runtime's
 * IANA database through Intl; only the name mapping is ours.
 */
const WINDOWS_TO_IANA: Record<string, string> = {
  UTC: 'UTC',
  'W. Europe Standard Time': 'Europe/Berlin',
  'GMT Standard Time': 'Europe/London',
  'Eastern Standard Time': 'America/New_York',
  'Pacific Standard Time': 'America/Los_Angeles',
};

export function isKnownZone(windowsName: string): boolean {
  return windowsName in WINDOWS_TO_IANA;
}

function ianaOf(windowsName: string): string {
  const iana = WINDOWS_TO_IANA[windowsName];
  if (iana === undefined) throw new Error(`unknown Windows time zone ${JSON.stringify(windowsName)}`);
  return iana;
}

/** One formatter per zone: making one costs far more than using it, and a large calendar converts thousands of times. */
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(iana: string): Intl.DateTimeFormat {
  let formatter = formatters.get(iana);
  if (formatter === undefined) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone: iana,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(iana, formatter);
  }
  return formatter;
}

/** The zone's offset from UTC at an instant, in milliseconds. */
function offsetAt(iana: string, instant: number): number {
  if (iana === 'UTC') return 0;
  const parts = formatterFor(iana).formatToParts(new Date(instant));
  const get = (type: string) => Number(parts.find((part) => part.type === type)!.value);
  const asUtc = Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second'));
  return asUtc - Math.floor(instant / 1000) * 1000;
}

/** `YYYY-MM-DDTHH:mm:ss` read as a wall time in the zone, to an instant (ms). */
export function wallToInstant(wall: string, windowsName: string): number {
  const iana = ianaOf(windowsName);
  const naive = Date.parse(`${wall.slice(0, 19)}Z`);
  const first = naive - offsetAt(iana, naive);
  // Around a DST change the offset at the first guess may differ from the one at the answer.
  return naive - offsetAt(iana, first);
}

/** An instant as Graph writes a dateTime in a zone: wall time with seven fraction digits, no offset. */
export function instantToWall(instant: number, windowsName: string): string {
  const shifted = instant + offsetAt(ianaOf(windowsName), instant);
  return `${new Date(shifted).toISOString().slice(0, 19)}.0000000`;
}
