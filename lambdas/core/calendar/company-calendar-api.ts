/**
 * The calendar routes for a company source (Google Workspace, Microsoft 365): what
 * differs from an ICS feed. Its users are synced one by one by the per-user sync
 * (company/), which these routes reach through CompanyCalendarApi only: they show
 * each user's state, ask for syncs on the user-sync queue, preview what each user's
 * kept occurrences decide, and on delete cancel every user's schedules and retire the
 * push channels (stopped at the provider by the next renewal run, which holds the credentials).
 *
 * The credentials secret is named, never read: the sync functions alone may read
 * secrets, and only under the configured prefix, so a name outside it is refused here
 * rather than failing later at every sync.
 */
import { apiError } from '../api-error';
import { utcTimestamp } from '../text/utc-timestamp';
import {
  COMPANY_USERS,
  type CompanyCalendarSource,
  DEFAULT_CREDENTIALS_SECRET_PREFIX,
  secretNameOf,
} from './calendar-source';
import { type CompanyScheduleDependencies, cancelCompanyCalendar, keptOccurrences } from './company/company-run';
import { userRules } from './company/company-sync';
import {
  AccessRevokedError,
  type CompanySourceConfig,
  ProviderUnavailableError,
  ThrottledError,
  type UserSyncQueue,
} from './company/provider-contract';
import { pushChannelStore } from './company/push/push-store';
import { retireCalendarChannels } from './company/push/reconcile-subscriptions';
import { userScopeId } from './company/user-scope';
import type { Occurrence } from './ics-occurrences';
import { previewRow } from './preview-row';
import { type RecentOutcomes, sumRecentOutcomes } from './recent-outcomes';

/** One user of a company source as the per-user sync records it (company/company-store.ts). */
export interface CompanyUserStateView {
  user: string;
  state: 'pending' | 'connected' | 'disconnected';
  /** Why the user is disconnected: the provider's words. */
  reason?: string;
  lastSyncAt?: string;
  lastSyncOutcome?: string;
  eventsSeen: number;
  /** Until when the user is not asked for again after throttling (ISO time or epoch ms). */
  backoffUntil?: string | number;
  fromGroup: boolean;
}

/** What the calendar routes need of the per-user sync (company/); wired in by each deployment. */
export interface CompanyCalendarApi {
  /** Every user the store has a state for (company-store.ts listUsers). */
  listUsers(calendarId: string): Promise<CompanyUserStateView[]>;
  /** The id a user's entries and schedules live under (user-scope.ts userScopeId). */
  userScopeId(calendarId: string, user: string): string;
  /** The members of the source's group as the last scheduled run resolved them. */
  resolveGroup(source: CompanyCalendarSource): Promise<string[]>;
  /** The occurrences the user's last sync kept, not yet ended (company-run.ts keptOccurrences); none before the first. */
  keptOccurrences(calendarId: string, user: string): Promise<{ scopeId: string; occurrences: Occurrence[] }>;
  /** Cancels every user's schedules and drops their entries, kept items and states (company-run.ts). */
  cancelCompanyCalendar(calendarId: string): Promise<{ cancelled: number; failed: Array<{ reason: string }> }>;
  /** Hands the calendar's push channels to the renewal run to stop (reconcile-subscriptions.ts); how many. */
  retireChannels(source: CompanyCalendarSource): Promise<number>;
}

/**
 * The routes' view of the per-user sync, over its real functions (company/company-run.ts).
 * A group's members are those the last scheduled run resolved: resolving it again
 * would need the source's credentials, which only the sync functions may read.
 */
export function companyCalendarApi(deps: CompanyScheduleDependencies): CompanyCalendarApi {
  const channels = pushChannelStore(deps.schedules.table);
  return {
    listUsers: (calendarId) => deps.company.listUsers(calendarId),
    userScopeId,
    resolveGroup: async (source) =>
      (await deps.company.listUsers(source.calendarId)).filter((state) => state.fromGroup).map((state) => state.user),
    keptOccurrences: (calendarId, user) => keptOccurrences(calendarId, user, deps),
    cancelCompanyCalendar: (calendarId) => cancelCompanyCalendar(calendarId, deps),
    retireChannels: (source) => retireCalendarChannels(source, { channels }),
  };
}

/** The company part of the calendar API's dependencies. */
export interface CompanyApiDependencies {
  /** Absent: this deployment syncs ICS feeds only, and company sources are refused. */
  companyCalendars?: CompanyCalendarApi;
  /** Where POST /calendars/{id}/sync asks for each user's sync (the fan-out queue). */
  userSyncQueue?: UserSyncQueue;
  /** Credentials secrets must be named under this prefix; DEFAULT_CREDENTIALS_SECRET_PREFIX unless set. */
  credentialsSecretPrefix?: string;
  /** Users one source may list; COMPANY_USERS.default unless set. */
  maxUsersPerSource?: number;
  now(): number;
}

interface Answer {
  status: number;
  body: unknown;
}

const error = (status: number, code: string, message: string): Answer => ({ status, body: apiError(code, message) });

/** The stored user list's size at most: the source is one table item, and an item holds 400 KB. */
export const USERS_LIST_MAX_BYTES = 256 * 1024;

/** Users previewed in one answer without `?user=`: each is a read, and the answer must stay small. */
export const PREVIEW_USERS_PER_ANSWER = 50;

/** Why the source's configuration cannot be stored, or undefined when it can. */
export function refuseCompanySource(config: CompanySourceConfig, deps: CompanyApiDependencies): Answer | undefined {
  if (deps.companyCalendars === undefined)
    return error(
      501,
      'company-calendars-unavailable',
      'This deployment syncs ICS feeds only: it has no company calendar sync.',
    );
  const prefix = deps.credentialsSecretPrefix ?? DEFAULT_CREDENTIALS_SECRET_PREFIX;
  if (!secretNameOf(config.credentialsSecret).startsWith(prefix))
    return error(
      400,
      'invalid-calendar',
      `${config.provider}.credentials_secret: the secret's name must start with "${prefix}": the sync functions may read secrets under that prefix only`,
    );
  const max = deps.maxUsersPerSource ?? COMPANY_USERS.default;
  const bytes = Buffer.byteLength(JSON.stringify(config.users ?? []));
  if (bytes > USERS_LIST_MAX_BYTES)
    return error(
      400,
      'invalid-calendar',
      `${config.provider}.users: the list takes ${bytes} bytes; at most ${USERS_LIST_MAX_BYTES} fit in the calendar's record (use a group)`,
    );
  if (config.users !== undefined && config.users.length > max)
    return error(
      400,
      'invalid-calendar',
      `${config.provider}.users: ${config.users.length} distinct users; a source lists at most ${max} (split them over several sources, or use a group)`,
    );
  return undefined;
}

/** The source's configuration as a caller may see it: everything but credentials, which it never holds. */
function configView(config: CompanySourceConfig) {
  if (config.provider === 'google')
    return {
      credentials_secret: config.credentialsSecret,
      ...(config.users !== undefined && { users: config.users }),
      ...(config.group !== undefined && { group: config.group }),
      ...(config.adminEmail !== undefined && { admin_email: config.adminEmail }),
    };
  return {
    tenant_id: config.tenantId,
    client_id: config.clientId,
    credentials_secret: config.credentialsSecret,
    ...(config.users !== undefined && { users: config.users }),
    ...(config.groupId !== undefined && { group_id: config.groupId }),
  };
}

/**
 * The users a source shows: a listed source's users, each with its state or pending
 * before its first sync; a group's members as the last syncs found them; and any
 * other user the store still holds (taken off the list, its schedules not yet gone).
 */
async function knownUsers(source: CompanyCalendarSource, company: CompanyCalendarApi): Promise<CompanyUserStateView[]> {
  const stored = await company.listUsers(source.calendarId);
  const byUser = new Map(stored.map((state) => [state.user.toLowerCase(), state]));
  const listed = (source.company.users ?? []).map(
    (user): CompanyUserStateView =>
      byUser.get(user.toLowerCase()) ?? { user, state: 'pending', eventsSeen: 0, fromGroup: false },
  );
  const named = new Set(listed.map((state) => state.user.toLowerCase()));
  return [...listed, ...stored.filter((state) => !named.has(state.user.toLowerCase()))];
}

const userView = (state: CompanyUserStateView) => ({
  user: state.user,
  state: state.state,
  reason: state.state === 'disconnected' ? (state.reason ?? null) : null,
  last_sync: state.lastSyncAt === undefined ? null : utcTimestamp(state.lastSyncAt),
  last_sync_outcome: state.lastSyncOutcome ?? null,
  events_seen: state.eventsSeen,
  backoff_until: state.backoffUntil === undefined ? null : utcTimestamp(state.backoffUntil),
});

/** Users whose recent outcomes one answer reads: each is a Query and two batch reads. */
export const RECENT_OUTCOME_USERS_PER_ANSWER = 50;
/** Users whose recent outcomes are read at once. */
const OUTCOME_USERS_READ_AT_ONCE = 8;

/**
 * Each user's recent outcomes (null past the first RECENT_OUTCOME_USERS_PER_ANSWER), and their sum,
 * complete only when every user was read whole.
 */
async function usersRecentOutcomes(
  source: CompanyCalendarSource,
  users: readonly CompanyUserStateView[],
  company: CompanyCalendarApi | undefined,
  recent: (scopeId: string) => Promise<RecentOutcomes>,
  now: number,
): Promise<{ byUser: Array<RecentOutcomes | null>; total: RecentOutcomes }> {
  const byUser: Array<RecentOutcomes | null> = users.map(() => null);
  if (company !== undefined) {
    const read = Math.min(users.length, RECENT_OUTCOME_USERS_PER_ANSWER);
    for (let at = 0; at < read; at += OUTCOME_USERS_READ_AT_ONCE) {
      const batch = users
        .slice(at, Math.min(read, at + OUTCOME_USERS_READ_AT_ONCE))
        .map((state) => recent(company.userScopeId(source.calendarId, state.user)));
      (await Promise.all(batch)).forEach((report, i) => {
        byUser[at + i] = report;
      });
    }
  }
  const shown = byUser.filter((report): report is RecentOutcomes => report !== null);
  const total = sumRecentOutcomes(shown, now);
  total.complete &&= shown.length === users.length;
  return { byUser, total };
}

export async function companyView(
  source: CompanyCalendarSource,
  deps: CompanyApiDependencies,
  recent: (scopeId: string) => Promise<RecentOutcomes>,
) {
  const users = deps.companyCalendars === undefined ? [] : await knownUsers(source, deps.companyCalendars);
  const count = (state: CompanyUserStateView['state']) => users.filter((user) => user.state === state).length;
  const outcomes = await usersRecentOutcomes(source, users, deps.companyCalendars, recent, deps.now());
  return {
    calendar_id: source.calendarId,
    provider: source.company.provider,
    [source.company.provider]: configView(source.company),
    rules: source.rules,
    bot_name: source.botName,
    lookahead_days: source.lookaheadDays,
    created_at: utcTimestamp(source.createdAt),
    updated_at: utcTimestamp(source.updatedAt),
    users: users.map((state, i) => ({ ...userView(state), recent_outcomes: outcomes.byUser[i] ?? null })),
    totals: {
      users: users.length,
      pending: count('pending'),
      connected: count('connected'),
      disconnected: count('disconnected'),
      events_seen: users.reduce((sum, user) => sum + user.eventsSeen, 0),
      recent_outcomes: outcomes.total,
    },
  };
}

/** A provider's refusal to list a group, as an answer naming why. */
function providerProblem(problem: unknown): Answer | undefined {
  if (problem instanceof AccessRevokedError)
    return error(502, 'provider-refused', `The provider refused to list the group: ${problem.reason}`);
  if (problem instanceof ThrottledError)
    return error(
      503,
      'provider-throttled',
      `The provider is throttling; try again in ${Math.ceil(problem.retryAfterMs / 1000)} s.`,
    );
  if (problem instanceof ProviderUnavailableError)
    return error(502, 'provider-unavailable', `The provider did not answer: ${problem.message}`);
  return undefined;
}

/** Every user of the source now: its list, or its group's members read from the provider. */
async function usersToSync(
  source: CompanyCalendarSource,
  company: CompanyCalendarApi,
): Promise<{ users: string[] } | { answer: Answer }> {
  if (source.company.users !== undefined) return { users: source.company.users };
  try {
    return { users: await company.resolveGroup(source) };
  } catch (problem) {
    const answer = providerProblem(problem);
    if (answer === undefined) throw problem;
    return { answer };
  }
}

/** POST /calendars/{id}/sync: every user's sync asked for now; the syncs run on the queue's consumers. */
export async function syncCompanyNow(source: CompanyCalendarSource, deps: CompanyApiDependencies): Promise<Answer> {
  if (deps.companyCalendars === undefined || deps.userSyncQueue === undefined)
    return error(501, 'company-calendars-unavailable', 'This deployment has no company calendar sync.');
  const found = await usersToSync(source, deps.companyCalendars);
  if ('answer' in found) return found.answer;
  await deps.userSyncQueue.send(
    found.users.map((user) => ({ calendar_id: source.calendarId, user, reason: 'manual' })),
  );
  return { status: 202, body: { calendar_id: source.calendarId, enqueued: found.users.length } };
}

const DAY_MS = 86_400_000;

/** GET /calendars/{id}/preview: per user, what the rules decide over the occurrences its last sync kept. */
export async function previewCompany(
  source: CompanyCalendarSource,
  days: number,
  onlyUser: string | undefined,
  deps: CompanyApiDependencies,
): Promise<Answer> {
  const company = deps.companyCalendars;
  if (company === undefined)
    return error(501, 'company-calendars-unavailable', 'This deployment has no company calendar sync.');
  const known = await knownUsers(source, company);
  const chosen =
    onlyUser === undefined ? known : known.filter((state) => state.user.toLowerCase() === onlyUser.toLowerCase());
  if (onlyUser !== undefined && chosen.length === 0)
    return error(404, 'not-found', `Calendar ${source.calendarId} has no user ${onlyUser}.`);
  const now = deps.now();
  const until = now + days * DAY_MS;
  const users = [];
  for (const state of chosen.slice(0, PREVIEW_USERS_PER_ANSWER)) {
    const rules = userRules(source.rules, state.user);
    const kept = await company.keptOccurrences(source.calendarId, state.user);
    const occurrences = kept.occurrences
      .filter((occurrence) => Date.parse(occurrence.start) >= now && Date.parse(occurrence.start) < until)
      .sort((a, b) => a.start.localeCompare(b.start))
      .map((occurrence) => previewRow(occurrence, rules, kept.scopeId));
    users.push({ user: state.user, state: state.state, occurrences });
  }
  return {
    status: 200,
    body: {
      calendar_id: source.calendarId,
      days,
      users,
      // More users than one answer holds: each can be previewed with ?user=.
      users_not_shown: Math.max(0, chosen.length - PREVIEW_USERS_PER_ANSWER),
    },
  };
}

/** The scope ids whose entries GET /schedules lists: every known user's. */
export async function companyScopes(
  source: CompanyCalendarSource,
  deps: CompanyApiDependencies,
): Promise<Array<{ user: string; scopeId: string }>> {
  const company = deps.companyCalendars;
  if (company === undefined) return [];
  return (await knownUsers(source, company)).map((state) => ({
    user: state.user,
    scopeId: company.userScopeId(source.calendarId, state.user),
  }));
}
