/**
 * The API's answers as the pages read them: the types come from the contracts the read API,
 * the CLI and the MCP server already parse with (type-only imports: no validator in the bundle).
 */

export type { ErasureReceipt } from '../../lambdas/core/erase/receipt';
export { OUTCOME_STATUSES, type OutcomeStatus } from '../../lambdas/core/outcome/outcome-reasons';
export type {
  MeetingListEntry,
  MeetingView,
  TimelineEntry,
  UtteranceView,
} from '../../lambdas/core/read/read-api-contract';

import type { MeetingListEntry, UtteranceView } from '../../lambdas/core/read/read-api-contract';

export interface MeetingList {
  meetings: MeetingListEntry[];
  next_cursor: string | null;
}
export interface TranscriptAnswer {
  bot_id: string;
  offsets_from: 'recording_start' | 'first_utterance';
  utterances: UtteranceView[];
}
export interface ParticipantAnswer {
  bot_id: string;
  participants: Array<{
    participant_uuid: string;
    name: string | null;
    user_uuid: string | null;
    is_host: boolean;
    joined_at: string | null;
    left_at: string | null;
  }>;
}
export interface DeliveryLogAnswer {
  events: Array<{
    idempotency_key: string;
    trigger: string;
    received_at: string;
    outcome: 'applied' | 'duplicate' | 'failed' | 'pending';
    failure_reason?: string;
  }>;
  next_cursor: string | null;
}

export type { DeadLetterQueueView } from '../../cli/console/console-operations';
export type { TranscriptHit, TranscriptSearchPage } from '../../lambdas/core/lake/lake-questions-contract';
