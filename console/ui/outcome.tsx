/** A meeting's outcome as a labelled badge: the status in words, colour only as a second cue. */
import type { MeetingListEntry } from './contracts';

export const STATUS_WORDS: Record<string, string> = {
  scheduled: 'Scheduled',
  in_progress: 'In progress',
  recorded: 'Recorded',
  partial: 'Partly recorded',
  missed: 'Missed',
  failed: 'Failed',
  cancelled: 'Cancelled',
};

export function OutcomeBadge(props: { outcome: MeetingListEntry['outcome'] }) {
  const { outcome } = props;
  if (outcome === null) return <span class="badge">Unknown</span>;
  return (
    <span class={`badge badge-${outcome.status}`} title={outcome.sentence}>
      {STATUS_WORDS[outcome.status] ?? outcome.status}
      {outcome.status === 'missed' || outcome.status === 'failed' || outcome.status === 'partial' ? (
        <span class="reason"> · {outcome.reason}</span>
      ) : null}
    </span>
  );
}
