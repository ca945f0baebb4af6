/**
 * Stable names: an occurrence's schedule id, and the claim that keeps one bot per
 * meeting across calendars.
 */
import { createHash } from 'node:crypto';
import { SCHEDULE_ID } from '../schedule/schedule-request';

const PREFIX = 'cal-';
/** Characters of the occurrence's digest at the end of its schedule id. */
const DIGEST_CHARS = 32;

/**
 * The schedule of one occurrence: from its calendar, UID and original start
 * (RECURRENCE-ID; none for a one-off event), which a move does not change, so a
 * moved occurrence moves its schedule. Hashed: UIDs may hold slashes and spaces, which schedule ids may not.
 */
export function occurrenceScheduleId(calendarId: string, uid: string, originalStart: string | undefined): string {
  const digest = createHash('sha256')
    .update(JSON.stringify([calendarId, uid, originalStart ?? null]))
    .digest('base64url');
  const id = `${PREFIX}${calendarId}-${digest.slice(0, DIGEST_CHARS)}`;
  if (!SCHEDULE_ID.test(id)) throw new Error(`calendar id ${calendarId} makes an invalid schedule id`);
  return id;
}

export const isCalendarScheduleId = (scheduleId: string): boolean => scheduleId.startsWith(PREFIX);

/** The calendar an occurrence's schedule id was made from (occurrenceScheduleId); undefined for another schedule. */
export const calendarOfSchedule = (scheduleId: string): string | undefined =>
  isCalendarScheduleId(scheduleId) && scheduleId.length > PREFIX.length + DIGEST_CHARS + 1
    ? scheduleId.slice(PREFIX.length, -(DIGEST_CHARS + 1))
    : undefined;

/** The meeting a claim is about: its link as the service stores it, and its start. */
export interface MeetingSlot {
  meetingUrl: string;
  start: string;
}

export const linkHash = (meetingUrl: string): string =>
  createHash('sha256').update(meetingUrl).digest('base64url').slice(0, 32);
