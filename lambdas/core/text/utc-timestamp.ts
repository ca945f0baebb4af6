/**
 * The one way a time is written in what the pipeline answers (read API, schedule and
 * calendar APIs, the CLI through them, domain events): ISO 8601 in UTC with
 * milliseconds and `Z`, e.g. `2026-03-04T09:30:00.000Z`, so every table and every
 * consumer sees one spelling that sorts as text.
 *
 * The service writes times several ways: its webhooks `2026-03-04T09:30:00.123456+00:00`
 * (or without the fraction when it is zero), its REST answers `…00.123456Z`, and some
 * fields epoch milliseconds (`timestamp_ms`). Its spelling is kept only where its bodies
 * are kept whole (stored webhook payloads); everything answered goes through here.
 */
import * as z from 'zod/mini';

/** The answered form: `YYYY-MM-DDTHH:mm:ss.sssZ`. */
export const UTC_TIMESTAMP_PATTERN = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** A timestamp field of an answer, for the contracts that parse answers. */
export const utcTimestampSchema = z
  .string()
  .check(z.regex(UTC_TIMESTAMP_PATTERN, 'not a YYYY-MM-DDTHH:mm:ss.sssZ time'));

/** Date, time, an optional fraction of any length, and a zone (`Z` or `±hh:mm`, `±hhmm`, `±hh`). */
const ISO_WITH_ZONE = /^(\d{4}-\d{2}-\d{2})[Tt ](\d{2}:\d{2}(?::\d{2})?)(?:[.,](\d+))?([Zz]|[+-]\d{2}(?::?\d{2})?)$/;

/**
 * A time the service (or a caller) wrote, in the answered form. A string must carry its
 * zone (a time without one could be any time); other offsets are converted to UTC; a
 * fraction finer than milliseconds is cut, never rounded up into the next millisecond.
 * A number is epoch milliseconds, as the service's `timestamp_ms`.
 */
export function utcTimestamp(value: string | number): string {
  if (typeof value === 'number') return fromEpochMs(value, value);
  const match = ISO_WITH_ZONE.exec(value.trim());
  if (match === null) throw new RangeError(`not an ISO 8601 time with a zone: ${JSON.stringify(value)}`);
  const [, date, time, fraction = '', zone = 'Z'] = match;
  const offset =
    zone.toUpperCase() === 'Z' ? 'Z' : zone.length === 3 ? `${zone}:00` : zone.replace(/^(.\d{2})(\d{2})$/, '$1:$2');
  const wholeMs = Date.parse(`${date}T${time?.length === 5 ? `${time}:00` : time}${offset}`);
  return fromEpochMs(wholeMs + Number(fraction.padEnd(3, '0').slice(0, 3)), value);
}

/** A stored time, or null when none is stored; a stored value that is no time is a fault (thrown). */
export function utcTimestampOrNull(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value !== 'string' && typeof value !== 'number')
    throw new RangeError(`not a time: ${JSON.stringify(value)}`);
  return utcTimestamp(value);
}

function fromEpochMs(ms: number, original: string | number): string {
  const date = new Date(Math.trunc(ms));
  if (!Number.isFinite(ms) || Number.isNaN(date.getTime()))
    throw new RangeError(`not a time: ${JSON.stringify(original)}`);
  return date.toISOString();
}
