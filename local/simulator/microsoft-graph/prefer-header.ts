/**
 * The `Prefer` preferences Graph honours on calendar reads: `odata.maxpagesize`
 * (an upper bound on a page, never a promise) and `outlook.timezone` (the zone
 * event times are written in; UTC when none or an unknown one is asked for). What
 * was applied is named back in `Preference-Applied`.
 */
import { isKnownZone } from './time-zones';

/** Graph's page size for calendarView/delta when the client states none. */
export const DEFAULT_PAGE_SIZE = 10;

export function parsePrefer(prefer: string[]): { pageSize: number; zone: string; applied: string[] } {
  let pageSize = DEFAULT_PAGE_SIZE;
  let zone = 'UTC';
  const applied: string[] = [];
  for (const part of prefer.flatMap((header) => header.split(','))) {
    const [rawName, ...rest] = part.trim().split('=');
    const name = rawName?.trim().toLowerCase();
    const value = rest.join('=').trim().replace(/^"|"$/g, '');
    if (name === 'odata.maxpagesize' && /^\d+$/.test(value) && Number(value) > 0) {
      pageSize = Number(value);
      applied.push(`odata.maxpagesize=${pageSize}`);
    } else if (name === 'outlook.timezone' && isKnownZone(value)) {
      zone = value;
      applied.push(`outlook.timezone="${zone}"`);
    }
  }
  return { pageSize, zone, applied };
}
