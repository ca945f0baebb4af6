/** Epoch microseconds of a timestamp: the precision the service writes, and the order of every time key. */

/** ISO 8601 with zone (`...Z`, `...+00:00`, up to microseconds) to epoch microseconds. */
export function isoToMicros(iso: string): number {
  const match = /^(.+?)(?:\.(\d+))?(Z|[+-]\d{2}:?\d{2})$/i.exec(iso);
  const wholeSeconds = match === null ? Number.NaN : Date.parse(`${match[1]}${match[3]}`);
  if (match === null || Number.isNaN(wholeSeconds))
    throw new RangeError(`not an ISO 8601 timestamp with a zone: ${iso}`);
  const micros = Number((match[2] ?? '').padEnd(6, '0').slice(0, 6));
  return wholeSeconds * 1000 + micros;
}
