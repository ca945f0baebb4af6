/** How often an RRULE may occur, read from its text alone (no expansion). */

const SUB_DAILY_SECONDS: Record<string, number> = { SECONDLY: 1, MINUTELY: 60, HOURLY: 3_600 };

/**
 * At most how many times a day an RRULE occurs, read from its parts: its
 * frequency and interval, or the times of day its BYHOUR, BYMINUTE and BYSECOND
 * lists allow. An upper bound (every day is assumed to match), never less.
 */
export function occurrencesPerDayBound(rule: string): number {
  const part = (name: string) => new RegExp(`(?:^|;)${name}=([^;]*)`, 'i').exec(rule)?.[1];
  const distinct = (name: string) => {
    const value = part(name);
    return value === undefined ? undefined : new Set(value.split(',')).size;
  };
  const freq = (part('FREQ') ?? '').toUpperCase();
  const interval = Math.max(1, Number.parseInt(part('INTERVAL') ?? '1', 10) || 1);
  const unit = SUB_DAILY_SECONDS[freq];
  const hours = distinct('BYHOUR');
  const minutes = distinct('BYMINUTE');
  const seconds = distinct('BYSECOND');
  if (hours === undefined && minutes === undefined && seconds === undefined)
    return unit === undefined ? 1 : Math.ceil(86_400 / (unit * interval));
  const every = (size: number, freqUnit: number) => (unit === freqUnit ? Math.ceil(size / interval) : size);
  const perDay =
    (hours ?? (unit === undefined ? 1 : every(24, 3_600))) *
    (minutes ?? (unit !== undefined && unit < 3_600 ? every(60, 60) : 1)) *
    (seconds ?? (unit === 1 ? every(60, 1) : 1));
  return Math.min(86_400, perDay);
}
