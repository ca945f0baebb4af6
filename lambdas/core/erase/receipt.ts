/**
 * The receipt an erasure answers with, and keeps on the meeting's tombstone so that
 * asking again returns it unchanged: what was removed, by store, and the copies it
 * cannot reach, each with the date it expires on its own.
 */

/** What was removed, by store; fixed when the erasure took stock, before deleting anything. */
export interface ErasureCounts {
  /** Items under the meeting's partition: state history, utterances, participants, summary… */
  meeting_items: number;
  /** Ledger records (each accepted webhook's raw body). */
  ledger_records: number;
  /** Object versions in the payload bucket: claim-checked bodies, a long summary, quarantine entries. */
  payload_objects: number;
  /** Object versions and delete markers under the meeting's prefix in the recordings bucket. */
  recording_objects: number;
  /** The meeting's day-listing item. */
  day_listings: number;
  /** Schedules that named the bot. */
  schedule_links: number;
}

/** A copy the erasure cannot remove, and when it goes by itself. */
export interface RetainedCopy {
  store: 'dead-letter-queues' | 'point-in-time-backups' | 'domain-event-archive' | 'function-logs';
  why: string;
  /** ISO 8601: the copy is gone by then. */
  until: string;
}

export type UpstreamErasure = 'not-requested' | 'requested' | 'not-found';

export interface ErasureReceipt {
  receipt_id: string;
  bot_id: string;
  /** Who asked: the API or CLI, the service's `data_deleted`, or the retention run. */
  reason: ErasureReason;
  requested_at: string;
  erased_at: string;
  counts: ErasureCounts;
  retained: RetainedCopy[];
  /** Whether the service was asked to delete its own copy (`eraseUpstream`). */
  upstream: UpstreamErasure;
}

export const ERASURE_REASONS = ['request', 'upstream-data-deleted', 'retention'] as const;
export type ErasureReason = (typeof ERASURE_REASONS)[number];

/** Retention periods of the copies no erasure reaches (the stack's settings). */
export interface RetainedCopiesSettings {
  /** SQS keeps messages (the DLQs) 14 days. */
  queueRetentionDays: number;
  /** DynamoDB point-in-time recovery: 35 days. */
  backupRetentionDays: number;
  /** The domain event bus's archive. */
  eventArchiveRetentionDays: number;
  /** Every log group. */
  logRetentionDays: number;
}

/** Maximum retention of an SQS queue: every queue of the stack keeps messages this long. */
export const QUEUE_RETENTION_DAYS = 14;
/** DynamoDB keeps continuous backups 35 days (point-in-time recovery's fixed window). */
export const PITR_RETENTION_DAYS = 35;

const DAY_MS = 86_400_000;

export function retainedCopies(erasedAt: Date, settings: RetainedCopiesSettings): RetainedCopy[] {
  const until = (days: number) => new Date(erasedAt.getTime() + days * DAY_MS).toISOString();
  return [
    {
      store: 'dead-letter-queues',
      why: 'a webhook or job of the meeting set aside in a DLQ cannot be picked out of it; a re-drive of it is dropped',
      until: until(settings.queueRetentionDays),
    },
    {
      store: 'point-in-time-backups',
      why: 'DynamoDB continuous backups cannot be edited; a restore from before the erasure would bring it back',
      until: until(settings.backupRetentionDays),
    },
    {
      store: 'domain-event-archive',
      why: 'the event bus archive keeps the meeting events already published (ids, states, times; no transcript)',
      until: until(settings.eventArchiveRetentionDays),
    },
    {
      store: 'function-logs',
      why: 'log lines name the bot id and event keys (never bodies or transcripts)',
      until: until(settings.logRetentionDays),
    },
  ];
}
