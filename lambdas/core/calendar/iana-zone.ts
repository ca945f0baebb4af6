/** Time-zone names as the calendars write them, kept only when Intl knows them (IANA). */

/** A zone name Intl knows (IANA), canonicalised, or undefined. */
export function ianaZone(name: string | undefined): string | undefined {
  if (name === undefined) return undefined;
  try {
    return new Intl.DateTimeFormat('en', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
}
