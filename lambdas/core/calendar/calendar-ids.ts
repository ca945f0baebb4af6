/**
 * Stable names: an occurrence's schedule id, and the claim that keeps one bot per
 * meeting across calendars.
 */
import { createHash } from 'node:crypto';
import { SCHEDULE_ID } from '../schedule/schedule-request';

const PREFIX = 'cal-';

/**
 * The schedule of one occurrence: from its calendar, UID and original start
 * (RECURRENCE-ID; none for a one-off event), which a move does not change, so a
 * moved occurrence moves its schedule. Hashed: UIDs may hold slashes and spaces, which schedule ids may not.
 */
export function occurrenceScheduleId(calendarId: string, uid: string, originalStart: string | undefined): string {
  const digest = createHash('sha256')
    .update(JSON.stringify([calendarId, uid, originalStart ?? null]))
    .digest('base64url');
  const id = `${PREFIX}${calendarId}-${digest.slice(0, 32)}`;
  if (!SCHEDULE_ID.test(id)) throw new Error(`calendar id ${calendarId} makes an invalid schedule id`);
  return id;
}

export const isCalendarScheduleId = (scheduleId: string): boolean => scheduleId.startsWith(PREFIX);

/** The meeting a claim is about: its link as the service stores it, and its start. */
export interface MeetingSlot {
  meetingUrl: string;
  start: string;
}

export const linkHash = (meetingUrl: string): string =>
  createHash('sha256').update(meetingUrl).digest('base64url').slice(0, 32);
