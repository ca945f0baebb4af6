/**
 * One user's sync of a company calendar (Google Workspace, Microsoft 365), under
 * the user's lease: the provider's changes since the kept cursor (or a full listing
 * of the window) applied to the kept instances, then the instances in the
 * lookahead reconciled with schedules as an ICS calendar's occurrences are
 * (sync-calendar.ts), under the user's own scope (user-scope.ts). One bot per
 * meeting across users and sources comes from the meeting claim.
 *
 * A provider's refusal is an outcome, never a thrown error: a revoked grant
 * disconnects the user (or every user of the source) and announces it once;
 * throttling backs the user off; an outage is tried again at the next run.
 */

import { domainEvents } from '../../domain-events/catalogue';
import type { DomainEventPublisher } from '../../domain-events/publisher';
import { METRICS, type Telemetry } from '../../telemetry';
import { withoutControls } from '../../text/control-characters';
import type { LimitReached } from '../calendar-limits';
import {
  type CalendarRules,
  type CompanyCalendarSource,
  isCompanySource,
  type StoredCalendarSource,
} from '../calendar-source';
import { companyUserBudget, DEFAULT_SOURCE_SCHEDULES_PER_DAY } from '../schedule-budget';
import { reconcileOccurrences, type SyncDependencies, type SyncResult } from '../sync-calendar';
import type { CompanyStore, CompanyUserState, KeptItems } from './company-store';
import { capListing } from './listing-caps';
import {
  AccessRevokedError,
  type CalendarProvider,
  type ChangeSet,
  CursorVoidError,
  PROVIDER_LIMITS,
  type ProviderItem,
  ProviderUnavailableError,
  type SyncWindow,
  ThrottledError,
  type UserSyncRequest,
} from './provider-contract';
import { userScopeId } from './user-scope';

export interface CompanySyncDependencies extends SyncDependencies {
  company: CompanyStore;
  /** The provider of a source, made with its credentials (read from Secrets Manager by name). */
  providerFor(source: CompanyCalendarSource): Promise<CalendarProvider>;
  publisher: DomainEventPublisher;
  telemetry: Telemetry;
  /** New schedules all the users of one source make in a UTC day; DEFAULT_SOURCE_SCHEDULES_PER_DAY unless given. */
  sourceSchedulesPerDay?: number;
}

interface OutcomeBase {
  calendar_id: string;
  user: string;
}

export type UserSyncOutcome =
  | (OutcomeBase & { outcome: 'synced'; full: boolean; result: SyncResult })
  /** Not synced, nothing asked of the provider: backing off, another sync holds the user, no such user or calendar. */
  | (OutcomeBase & { outcome: 'skipped'; reason: 'backing-off' | 'in-progress' | 'not-a-user' | 'no-calendar' })
  | (OutcomeBase & { outcome: 'throttled'; backoff_until: string; reason: string })
  | (OutcomeBase & { outcome: 'disconnected'; scope: 'user' | 'source'; reason: string; newly_disconnected: number })
  | (OutcomeBase & { outcome: 'failed'; reason: string });

const DAY_MS = 86_400_000;

/** A user's sync holds the user this long at most (the consumer's timeout is shorter). */
export const USER_SYNC_LEASE_MS = 5 * 60_000;

/**
 * The window a full listing covers: from a day back (a meeting under way is still
 * listed, so its cancel is seen) to a week past the lookahead, so that the window
 * is listed again only weekly as the lookahead slides into its end.
 */
export const LISTING_WINDOW = { pastMs: DAY_MS, beyondLookaheadMs: 7 * DAY_MS } as const;

/** Back-off after throttling: the provider's wait, doubled for each throttled sync in a row, at most this. */
export const THROTTLE_BACKOFF = { minMs: 1_000, maxMs: 60 * 60_000 } as const;

/** Characters of a provider's reason kept (shown on the calendar, sent in the domain event). */
const REASON_CHARS = 500;

const reasonOf = (error: Error): string => withoutControls(error.message, { keepLines: false }).slice(0, REASON_CHARS);

/** The source's rules, with this user as one of the owners: `join: accepted` means this user organizes or accepted. */
export function userRules(rules: CalendarRules, user: string): CalendarRules {
  const owners = new Set([...rules.owner_emails.map((email) => email.toLowerCase()), user.toLowerCase()]);
  return { ...rules, owner_emails: [...owners] };
}

/** The kept instances that matter from now on (not yet ended), soonest first. */
export function currentItems(items: Iterable<ProviderItem>, nowMs: number): ProviderItem[] {
  return [...items]
    .filter((item) => Date.parse(item.occurrence.end) > nowMs)
    .sort(
      (a, b) =>
        a.occurrence.start.localeCompare(b.occurrence.start) || a.occurrence.uid.localeCompare(b.occurrence.uid),
    );
}

/**
 * A user the source lists by name but the scheduled run has not recorded yet (a
 * calendar registered a moment ago and synced at once): recorded `pending` now. A
 * group's members are only ever added by the run, which resolves the group.
 */
async function listedUser(
  source: CompanyCalendarSource,
  request: UserSyncRequest,
  deps: CompanySyncDependencies,
): Promise<CompanyUserState | undefined> {
  const wanted = request.user.toLowerCase();
  const listed = source.company.users?.find((user) => user.toLowerCase() === wanted);
  if (listed === undefined) return undefined;
  const state: CompanyUserState = { user: listed, state: 'pending', eventsSeen: 0, fromGroup: false };
  await deps.company.putUser(source.calendarId, state);
  return state;
}

export async function syncCompanyUser(
  request: UserSyncRequest,
  deps: CompanySyncDependencies,
): Promise<UserSyncOutcome> {
  const base = { calendar_id: request.calendar_id, user: request.user };
  const stored = (await deps.store.getSource(request.calendar_id)) as StoredCalendarSource | undefined;
  if (stored === undefined || !isCompanySource(stored) || stored.deleting !== undefined)
    return { ...base, outcome: 'skipped', reason: 'no-calendar' };
  const state =
    (await deps.company.getUser(request.calendar_id, request.user)) ?? (await listedUser(stored, request, deps));
  if (state === undefined) return { ...base, outcome: 'skipped', reason: 'not-a-user' };
  const now = deps.now();
  if (state.backoffUntil !== undefined && Date.parse(state.backoffUntil) > now)
    return { ...base, outcome: 'skipped', reason: 'backing-off' };
  const lease = await deps.company.takeUserLease(request.calendar_id, request.user, now, USER_SYNC_LEASE_MS);
  if (lease === undefined) return { ...base, outcome: 'skipped', reason: 'in-progress' };
  const provider = stored.company.provider;
  try {
    // Read again under the lease: a DELETE that marked the source meanwhile must not find new schedules behind it.
    const current = await deps.store.getSource(request.calendar_id);
    if (current === undefined || !isCompanySource(current) || current.deleting !== undefined)
      return { ...base, outcome: 'skipped', reason: 'no-calendar' };
    return await syncUnderLease(stored, state, deps);
  } catch (error) {
    if (error instanceof AccessRevokedError) return await disconnect(stored, state, error, deps);
    if (error instanceof ThrottledError) return await backOff(stored, state, error, deps);
    if (error instanceof ProviderUnavailableError) {
      const reason = reasonOf(error);
      await recordOutcome(stored, state, `failed: ${reason}`, deps);
      deps.telemetry.log.warn('company calendar user sync failed', { ...base, provider, reason });
      return { ...base, outcome: 'failed', reason };
    }
    throw error;
  } finally {
    await deps.company.releaseUserLease(request.calendar_id, request.user, lease);
  }
}

async function syncUnderLease(
  source: CompanyCalendarSource,
  state: CompanyUserState,
  deps: CompanySyncDependencies,
): Promise<UserSyncOutcome> {
  const { calendarId } = source;
  const { user } = state;
  const providerName = source.company.provider;
  const scopeId = userScopeId(calendarId, user);
  const now = deps.now();
  const lookaheadEnd = now + source.lookaheadDays * DAY_MS;
  const provider = await deps.providerFor(source);
  const kept = await deps.company.getKept(scopeId);

  const { changes, window, replaced } = await listChanges(provider, user, kept, now, lookaheadEnd, deps.telemetry);
  deps.telemetry.metrics.emit(METRICS.calendarProviderCalls, changes.calls, { provider: providerName });

  // Applied by item id: a full listing replaces what was kept (so nothing doubles), an incremental one edits it.
  const items = new Map<string, ProviderItem>(replaced ? [] : (kept?.items ?? []).map((item) => [item.id, item]));
  for (const id of changes.removed) items.delete(id);
  for (const item of changes.items) {
    if (item.occurrence.cancelled) items.delete(item.id);
    else items.set(item.id, item);
  }
  let current = currentItems(items.values(), now);
  const limits: LimitReached[] = [];
  const problems: string[] = [];
  const cut = changes.truncated || current.length > PROVIDER_LIMITS.itemsPerUser;
  if (cut) {
    limits.push({
      limit: 'items-per-user',
      reason: `the calendar lists more instances than the ${PROVIDER_LIMITS.itemsPerUser} kept per user: the soonest are kept, and the rest listed again at the next (full) sync`,
    });
    current = current.slice(0, PROVIDER_LIMITS.itemsPerUser);
  }
  // What the provider could not read in full (Graph: series whose master was not fetched) is missing too.
  const providerLimits = changes.limits ?? [];
  limits.push(...providerLimits);
  problems.push(...(changes.problems ?? []));
  // A cut listing, or kept instances cut to the limit, keep no cursor: what was left out is listed again in
  // full, never lost to an incremental listing that would not name it again.
  const cursor = cut || providerLimits.length > 0 ? undefined : changes.cursor;
  if (!(await deps.company.putKept(scopeId, { items: current, cursor, window })))
    problems.push('the kept instances are too large to keep: the next sync lists this calendar in full again');

  const rules = userRules(source.rules, user);
  const capped = capListing(
    current.filter((item) => Date.parse(item.occurrence.start) <= lookaheadEnd).map((item) => item.occurrence),
    new Set(rules.owner_emails),
    deps.expansionLimits,
  );
  const result = await reconcileOccurrences(
    { scopeId, calendarId, rules, botName: source.botName, lookaheadDays: source.lookaheadDays },
    {
      occurrences: capped.occurrences,
      // Missing from a cut listing is not gone from the calendar.
      partial: { feed: limits.length > 0, uids: capped.partialUids },
      problems,
      limits: [...limits, ...capped.limits],
      notModified: false,
      events: current.length,
    },
    deps,
    companyUserBudget(
      scopeId,
      calendarId,
      deps.scheduleLimits,
      deps.sourceSchedulesPerDay ?? DEFAULT_SOURCE_SCHEDULES_PER_DAY,
      deps.schedules.table,
      now,
    ),
  );

  deps.telemetry.metrics.emit(METRICS.calendarUserSynced, 1, { provider: providerName });
  for (const limit of new Set(result.limits.map((hit) => hit.limit)))
    deps.telemetry.metrics.emit(METRICS.calendarLimitReached, 1, { limit });
  if (result.failed.length > 0) deps.telemetry.metrics.emit(METRICS.calendarOccurrenceFailed, result.failed.length);
  const { problems: _problems, limits: reached, ...counts } = result;
  deps.telemetry.log.info('company calendar user synced', {
    calendar_id: calendarId,
    scope_id: scopeId,
    provider: providerName,
    full: replaced,
    ...counts,
    limits: reached.map((hit) => hit.limit),
  });
  await deps.company.updateUser(
    calendarId,
    user,
    {
      state: 'connected',
      lastSyncAt: new Date(now).toISOString(),
      lastSyncOutcome: summary(result, replaced),
      eventsSeen: current.length,
    },
    ['reason', 'backoffUntil', 'throttledRuns', 'disconnectedAt', 'disconnectPublished'],
  );
  return { calendar_id: calendarId, user, outcome: 'synced', full: replaced, result };
}

/**
 * The user's changes: incremental from the kept cursor while the kept window still
 * covers the lookahead, else (no cursor, the window's end in view, the cursor void)
 * a full listing of a new window, which replaces what was kept.
 */
async function listChanges(
  provider: CalendarProvider,
  user: string,
  kept: KeptItems | undefined,
  now: number,
  lookaheadEnd: number,
  telemetry: Telemetry,
): Promise<{ changes: ChangeSet; window: SyncWindow; replaced: boolean }> {
  if (kept?.cursor !== undefined && Date.parse(kept.window.to) >= lookaheadEnd) {
    try {
      const changes = await provider.listChanges(user, kept.cursor, kept.window, kept.items);
      return { changes, window: kept.window, replaced: changes.full };
    } catch (error) {
      if (!(error instanceof CursorVoidError)) throw error;
      telemetry.log.info('company calendar cursor void: listing in full', { reason: reasonOf(error) });
    }
  }
  const window = {
    from: new Date(now - LISTING_WINDOW.pastMs).toISOString(),
    to: new Date(lookaheadEnd + LISTING_WINDOW.beyondLookaheadMs).toISOString(),
  };
  return { changes: await provider.listChanges(user, undefined, window), window, replaced: true };
}

const summary = (result: SyncResult, full: boolean) =>
  `${full ? 'full' : 'incremental'}: created ${result.created}, moved ${result.moved}, cancelled ${result.cancelled}, unchanged ${result.unchanged}, skipped ${result.skipped}, failed ${result.failed.length}, deferred ${result.deferred}${result.limits.length > 0 ? `, limits: ${[...new Set(result.limits.map((hit) => hit.limit))].join(' ')}` : ''}`;

async function recordOutcome(
  source: CompanyCalendarSource,
  state: CompanyUserState,
  outcome: string,
  deps: CompanySyncDependencies,
  set: Partial<CompanyUserState> = {},
): Promise<void> {
  await deps.company.updateUser(source.calendarId, state.user, {
    ...set,
    lastSyncAt: new Date(deps.now()).toISOString(),
    lastSyncOutcome: outcome,
  });
}

/** Throttled: this user is not asked for again before the provider's wait, doubled for each throttled sync in a row. */
async function backOff(
  source: CompanyCalendarSource,
  state: CompanyUserState,
  error: ThrottledError,
  deps: CompanySyncDependencies,
): Promise<UserSyncOutcome> {
  const provider = source.company.provider;
  const runs = state.throttledRuns ?? 0;
  const waitMs = Math.min(
    THROTTLE_BACKOFF.maxMs,
    Math.max(THROTTLE_BACKOFF.minMs, error.retryAfterMs) * 2 ** Math.min(runs, 20),
  );
  const backoffUntil = new Date(deps.now() + waitMs).toISOString();
  const reason = reasonOf(error);
  deps.telemetry.metrics.emit(METRICS.calendarProviderThrottled, 1, { provider });
  deps.telemetry.metrics.emit(METRICS.calendarProviderCalls, 1, { provider });
  await recordOutcome(source, state, `throttled until ${backoffUntil}: ${reason}`, deps, {
    backoffUntil,
    throttledRuns: runs + 1,
  });
  deps.telemetry.log.warn('company calendar user throttled', {
    calendar_id: source.calendarId,
    user: state.user,
    provider,
    backoff_until: backoffUntil,
  });
  return {
    calendar_id: source.calendarId,
    user: state.user,
    outcome: 'throttled',
    backoff_until: backoffUntil,
    reason,
  };
}

/**
 * The grant is refused: this user (scope `user`) or every user of the source
 * (`source`) is disconnected with the provider's reason. Each user newly
 * disconnected is counted once and announced by one `calendar.disconnected`, named
 * by when it was found (kept with the user), so a failed publish is retried with
 * the same id at the next sync. Schedules stay: a refused grant says nothing about
 * the meetings.
 */
async function disconnect(
  source: CompanyCalendarSource,
  state: CompanyUserState,
  error: AccessRevokedError,
  deps: CompanySyncDependencies,
): Promise<UserSyncOutcome> {
  const { calendarId } = source;
  const provider = source.company.provider;
  const reason = reasonOf(error);
  const at = new Date(deps.now()).toISOString();
  deps.telemetry.metrics.emit(METRICS.calendarProviderCalls, 1, { provider });
  // The first user to find the whole grant refused disconnects every user; each of the others, already
  // disconnected then, answers for itself only (else a run would write users² times).
  const affected =
    error.scope === 'source' && state.state !== 'disconnected' ? await deps.company.listUsers(calendarId) : [state];
  // Each user to announce, with the disconnection that names the event: found now, or earlier and not yet announced.
  const unannounced: Array<{ user: string; reason: string; at: string }> = [];
  let newly = 0;
  for (const user of affected) {
    if (await deps.company.markDisconnected(calendarId, user.user, reason, at)) {
      newly++;
      deps.telemetry.metrics.emit(METRICS.calendarUserDisconnected, 1, { provider });
      unannounced.push({ user: user.user, reason, at });
    } else if (user.state === 'disconnected' && user.disconnectPublished === false && user.disconnectedAt !== undefined)
      unannounced.push({ user: user.user, reason: user.reason ?? reason, at: user.disconnectedAt });
  }
  await recordOutcome(source, state, `disconnected: ${reason}`, deps);
  if (unannounced.length > 0)
    await deps.publisher.publish(
      unannounced.map((user) =>
        domainEvents.calendarDisconnected({
          calendar_id: calendarId,
          user: user.user,
          provider,
          reason: user.reason,
          scope: error.scope,
          disconnected_at: user.at,
        }),
      ),
    );
  for (const user of unannounced) await deps.company.updateUser(calendarId, user.user, { disconnectPublished: true });
  deps.telemetry.log.warn('company calendar disconnected', {
    calendar_id: calendarId,
    user: state.user,
    provider,
    scope: error.scope,
    reason,
    newly_disconnected: newly,
  });
  return {
    calendar_id: calendarId,
    user: state.user,
    outcome: 'disconnected',
    scope: error.scope,
    reason,
    newly_disconnected: newly,
  };
}
