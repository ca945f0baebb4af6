/** The domain events an applied webhook stands for (transcript and participant webhooks have none). */
import type { AppliedEffects } from '../apply/apply-webhook';
import { ARCHIVABLE_STATES } from '../apply/state-order';
import { type DomainEvent, domainEvents, type MeetingOutcomeDetail } from '../domain-events/catalogue';
import type { MeetingOutcome } from '../outcome/meeting-outcome';
import { FINAL_OUTCOME_STATUSES } from '../outcome/outcome-reasons';
import { summaryTextField, type TypedWebhook } from '../upstream/webhook-contract';

/** The idempotency keys the reconciler gives the states it observes (reconcile-meetings.ts). */
export const RECONCILER_KEY_PREFIX = 'reconciler:';

/**
 * Called after the webhook is applied, on every delivery that gets that far (a
 * redelivery too: the one before may have stopped before publishing), so the
 * events are the same each time.
 */
export function webhookDomainEvents(webhook: TypedWebhook, effects: AppliedEffects, receivedAt: string): DomainEvent[] {
  const { bot_id: botId, idempotency_key: key } = webhook.envelope;
  switch (webhook.trigger) {
    case 'bot.state_change': {
      const { data } = webhook;
      const changed = domainEvents.stateChanged(key, {
        bot_id: botId,
        old_state: data.old_state,
        new_state: data.new_state,
        changed_at: data.created_at,
        event_type: data.event_type,
        event_sub_type: data.event_sub_type ?? null,
        observed_by: key.startsWith(RECONCILER_KEY_PREFIX) ? 'reconciler' : 'webhook',
      });
      const outcome = finalOutcome(botId, effects.outcome);
      if (!ARCHIVABLE_STATES.includes(data.new_state)) return [changed, ...outcome];
      return [
        changed,
        domainEvents.ended({ bot_id: botId, final_state: data.new_state, ended_at: data.created_at }),
        ...outcome,
      ];
    }
    case 'summary.update': {
      // Only a summary that is the meeting's: one refused as older than the stored one is not "ready".
      if (effects.summaryCurrent !== true) return [];
      const field = summaryTextField(webhook.data);
      const text = field === undefined ? undefined : webhook.data[field];
      return [
        domainEvents.summaryReady(key, {
          bot_id: botId,
          summary_bytes: typeof text === 'string' ? Buffer.byteLength(text, 'utf8') : null,
          received_at: receivedAt,
        }),
      ];
    }
    default:
      return [];
  }
}

/** `meeting.outcome` when the meeting's outcome (with this state change counted) is final. */
function finalOutcome(botId: string, outcome: MeetingOutcome | undefined): DomainEvent[] {
  if (outcome === undefined || !FINAL_OUTCOME_STATUSES.includes(outcome.status)) return [];
  const status = outcome.status as MeetingOutcomeDetail['status'];
  return [domainEvents.outcome({ bot_id: botId, status, reason: outcome.reason, sentence: outcome.sentence })];
}
