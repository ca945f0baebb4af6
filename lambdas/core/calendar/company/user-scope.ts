/**
 * Each user of a company calendar is reconciled as a calendar of its own: their
 * entries, schedule ids, new-schedule counters and kept items live under a scope
 * id made from the calendar and the user, wherever the ICS code uses a calendar id.
 * One bot per meeting across users comes from the meeting claim, as across calendars.
 *
 * The user is hashed: an address may hold characters keys and schedule ids may
 * not, and schedule ids (which the service and the launcher see) need not carry it.
 */
import { createHash } from 'node:crypto';

/** Base64url characters of the user's digest in the scope id. */
const USER_DIGEST_CHARS = 12;

/** `<calendarId>.u<12 base64url chars of sha256(lowercased user)>`. */
export function userScopeId(calendarId: string, user: string): string {
  const digest = createHash('sha256').update(user.toLowerCase()).digest('base64url');
  return `${calendarId}.u${digest.slice(0, USER_DIGEST_CHARS)}`;
}

/**
 * Whether a calendar id has the form of a user's scope: an ICS calendar so named
 * would share that user's entries and schedule ids, so PUT /calendars refuses it.
 */
export const USER_SCOPE_SUFFIX = new RegExp(`\\.u[A-Za-z0-9_-]{${USER_DIGEST_CHARS}}$`);
export const looksLikeUserScope = (calendarId: string): boolean => USER_SCOPE_SUFFIX.test(calendarId);
