import type { ArchiveQueue } from '../archive/archive-job';
import type { MeetingOutcome } from '../outcome/meeting-outcome';
import type { TypedWebhook } from '../upstream/webhook-contract';
import type { ApplyContext } from './context';
import { applyParticipantEvent } from './participants';
import { applyStateChange } from './state-change';
import { applySummaryUpdate } from './summary';
import { applyTranscriptUpdate } from './transcript';
import { applyUnknownTrigger } from './unknown';

export interface AppliedEffects {
  stateApplied?: boolean;
  archiveRequested?: boolean;
  /** A newest-arrival-wins value (utterance, summary) was written; false when a newer or the same one was there. */
  valueWritten?: boolean;
  /** The items already held this event (its key, its own item): an earlier delivery applied it. */
  seenBefore?: boolean;
  /** A summary update is the meeting's summary (written now, or by an earlier delivery and not replaced since). */
  summaryCurrent?: boolean;
  /** The meeting is erased (its tombstone was read): nothing was written, the event is to be dropped. */
  erased?: boolean;
  /** A state change: the meeting's outcome with it counted. */
  outcome?: MeetingOutcome;
  /** A state change made the meeting's outcome final (once per meeting). */
  outcomeBecameFinal?: boolean;
}

/** What one webhook does to the store. Idempotent and order-independent: replay calls it too. */
export async function applyWebhook(
  webhook: TypedWebhook,
  ctx: ApplyContext,
  archive: ArchiveQueue,
): Promise<AppliedEffects> {
  switch (webhook.trigger) {
    case 'bot.state_change':
      return applyStateChange(ctx, webhook.data, archive);
    case 'transcript.update': {
      const { written, seenBefore, erased } = await applyTranscriptUpdate(ctx, webhook.data);
      return { valueWritten: written, seenBefore, ...(erased === true && { erased }) };
    }
    case 'participant_events.join_leave':
      return { seenBefore: await applyParticipantEvent(ctx, webhook.data) };
    case 'summary.update': {
      const { written, seenBefore, current } = await applySummaryUpdate(ctx, webhook.data);
      return { valueWritten: written, seenBefore, summaryCurrent: current };
    }
    case 'unknown':
      return { seenBefore: await applyUnknownTrigger(ctx, webhook.envelope.trigger, webhook.data) };
  }
}
