/**
 * What a company calendar is beyond one user's sync: the scheduled run that works
 * out each source's users (the configured list, or the group's members now) and
 * asks for each user's sync on the fan-out queue, the cancelling of every user's
 * schedules when a calendar is deleted, and what the preview and GET /schedules
 * read of each user.
 */
import { type CompanyCalendarSource, isCompanySource, type StoredCalendarSource } from '../calendar-source';
import type { Occurrence } from '../ics-occurrences';
import { cancelCalendarSchedules, type SyncResult } from '../sync-calendar';
import type { CompanyUserState } from './company-store';
import { type CompanySyncDependencies, currentItems, USER_SYNC_LEASE_MS } from './company-sync';
import {
  type CompanySourceConfig,
  PROVIDER_LIMITS,
  type SyncWindow,
  type UserSyncQueue,
  type UserSyncRequest,
} from './provider-contract';
import { userScopeId } from './user-scope';

/** Requests handed to the queue in one send (the queue cuts them into its own batches). */
export const ENQUEUE_BATCH = 100;

export interface CompanyRunResult {
  /** Company sources looked at. */
  sources: number;
  /** Their users after the groups were resolved. */
  users: number;
  /** User syncs asked for. */
  enqueued: number;
  /** Users not asked for: throttled, waiting out their back-off. */
  backing_off: number;
  /** Users new to a source (added to its list or its group): `pending` until synced. */
  added: number;
  /** Users gone from a source: their future schedules cancelled, their items deleted. */
  removed: number;
  /** Sources whose group could not be resolved: their last users were kept and synced. */
  unresolved: Array<{ calendar_id: string; reason: string }>;
  /** Schedules of users gone that could not be cancelled (the user is kept, and removed again at the next run). */
  failed: SyncResult['failed'];
}

/** The group a source's users come from, if any (Google `group`, Microsoft `groupId`). */
const groupOf = (config: CompanySourceConfig): string | undefined =>
  config.provider === 'google' ? config.group : config.groupId;

const key = (user: string) => user.toLowerCase();

/**
 * The scheduled run: for each company source, its users now (a group is resolved at
 * each run; members added become `pending`, members gone are removed), then one
 * sync request per user not backing off.
 */
export async function planCompanySyncs(
  deps: CompanySyncDependencies & { queue: UserSyncQueue },
): Promise<CompanyRunResult> {
  const result: CompanyRunResult = {
    sources: 0,
    users: 0,
    enqueued: 0,
    backing_off: 0,
    added: 0,
    removed: 0,
    unresolved: [],
    failed: [],
  };
  const sources = ((await deps.store.listSources()) as StoredCalendarSource[])
    .filter(isCompanySource)
    .filter((source) => source.deleting === undefined);
  const now = deps.now();
  let requests: UserSyncRequest[] = [];
  for (const source of sources) {
    result.sources++;
    const users = await usersNow(source, result, deps);
    result.users += users.length;
    for (const user of users) {
      if (user.backoffUntil !== undefined && Date.parse(user.backoffUntil) > now) {
        result.backing_off++;
        continue;
      }
      requests.push({ calendar_id: source.calendarId, user: user.user, reason: 'schedule' });
      if (requests.length === ENQUEUE_BATCH) {
        await deps.queue.send(requests);
        result.enqueued += requests.length;
        requests = [];
      }
    }
  }
  if (requests.length > 0) {
    await deps.queue.send(requests);
    result.enqueued += requests.length;
  }
  deps.telemetry.log.info('company calendar syncs planned', { ...result, failed: result.failed.length });
  return result;
}

/** A source's users after adding those new to it and removing those gone from it. */
async function usersNow(
  source: CompanyCalendarSource,
  result: CompanyRunResult,
  deps: CompanySyncDependencies,
): Promise<CompanyUserState[]> {
  const { calendarId } = source;
  const existing = await deps.company.listUsers(calendarId);
  const group = groupOf(source.company);
  let listed: string[];
  if (group === undefined) listed = source.company.users ?? [];
  else {
    try {
      listed = await (await deps.providerFor(source)).resolveGroup(group);
    } catch (error) {
      // Whatever the provider answered, the last members are kept: a group read failing removes no one.
      const reason = error instanceof Error ? `${error.name}: ${error.message}`.slice(0, 500) : String(error);
      result.unresolved.push({ calendar_id: calendarId, reason });
      deps.telemetry.log.warn('company calendar group not resolved', { calendar_id: calendarId, reason });
      return existing;
    }
  }
  const wanted = new Map<string, string>();
  for (const user of listed.slice(0, PROVIDER_LIMITS.membersPerGroup))
    if (!wanted.has(key(user))) wanted.set(key(user), user);
  // A group read to the member cap may have left out anyone, in any order: nobody is removed on its word.
  const cappedGroup = group !== undefined && listed.length >= PROVIDER_LIMITS.membersPerGroup;
  if (cappedGroup) {
    const reason = `the group lists ${PROVIDER_LIMITS.membersPerGroup} members or more: the rest are not read, and no member is removed`;
    result.unresolved.push({ calendar_id: calendarId, reason });
    deps.telemetry.log.warn('company calendar group cut at the member cap', { calendar_id: calendarId });
  }
  const users: CompanyUserState[] = [];
  for (const state of existing) {
    if (wanted.has(key(state.user)) || cappedGroup) {
      users.push(state);
      wanted.delete(key(state.user));
    } else {
      const removal = await removeUser(calendarId, state.user, deps);
      if (removal.removed) result.removed++;
      else result.failed.push(...removal.failed);
    }
  }
  for (const user of wanted.values()) {
    const state: CompanyUserState = { user, state: 'pending', eventsSeen: 0, fromGroup: group !== undefined };
    await deps.company.putUser(calendarId, state);
    users.push(state);
    result.added++;
  }
  return users;
}

/**
 * Cancels a user's future schedules and deletes what is kept of them, under the user's lease (a sync
 * under way would write them again). `busy`: a sync holds the user; `failed`: a schedule could not be
 * cancelled. Either way the user is kept, and removed again at the next run (or DELETE).
 */
async function removeUser(
  calendarId: string,
  user: string,
  deps: CompanyScheduleDependencies,
): Promise<{ removed: true; cancelled: number } | { removed: false; busy: boolean; failed: SyncResult['failed'] }> {
  const lease = await deps.company.takeUserLease(calendarId, user, deps.now(), USER_SYNC_LEASE_MS);
  if (lease === undefined) return { removed: false, busy: true, failed: [] };
  const scopeId = userScopeId(calendarId, user);
  const { cancelled, failed } = await cancelCalendarSchedules(scopeId, deps);
  if (failed.length > 0) {
    await deps.company.releaseUserLease(calendarId, user, lease);
    return { removed: false, busy: false, failed };
  }
  await deps.company.deleteKept(scopeId);
  // The lease goes with the user's item.
  await deps.company.deleteUser(calendarId, user);
  deps.telemetry.log.info('company calendar user removed', { calendar_id: calendarId, scope_id: scopeId, cancelled });
  return { removed: true, cancelled };
}

/**
 * What removing users needs: their store and schedules, never a provider or its
 * credentials (the calendar API function, which deletes calendars, may not read them).
 */
export type CompanyScheduleDependencies = Omit<CompanySyncDependencies, 'providerFor' | 'publisher'>;

/** For DELETE /calendars/{id}: every user's future schedules cancelled, their items deleted. */
export async function cancelCompanyCalendar(
  calendarId: string,
  deps: CompanyScheduleDependencies,
): Promise<{ cancelled: number; failed: SyncResult['failed'] }> {
  const outcome = { cancelled: 0, failed: [] as SyncResult['failed'] };
  for (const state of await deps.company.listUsers(calendarId)) {
    const removal = await removeUser(calendarId, state.user, deps);
    if (removal.removed) outcome.cancelled += removal.cancelled;
    else if (removal.busy)
      outcome.failed.push({
        schedule_id: userScopeId(calendarId, state.user),
        start: new Date(deps.now()).toISOString(),
        reason: 'sync-in-progress: a sync of this user is under way; try again shortly',
      });
    else outcome.failed.push(...removal.failed);
  }
  return outcome;
}

/** For the preview: a user's kept instances not yet ended, soonest first, and the window they were listed over. */
export async function keptOccurrences(
  calendarId: string,
  user: string,
  deps: Pick<CompanySyncDependencies, 'company' | 'now'>,
): Promise<{ scopeId: string; window: SyncWindow | undefined; occurrences: Occurrence[] }> {
  const scopeId = userScopeId(calendarId, user);
  const kept = await deps.company.getKept(scopeId);
  return {
    scopeId,
    window: kept?.window,
    occurrences: currentItems(kept?.items ?? [], deps.now()).map((item) => item.occurrence),
  };
}

/** For GET /schedules: each user of the calendar with the scope their entries are kept under. */
export async function listUserScopes(
  calendarId: string,
  deps: Pick<CompanySyncDependencies, 'company'>,
): Promise<Array<{ user: string; scopeId: string }>> {
  return (await deps.company.listUsers(calendarId)).map((state) => ({
    user: state.user,
    scopeId: userScopeId(calendarId, state.user),
  }));
}
