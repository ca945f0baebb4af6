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
  /** The copy kept of the feed of the calendar that scheduled the bot (titles, attendees, links): dropped whole. */
  calendar_feeds: number;
  /** Rows of the meeting in the lake's files (its recent files, and those a compacted file was rewritten without). */
  lake_rows: number;
  /** Lake object versions deleted: its recent files, the older versions of the compacted files rewritten. */
  lake_objects: number;
  /**
   * Athena query results (and their metadata files) deleted with the meeting: every result there is,
   * since one may hold its words without naming it (lake-erasure.ts). Not evidence of the bot.
   */
  query_results: number;
  /**
   * Local mode only: files of its lake mirrors (the folders DuckDB reads, copies of the bucket's `lake/`) that
   * held rows of the meeting; each mirror is brought back to the bucket after the sweep, so none keeps them.
   */
  lake_copies?: number;
}

export const RETAINED_STORES = [
  'dead-letter-queues',
  'point-in-time-backups',
  'domain-event-archive',
  'function-logs',
  'launcher-execution-history',
  'schedule',
  'calendar',
] as const;

/** A copy the erasure cannot remove, and when it goes by itself. */
export interface RetainedCopy {
  store: (typeof RETAINED_STORES)[number];
  why: string;
  /** ISO 8601: the copy is gone by then. Null: it is its owner's (the caller's schedule, the calendar) and stays until they remove it. */
  until: string | null;
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
  /**
   * Present when the erasure found nothing of the bot in any store: the pipeline had never seen it
   * (an erasure forced ahead of its webhooks, which the tombstone now drops).
   */
  never_seen?: true;
}

/**
 * Counts that say nothing of the bot: the query results are deleted whichever bot is erased, so any
 * search leaves some, and counting them would make every mistyped id look like a known meeting.
 */
const NOT_EVIDENCE_OF_THE_BOT: ReadonlySet<keyof ErasureCounts> = new Set(['query_results']);

/** Whether stock-taking found nothing of the bot itself (a 404 without force; `never_seen` on the receipt). */
export const foundNothing = (counts: ErasureCounts): boolean =>
  Object.entries(counts).every(
    ([store, count]) => NOT_EVIDENCE_OF_THE_BOT.has(store as keyof ErasureCounts) || count === 0,
  );

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
/** Step Functions keeps a Standard workflow's closed execution (input, history) 90 days, fixed. */
export const EXECUTION_HISTORY_RETENTION_DAYS = 90;

/** How the meeting came to be, which decides the copies kept outside the pipeline's reach. */
export interface MeetingOrigin {
  /** Launched by a schedule. */
  scheduled: boolean;
  /** That schedule is an occurrence of a calendar feed. */
  fromCalendar: boolean;
}

const DAY_MS = 86_400_000;

export function retainedCopies(
  erasedAt: Date,
  settings: RetainedCopiesSettings,
  origin: MeetingOrigin,
): RetainedCopy[] {
  const until = (days: number) => new Date(erasedAt.getTime() + days * DAY_MS).toISOString();
  const scheduled: RetainedCopy[] = [
    {
      store: 'launcher-execution-history',
      why: 'the launcher execution that created the bot keeps the schedule id, its join time and the bot id (never the meeting link, bot name or metadata)',
      until: until(EXECUTION_HISTORY_RETENTION_DAYS),
    },
    {
      store: 'schedule',
      why: "the schedule is the caller's record (meeting link, join time, bot name, metadata): only its link to the bot was removed; it stays until the caller deletes it",
      until: null,
    },
  ];
  const calendar: RetainedCopy = {
    store: 'calendar',
    why: "the copy kept of the calendar's feed was dropped; the calendar itself still lists the event, so its occurrence entry and meeting claim stay, and the next sync copies the feed as the calendar then publishes it",
    until: null,
  };
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
      why: 'the event bus archive keeps the meeting events already published (ids, states, times; no transcript, no meeting link)',
      until: until(settings.eventArchiveRetentionDays),
    },
    {
      store: 'function-logs',
      why: 'log lines name the bot id and event keys (never bodies or transcripts)',
      until: until(settings.logRetentionDays),
    },
    ...(origin.scheduled ? scheduled : []),
    ...(origin.fromCalendar ? [calendar] : []),
  ];
}
