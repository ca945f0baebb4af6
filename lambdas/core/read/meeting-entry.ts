/** The meeting item as the read API shows it. */
import type { ArchiveRecord } from '../archive/archive-meeting';
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
  };
}
