/**
 * Reconciling a calendar with its schedules: each occurrence that the rules join
 * has a schedule under a stable id (calendar-ids.ts) and holds its meeting's
 * claim; a moved occurrence moves its schedule, one gone, cancelled or no longer
 * joined cancels it. A meeting another calendar's occurrence already holds gets
 * no second bot: the occurrence is recorded as covered, and takes the meeting
 * over on a later sync if the holder lets it go. An event re-created under a new
 * UID for the same meeting takes over the schedule of the entry it replaces.
 * One occurrence whose schedule cannot be changed (refused, or the service
 * down) is listed as failed; the others are synced all the same.
 */
import { cancelSchedule, type ScheduleDependencies, type ScheduleResult, upsertSchedule } from '../schedule/schedules';
import { type FeedDependencies, loadOccurrences } from './calendar-feed';
import { type MeetingSlot, occurrenceScheduleId } from './calendar-ids';
import type { LimitReached } from './calendar-limits';
import type { CalendarRules, CalendarSource } from './calendar-source';
import { type CalendarEntry, scheduleOf } from './calendar-store';
import type { Occurrence } from './ics-occurrences';
import { RECENT_OUTCOME_DAYS } from './recent-outcomes';
import { decide } from './rules';
import { type ScheduleBudget, type ScheduleLimits, scheduleBudget } from './schedule-budget';
import { COVERED_REASON, explainSync } from './sync-explain';

export interface SyncDependencies extends FeedDependencies {
  schedules: ScheduleDependencies;
  /** New schedules a sync and a calendar's day may make (schedule-budget.ts). */
  scheduleLimits: ScheduleLimits;
}

export interface SyncResult {
  created: number;
  moved: number;
  cancelled: number;
  unchanged: number;
  skipped: number;
  /** Occurrences whose schedule could not be made or changed, with the schedule API's reason. */
  failed: Array<{ schedule_id: string; start: string; reason: string }>;
  /** The feed answered 304 and the kept copy was used. */
  feed_not_modified: boolean;
  /** Events of the feed that could not be read. */
  problems: string[];
  /** New meetings held back by the schedule limits for a later sync. */
  deferred: number;
  /** Each limit the feed or the schedules reached, with what it left out (calendar-limits.ts). */
  limits: LimitReached[];
  /** What the sync looked at: the window, the feed's events, the occurrences in the window, those already begun. */
  window: { from: string; to: string; lookahead_days: number };
  feed_events: number;
  occurrences: number;
  past: number;
  /** How many occurrences each reason left without a schedule (the rules' reason, or covered by another calendar). */
  skipped_reasons: Record<string, number>;
  /** The outcome in a sentence, saying why when nothing was scheduled (sync-explain.ts). */
  explain: string;
}

/**
 * Entries of occurrences past by more than this are dropped: nothing will change them. Kept through the
 * recent-outcomes report's window (recent-outcomes.ts), which reads them, and a day beyond.
 */
const KEEP_PAST_MS = (RECENT_OUTCOME_DAYS + 1) * 86_400_000;

const sameSlot = (a: MeetingSlot, b: MeetingSlot) => a.meetingUrl === b.meetingUrl && a.start === b.start;

interface Wanted {
  scheduleId: string;
  occurrence: Occurrence;
  slot: MeetingSlot;
}

/** A sync's counts before anything was done. */
const emptySyncResult = (
  feedNotModified: boolean,
  problems: SyncResult['problems'],
  window: SyncResult['window'],
  feedEvents: number,
): SyncResult => ({
  created: 0,
  moved: 0,
  cancelled: 0,
  unchanged: 0,
  skipped: 0,
  failed: [],
  feed_not_modified: feedNotModified,
  problems,
  deferred: 0,
  limits: [],
  window,
  feed_events: feedEvents,
  occurrences: 0,
  past: 0,
  skipped_reasons: {},
  explain: '',
});

function skip(result: SyncResult, reason: string): void {
  result.skipped++;
  result.skipped_reasons[reason] = (result.skipped_reasons[reason] ?? 0) + 1;
}

export async function syncCalendar(source: CalendarSource, deps: SyncDependencies): Promise<SyncResult> {
  const feed = await loadOccurrences(source, source.lookaheadDays, deps);
  return reconcileOccurrences(
    {
      scopeId: source.calendarId,
      calendarId: source.calendarId,
      rules: source.rules,
      botName: source.botName,
      lookaheadDays: source.lookaheadDays,
    },
    feed,
    deps,
  );
}

/**
 * Where a list of occurrences is reconciled: an ICS calendar, or one user of a
 * company calendar (company/user-scope.ts). Entries, schedule ids, claims and the
 * schedule budget are kept under `scopeId`; schedules name `calendarId`.
 */
export interface ReconcileScope {
  scopeId: string;
  calendarId: string;
  rules: CalendarRules;
  botName: string;
  lookaheadDays: number;
}

/** What a sync read, whatever it read it from (a feed, a provider's listing). */
export interface OccurrenceListing {
  /** Sorted by start: a schedule budget lets the soonest through first. */
  occurrences: Occurrence[];
  /** What limits may have left out: a missing occurrence of these is not a cancelled one (ExpandedFeed.partial). */
  partial: { feed: boolean; uids: ReadonlySet<string> };
  problems: string[];
  limits: LimitReached[];
  /** The source was unchanged (a feed's 304). */
  notModified: boolean;
  /** Events the source holds, in the window or not. */
  events: number;
}

/**
 * Makes the scope's schedules and entries agree with `listing`: the part of a sync
 * after the occurrences are known. `budget` bounds the new schedules; the scope's
 * own (schedule-budget.ts) unless given.
 */
export async function reconcileOccurrences(
  scope: ReconcileScope,
  listing: OccurrenceListing,
  deps: SyncDependencies,
  budget: ScheduleBudget = scheduleBudget(scope.scopeId, deps.scheduleLimits, deps.schedules.table, deps.now()),
): Promise<SyncResult> {
  const now = deps.now();
  const window = {
    from: new Date(now).toISOString(),
    to: new Date(now + scope.lookaheadDays * 86_400_000).toISOString(),
    lookahead_days: scope.lookaheadDays,
  };
  const result = emptySyncResult(listing.notModified, listing.problems, window, listing.events);
  result.occurrences = listing.occurrences.length;
  const wanted = new Map<string, Wanted>();
  for (const occurrence of listing.occurrences) {
    if (Date.parse(occurrence.start) < now) {
      result.past++;
      continue;
    }
    const decision = decide(occurrence, scope.rules);
    if (decision.decision === 'skip') {
      skip(result, decision.reason);
      continue;
    }
    const scheduleId = occurrenceScheduleId(scope.scopeId, occurrence.uid, occurrence.originalStart);
    wanted.set(scheduleId, {
      scheduleId,
      occurrence,
      slot: { meetingUrl: decision.meetingUrl, start: occurrence.start },
    });
  }

  const entries = new Map((await deps.store.listEntries(scope.scopeId)).map((e) => [e.scheduleId, e]));
  await adoptReissued(scope.scopeId, wanted, entries, deps);
  for (const want of wanted.values())
    await reconcileWanted(scope, want, entries.get(want.scheduleId), budget, result, deps);
  result.deferred = budget.deferred();
  result.limits = [...listing.limits, ...budget.limits()];
  const inUse = new Set<string>();
  for (const id of wanted.keys()) {
    const entry = entries.get(id);
    if (entry?.state === 'active') inUse.add(scheduleOf(entry));
  }
  for (const entry of entries.values()) {
    if (wanted.has(entry.scheduleId)) continue;
    // The replaced entry of an adoption cut short: its schedule is the adopter's now.
    if (inUse.has(scheduleOf(entry))) await deps.store.deleteEntry(scope.scopeId, entry.scheduleId);
    // A limit cut this event's occurrences short: missing from the expansion is not gone from the calendar.
    else if (!listing.partial.feed && !listing.partial.uids.has(entry.uid))
      await retire(scope, entry, now, result, deps);
  }
  result.explain = explainSync(result);
  return result;
}

/**
 * An event deleted and re-created under a new UID for the same meeting (link and
 * start) gets the schedule of the entry it replaces, with its bot if launched:
 * otherwise the new occurrence would find the meeting held by the old entry's
 * schedule, and that schedule would then be cancelled, leaving no bot.
 */
async function adoptReissued(
  calendarId: string,
  wanted: Map<string, Wanted>,
  entries: Map<string, CalendarEntry>,
  deps: SyncDependencies,
): Promise<void> {
  const gone = [...entries.values()].filter((e) => e.state === 'active' && !wanted.has(e.scheduleId));
  if (gone.length === 0) return;
  for (const want of wanted.values()) {
    if (entries.get(want.scheduleId)?.state === 'active') continue;
    const index = gone.findIndex((e) => sameSlot(e.slot, want.slot));
    if (index === -1) continue;
    const [replaced] = gone.splice(index, 1) as [CalendarEntry];
    const adopted: CalendarEntry = {
      ...replaced,
      scheduleId: want.scheduleId,
      uid: want.occurrence.uid,
      originalStart: want.occurrence.originalStart,
      title: want.occurrence.title,
      adoptedScheduleId: scheduleOf(replaced),
    };
    // The new entry first: a crash before the old one goes leaves the schedule owned twice, never unowned.
    await deps.store.putEntry(calendarId, adopted);
    await deps.store.deleteEntry(calendarId, replaced.scheduleId);
    entries.delete(replaced.scheduleId);
    entries.set(want.scheduleId, adopted);
  }
}

async function reconcileWanted(
  scope: ReconcileScope,
  want: Wanted,
  entry: CalendarEntry | undefined,
  budget: ScheduleBudget,
  result: SyncResult,
  deps: SyncDependencies,
): Promise<void> {
  const { scheduleId, slot, occurrence } = want;
  const active = entry?.state === 'active' ? entry : undefined;
  // A schedule an earlier sync began to make for this occurrence, and may have made.
  const begun = entry?.state === 'creating' ? entry : undefined;
  const own = active === undefined ? scheduleId : scheduleOf(active);
  if (active !== undefined && sameSlot(active.slot, slot) && active.botName === scope.botName) {
    result.unchanged++;
    return;
  }
  const base = { scheduleId, uid: occurrence.uid, originalStart: occurrence.originalStart, title: occurrence.title };
  if (active === undefined) {
    // Written before the claim and the schedule: a sync that stops anywhere after this leaves an entry
    // the next one finishes or cancels, never a claim or a schedule no entry knows (a second bot).
    if (begun !== undefined && !sameSlot(begun.slot, slot)) await deps.store.release(begun.slot, own);
    await deps.store.putEntry(scope.scopeId, { ...base, slot, botName: scope.botName, state: 'creating' });
  }
  const { holder } = await deps.store.claim(slot, own, scope.scopeId);
  if (holder !== own) {
    // Another calendar's occurrence sends the bot to this meeting.
    const owned = active ?? begun;
    if (owned !== undefined) {
      const cancelled = await cancelOwn(owned, result, deps);
      if (!cancelled) return;
      if (active !== undefined) result.cancelled++;
      else skip(result, COVERED_REASON);
    } else {
      skip(result, COVERED_REASON);
    }
    await deps.store.putEntry(scope.scopeId, {
      ...base,
      slot,
      botName: scope.botName,
      state: 'duplicate',
      coveredBy: holder,
    });
    return;
  }
  // Only a schedule about to be made spends the budget (a begun one spent it already); one held back
  // lets the meeting go and waits for a later sync.
  const fresh = active === undefined && begun === undefined;
  if (fresh && !(await budget.admit(occurrence))) {
    await deps.store.release(slot, own);
    await deps.store.deleteEntry(scope.scopeId, scheduleId);
    return;
  }
  const saved = await attempt(() =>
    upsertSchedule(
      own,
      {
        meeting_url: slot.meetingUrl,
        join_at: slot.start,
        bot_name: scope.botName,
        metadata: { calendar_id: scope.calendarId },
      },
      deps.schedules,
    ),
  );
  if ('error' in saved) {
    fail(result, own, slot.start, saved);
    // Thrown midway, the schedule may have been saved: the claim and the `creating` entry stay, and the
    // next sync saves it again or cancels it.
    if (active === undefined && saved.error.code === CALL_FAILED) return;
    if (fresh) await budget.refund();
    if (active === undefined || !sameSlot(active.slot, slot)) await deps.store.release(slot, own);
    if (begun !== undefined) await attempt(() => cancelSchedule(own, deps.schedules));
    if (active === undefined) await deps.store.deleteEntry(scope.scopeId, scheduleId);
    return;
  }
  if (active !== undefined && !sameSlot(active.slot, slot)) await deps.store.release(active.slot, own);
  if (active !== undefined) result.moved++;
  else result.created++;
  await deps.store.putEntry(scope.scopeId, {
    ...base,
    slot,
    botName: scope.botName,
    state: 'active',
    ...(own !== scheduleId && { adoptedScheduleId: own }),
  });
}

/** An entry no occurrence wants any more: gone from the feed, cancelled, or skipped by the rules now. */
async function retire(
  scope: ReconcileScope,
  entry: CalendarEntry,
  now: number,
  result: SyncResult,
  deps: SyncDependencies,
): Promise<void> {
  const start = Date.parse(entry.slot.start);
  if (start < now) {
    // Past: its bot ran (or not) as it was; only old entries are tidied away.
    if (start < now - KEEP_PAST_MS) await deps.store.deleteEntry(scope.scopeId, entry.scheduleId);
    return;
  }
  if (entry.state === 'duplicate') {
    await deps.store.deleteEntry(scope.scopeId, entry.scheduleId);
    return;
  }
  if (entry.state !== 'active' && entry.state !== 'creating') return;
  if (!(await cancelOwn(entry, result, deps))) return;
  result.cancelled++;
  await deps.store.putEntry(scope.scopeId, { ...entry, state: 'cancelled' });
}

/** Cancels an entry's schedule and lets its meeting go; false (recorded as failed) when the schedule API refused. */
async function cancelOwn(
  entry: CalendarEntry,
  result: SyncResult,
  deps: Pick<SyncDependencies, 'store' | 'schedules'>,
): Promise<boolean> {
  const own = scheduleOf(entry);
  const cancelled = await attempt(() => cancelSchedule(own, deps.schedules));
  if ('error' in cancelled && cancelled.error.code !== 'not-found') {
    fail(result, own, entry.slot.start, cancelled);
    return false;
  }
  await deps.store.release(entry.slot, own);
  return true;
}

/** A schedule call's answer, or the error it threw (the service down, say) as a failure of this occurrence. */
type Attempt = ScheduleResult | { error: { code: string; message: string } };
/** The code of an Attempt whose call threw: whether it changed anything is unknown. */
const CALL_FAILED = 'call-failed';

async function attempt(call: () => Promise<ScheduleResult>): Promise<Attempt> {
  try {
    return await call();
  } catch (error) {
    const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    return { error: { code: CALL_FAILED, message } };
  }
}

function fail(result: SyncResult, scheduleId: string, start: string, answer: Attempt): void {
  const reason = 'error' in answer ? `${answer.error.code}: ${answer.error.message}` : 'unknown';
  result.failed.push({ schedule_id: scheduleId, start, reason });
}

/** Cancels every future schedule of a calendar (it is being deleted); returns how many. */
export async function cancelCalendarSchedules(
  calendarId: string,
  deps: Pick<SyncDependencies, 'store' | 'schedules' | 'now'>,
): Promise<{ cancelled: number; failed: SyncResult['failed'] }> {
  const now = new Date(deps.now()).toISOString();
  const result = emptySyncResult(false, [], { from: now, to: now, lookahead_days: 0 }, 0);
  for (const entry of await deps.store.listEntries(calendarId)) {
    if ((entry.state === 'active' || entry.state === 'creating') && Date.parse(entry.slot.start) >= deps.now()) {
      if (await cancelOwn(entry, result, deps)) result.cancelled++;
    }
    await deps.store.deleteEntry(calendarId, entry.scheduleId);
  }
  return { cancelled: result.cancelled, failed: result.failed };
}
