/** The meeting item as the read API shows it. */
import type { ArchiveRecord } from '../archive/archive-meeting';
import { deriveMeetingOutcome, type MeetingOutcome } from '../outcome/meeting-outcome';
import { isOutcomeStatus } from '../outcome/outcome-reasons';
import { utcTimestampOrNull } from '../text/utc-timestamp';
import type { MeetingListEntry } from './read-api-contract';
import type { Item } from './table-reads';

const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);

export const archiveOf = (meeting: Item | undefined): ArchiveRecord | undefined =>
  meeting?.archive as ArchiveRecord | undefined;

/** The attributes a list entry reads, for a projection (`#state`, `#archive`: reserved words). */
export const LIST_ENTRY_ATTRIBUTES = [
  'botId',
  '#state',
  'stateAt',
  'scheduleId',
  'meetingUrl',
  'scheduledJoinAt',
  '#archive.archivedAt',
  'outcome',
];

export function meetingListEntry(botId: string, meeting: Item | undefined): MeetingListEntry {
  return {
    bot_id: botId,
    state: text(meeting?.state),
    // The service's own spelling is stored (`…123456+00:00`); answers use the one form.
    state_at: utcTimestampOrNull(meeting?.stateAt),
    schedule_id: text(meeting?.scheduleId),
    meeting_url: text(meeting?.meetingUrl),
    scheduled_join_at: utcTimestampOrNull(meeting?.scheduledJoinAt),
    archived_at: utcTimestampOrNull(archiveOf(meeting)?.archivedAt),
    outcome: meetingOutcomeOf(meeting),
  };
}

/**
 * The outcome the apply step keeps on the item. A meeting launched and not heard from has none yet: it is
 * scheduled. One heard of before outcomes were kept has none until its next state change: null.
 */
export function meetingOutcomeOf(meeting: Item | undefined): MeetingOutcome | null {
  const stored = meeting?.outcome;
  if (typeof stored === 'object' && stored !== null) {
    const { status, reason, sentence } = stored as Record<string, unknown>;
    if (
      typeof status === 'string' &&
      isOutcomeStatus(status) &&
      typeof reason === 'string' &&
      typeof sentence === 'string'
    )
      return { status, reason, sentence };
  }
  return meeting?.state === undefined || meeting.state === 'scheduled' ? deriveMeetingOutcome([]) : null;
}
