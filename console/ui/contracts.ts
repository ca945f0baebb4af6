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
export type { RecentOutcomes } from '../../lambdas/core/calendar/recent-outcomes';
export type { TranscriptHit, TranscriptSearchPage } from '../../lambdas/core/lake/lake-questions-contract';

import type { RecentOutcomes } from '../../lambdas/core/calendar/recent-outcomes';

export interface CalendarListAnswer {
  calendars: Array<{
    calendar_id: string;
    source: string;
    bot_name: string;
    lookahead_days: number;
    updated_at: string;
    last_sync: { at: string; outcome: string } | null;
  }>;
}

/** GET /calendars/{id}: an ICS feed's view, or a company source's with its users. */
export interface CalendarAnswer {
  calendar_id: string;
  provider?: string;
  ics_url?: string;
  bot_name: string;
  lookahead_days: number;
  last_sync?: { at: string; outcome: string } | null;
  recent_outcomes?: RecentOutcomes;
  users?: Array<{
    user: string;
    state: 'pending' | 'connected' | 'disconnected';
    reason: string | null;
    last_sync: string | null;
    last_sync_outcome: string | null;
    events_seen: number;
    recent_outcomes: RecentOutcomes | null;
  }>;
  totals?: {
    users: number;
    pending: number;
    connected: number;
    disconnected: number;
    events_seen: number;
    recent_outcomes: RecentOutcomes;
  };
}

export interface PreviewAnswer {
  calendar_id: string;
  days: number;
  occurrences: Array<{
    uid: string;
    start: string;
    title: string;
    meeting_url: string | null;
    decision: 'join' | 'skip';
    reason: string;
    schedule_id: string | null;
    user?: string;
  }>;
  problems: string[];
}

export interface SchedulesAnswer {
  calendar_id: string;
  schedules: Array<{
    id: string;
    join_at: string;
    meeting_url: string;
    status: string;
    title: string;
    user?: string;
    covered_by_another_calendar?: boolean;
  }>;
}
