/** UTC days, as the read API lists meetings (one day per call). */
import { ToolInputError } from './tool-result';

const DAY_MS = 86_400_000;
export const DAY_PATTERN = /^\d{4}-\d{2}-\d{2}$/;

export const utcDay = (at: Date): string => at.toISOString().slice(0, 10);

function parseDay(day: string, name: string): number {
  const ms = Date.parse(`${day}T00:00:00Z`);
  if (!DAY_PATTERN.test(day) || Number.isNaN(ms) || utcDay(new Date(ms)) !== day)
    throw new ToolInputError(`${name} must be a date as YYYY-MM-DD, not ${JSON.stringify(day)}`);
  return ms;
}

/** The days from `from` to `to`, newest first; refused past `maxDays` so a search stays bounded. */
export function daysNewestFirst(from: string, to: string, maxDays: number): string[] {
  const count = daySpan(from, to);
  const last = parseDay(to, 'to');
  if (count > maxDays)
    throw new ToolInputError(
      `${from} to ${to} is ${count} days; search at most ${maxDays} at a time (the read API lists one day per call)`,
    );
  return Array.from({ length: count }, (_, i) => utcDay(new Date(last - i * DAY_MS)));
}

/** How many days `from` to `to` covers, both included (refused when `from` is after `to`). */
export function daySpan(from: string, to: string): number {
  const first = parseDay(from, 'from');
  const last = parseDay(to, 'to');
  if (first > last) throw new ToolInputError(`from (${from}) is after to (${to})`);
  return (last - first) / DAY_MS + 1;
}

/** The day `days - 1` days before `day`. */
export const daysBefore = (day: string, days: number): string => utcDay(new Date(parseDay(day, 'day') - days * DAY_MS));
