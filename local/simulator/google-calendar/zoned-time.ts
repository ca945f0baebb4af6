/**
 * Wall-clock times in an IANA zone <-> UTC instants, through the runtime's own
 * time-zone database (Intl), so a weekly 10:00 Europe/Berlin meeting lands at 09:00Z
 * in winter and 08:00Z in summer, as Google expands it.
 */
const offsetFormatters = new Map<string, Intl.DateTimeFormat>();

/**
 * Offsets by zone and quarter hour: zones change offset only on a quarter hour, and
 * formatToParts is slow enough that a listing of a 10,000-event calendar spent most
 * of its time in it. Cleared when full, so it stays small.
 */
const QUARTER_HOUR_MS = 15 * 60_000;
const offsetCache = new Map<string, number>();
const OFFSET_CACHE_SIZE = 50_000;

/** Minutes east of UTC that `timeZone` observes at `utcMs`. */
export function zoneOffsetMinutes(utcMs: number, timeZone: string): number {
  const key = `${timeZone}|${Math.floor(utcMs / QUARTER_HOUR_MS)}`;
  const cached = offsetCache.get(key);
  if (cached !== undefined) return cached;
  const offset = formattedOffsetMinutes(utcMs, timeZone);
  if (offsetCache.size >= OFFSET_CACHE_SIZE) offsetCache.clear();
  offsetCache.set(key, offset);
  return offset;
}

function formattedOffsetMinutes(utcMs: number, timeZone: string): number {
  let formatter = offsetFormatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', { timeZone, timeZoneName: 'longOffset' });
    offsetFormatters.set(timeZone, formatter);
  }
  const name = formatter.formatToParts(utcMs).find((part) => part.type === 'timeZoneName')?.value ?? 'GMT';
  const match = /^GMT([+-])(\d{2}):(\d{2})$/.exec(name);
  if (!match) return 0;
  const minutes = Number(match[2]) * 60 + Number(match[3]);
  return match[1] === '-' ? -minutes : minutes;
}

/** The instant at which the wall clock in `timeZone` reads `local` (`YYYY-MM-DDTHH:mm:ss`). */
export function zonedToUtc(local: string, timeZone: string): number {
  const asIfUtc = Date.parse(`${local}Z`);
  if (Number.isNaN(asIfUtc)) throw new Error(`not a local date-time: ${local}`);
  const firstGuess = asIfUtc - zoneOffsetMinutes(asIfUtc, timeZone) * 60_000;
  // Near a transition the offset at the first guess can differ from the one in force at the answer.
  return asIfUtc - zoneOffsetMinutes(firstGuess, timeZone) * 60_000;
}

/** RFC 3339 with the zone's offset at that instant, e.g. `2026-03-30T10:00:00+02:00`. */
export function formatZoned(utcMs: number, timeZone: string): string {
  const offset = zoneOffsetMinutes(utcMs, timeZone);
  const wall = new Date(utcMs + offset * 60_000).toISOString().slice(0, 19);
  if (offset === 0) return `${wall}Z`;
  const sign = offset < 0 ? '-' : '+';
  const abs = Math.abs(offset);
  return `${wall}${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}

/** `local` moved by whole days on the wall clock (a weekly series keeps its wall time). */
export function addLocalDays(local: string, days: number): string {
  const moved = new Date(Date.parse(`${local}Z`) + days * 86_400_000);
  return moved.toISOString().slice(0, 19);
}

/** Compact UTC stamp Google uses in instance ids, e.g. `20260330T080000Z`. */
export function compactUtc(utcMs: number): string {
  return new Date(utcMs)
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
}
