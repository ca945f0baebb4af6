/** One occurrence as a preview lists it: what the rules decide and why, and the schedule a join would use. */
import { utcTimestamp } from '../text/utc-timestamp';
import { occurrenceScheduleId } from './calendar-ids';
import type { CalendarRules } from './calendar-source';
import type { Occurrence } from './ics-occurrences';
import { decide } from './rules';

/** `scopeId`: the id schedules are made under (the calendar's, or a company user's scope). */
export function previewRow(occurrence: Occurrence, rules: CalendarRules, scopeId: string) {
  const decision = decide(occurrence, rules);
  return {
    uid: occurrence.uid,
    start: utcTimestamp(occurrence.start),
    original_start: occurrence.originalStart === undefined ? null : utcTimestamp(occurrence.originalStart),
    time_zone: occurrence.timeZone ?? null,
    title: occurrence.title,
    meeting_url: decision.meetingUrl,
    decision: decision.decision,
    reason: decision.reason,
    schedule_id:
      decision.decision === 'join' ? occurrenceScheduleId(scopeId, occurrence.uid, occurrence.originalStart) : null,
  };
}
