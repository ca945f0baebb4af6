/**
 * The erase route as its callers see it: kept apart from the read API's contract, which
 * stays read-only (its routes run on a role that cannot delete). The handler answers with
 * this receipt, and the CLI and the tests parse with it; a change here changes the public API.
 */
import * as z from 'zod/mini';
import { ERASURE_REASONS, type ErasureReceipt, RETAINED_STORES } from './receipt';

/** `?force=true` erases a bot the pipeline never saw; without it, such a bot is a 404. */
export const ERASE_API_ROUTES = {
  eraseMeeting: 'DELETE /meetings/{bot_id}',
} as const;

export const FORCE_PARAMETER = 'force';

const counts = z.object({
  meeting_items: z.int(),
  ledger_records: z.int(),
  payload_objects: z.int(),
  recording_objects: z.int(),
  day_listings: z.int(),
  schedule_links: z.int(),
  calendar_feeds: z.int(),
  lake_rows: z.int(),
  lake_objects: z.int(),
  query_results: z.int(),
});

/** The answer of `DELETE /meetings/{bot_id}` (200), the same on every call for one bot. */
export const erasureReceipt = z.object({
  receipt_id: z.string(),
  bot_id: z.string(),
  reason: z.enum(ERASURE_REASONS),
  requested_at: z.string(),
  erased_at: z.string(),
  counts,
  retained: z.array(
    z.object({
      store: z.enum(RETAINED_STORES),
      why: z.string(),
      until: z.nullable(z.string()),
    }),
  ),
  upstream: z.enum(['not-requested', 'requested', 'not-found']),
  /** Only when nothing of the bot was found: the pipeline had never seen it (an erasure with force=true). */
  never_seen: z.optional(z.literal(true)),
});

// The schema and the core's type describe one receipt: a field added to one and not the other fails here.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const receiptsAgree: Same<z.infer<typeof erasureReceipt>, ErasureReceipt> = true;
void receiptsAgree;
