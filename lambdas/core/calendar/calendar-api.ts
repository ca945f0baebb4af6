/**
 * The calendar routes, Lambda-free: list the calendars, register, read and delete one,
 * sync it now, preview its decisions, and list its schedules. Answers are status and body;
 * the adapter turns them into HTTP. The feed address is answered masked only.
 * A company source (Google Workspace, Microsoft 365) takes the same routes; what
 * differs for it is in company-calendar-api.ts.
 */

import { apiError } from '../api-error';
import { isLoopbackHost } from '../archive/address-policy';
import {
  DownloadCutOffError,
  DownloadFailedError,
  DownloadRefusedError,
  LinkExpiredError,
} from '../archive/download-guard';
import { getSchedule } from '../schedule/schedules';
import { METRICS, type Telemetry } from '../telemetry';
import { utcTimestamp } from '../text/utc-timestamp';
import { describeIssues } from '../validation';
import { loadOccurrences } from './calendar-feed';
import type { LimitReached } from './calendar-limits';
import {
  anyCalendarRequestSchema,
  CALENDAR_ID,
  type CalendarSource,
  type CompanyCalendarSource,
  isCompanySource,
  LOOKAHEAD_DAYS,
  maskIcsUrl,
  type ParsedCalendarRequest,
  type StoredCalendarSource,
  sourceOfRequest,
} from './calendar-source';
import { type CalendarEntry, entryScheduleId } from './calendar-store';
import {
  type CompanyApiDependencies,
  companyScopes,
  companyView,
  previewCompany,
  refuseCompanySource,
  syncCompanyNow,
} from './company-calendar-api';
import { previewRow } from './preview-row';
import { recentOutcomeDependencies, recentOutcomes } from './recent-outcomes';
import { cancelCalendarSchedules, type SyncDependencies, type SyncResult, syncCalendar } from './sync-calendar';

/** Route keys, shared by the stack (IAM-authorized routes) and local mode. */
export const CALENDAR_API_ROUTES = {
  list: 'GET /calendars',
  put: 'PUT /calendars/{id}',
  get: 'GET /calendars/{id}',
  delete: 'DELETE /calendars/{id}',
  sync: 'POST /calendars/{id}/sync',
  preview: 'GET /calendars/{id}/preview',
  schedules: 'GET /schedules',
} as const;

export interface CalendarApiDependencies extends SyncDependencies, CompanyApiDependencies {
  telemetry: Telemetry;
  /** Local mode: a feed on this machine may be plain http. */
  allowLoopback: boolean;
}

export interface Answer {
  status: number;
  body: unknown;
}

/** An error answer in the shape of every route (lambdas/core/api-error.ts). */
const error = (status: number, code: string, message: string, extra?: { issues?: string[] }): Answer => ({
  status,
  body: apiError(code, message, extra),
});

/** A sync holds its calendar this long at most (the sync function's timeout is shorter). */
export const SYNC_LEASE_MS = 5 * 60_000;

async function icsView(source: CalendarSource, deps: CalendarApiDependencies) {
  return {
    calendar_id: source.calendarId,
    ics_url: source.maskedIcsUrl,
    rules: source.rules,
    bot_name: source.botName,
    lookahead_days: source.lookaheadDays,
    created_at: utcTimestamp(source.createdAt),
    updated_at: utcTimestamp(source.updatedAt),
    last_sync: source.lastSync === undefined ? null : { ...source.lastSync, at: utcTimestamp(source.lastSync.at) },
    recent_outcomes: await recentOutcomes(source.calendarId, recentOutcomeDependencies(deps)),
  };
}

/** What GET and PUT answer about a calendar. */
const view = async (source: StoredCalendarSource, deps: CalendarApiDependencies) =>
  isCompanySource(source)
    ? companyView(source, deps, (scopeId) => recentOutcomes(scopeId, recentOutcomeDependencies(deps)))
    : icsView(source, deps);

/** What kind of source this is (a stored one or a request), for the refusal of a change of kind. */
const kindOf = (source: StoredCalendarSource | ParsedCalendarRequest) =>
  'company' in source ? `a ${source.company.provider} source` : 'an ICS feed';

const badId = (id: string) =>
  CALENDAR_ID.test(id)
    ? undefined
    : error(400, 'invalid-calendar-id', 'A calendar id is 1–100 letters, digits, ".", "_" or "-".');

export async function putCalendar(id: string, body: unknown, deps: CalendarApiDependencies): Promise<Answer> {
  const refused = badId(id);
  if (refused !== undefined) return refused;
  const parsed = anyCalendarRequestSchema.safeParse(body);
  if (!parsed.success) {
    const issues = describeIssues(parsed.error, '(body)');
    return error(400, 'invalid-calendar', issues.join('; '), { issues });
  }
  const request = sourceOfRequest(parsed.data);
  let url: URL | undefined;
  if (request.kind === 'ics') {
    url = new URL(request.ics_url);
    if (url.protocol !== 'https:' && !(deps.allowLoopback && isLoopbackHost(url.hostname)))
      return error(400, 'invalid-calendar', 'ics_url: must be an https address (webcal:// feeds are https:// too)');
  } else {
    const refusal = refuseCompanySource(request.company, deps);
    if (refusal !== undefined) return refusal;
  }
  const existing = await deps.store.getSource(id);
  // Entries and schedules live under the calendar id (ICS) or under each user's scope (company),
  // and a provider's cursors mean nothing to another: a changed kind would orphan them all.
  if (existing !== undefined && kindOf(existing) !== kindOf(request))
    return error(
      409,
      'calendar-kind-change',
      `Calendar ${id} is ${kindOf(existing)}; it cannot become ${kindOf(request)}, or its schedules would be orphaned. Delete it first (its schedules are cancelled), or use another id.`,
    );
  const now = new Date(deps.now()).toISOString();
  const kept = {
    calendarId: id,
    rules: request.rules,
    botName: request.bot_name,
    lookaheadDays: request.lookahead_days,
    createdAt: existing?.createdAt ?? now,
    updatedAt: now,
    ...(existing?.lastSync !== undefined && { lastSync: existing.lastSync }),
  };
  const source: StoredCalendarSource =
    request.kind === 'ics'
      ? {
          ...kept,
          sealedIcsUrl: await deps.sealer.seal(request.ics_url, id),
          maskedIcsUrl: maskIcsUrl(request.ics_url),
        }
      : { ...kept, kind: 'company', company: request.company };
  await deps.store.putSource(source);
  deps.telemetry.log.info(
    'calendar saved',
    url === undefined
      ? { calendar_id: id, provider: isCompanySource(source) ? source.company.provider : 'ics' }
      : { calendar_id: id, ics_host: url.host },
  );
  return { status: existing === undefined ? 201 : 200, body: await view(source, deps) };
}

/** One calendar in GET /calendars: what tells it apart; GET /calendars/{id} has the rest (a company source's users). */
function listRow(source: StoredCalendarSource) {
  return {
    calendar_id: source.calendarId,
    source: isCompanySource(source) ? source.company.provider : 'ics',
    bot_name: source.botName,
    lookahead_days: source.lookaheadDays,
    updated_at: utcTimestamp(source.updatedAt),
    last_sync: source.lastSync === undefined ? null : { ...source.lastSync, at: utcTimestamp(source.lastSync.at) },
  };
}

/** Every registered calendar, by id. */
export async function listCalendars(deps: CalendarApiDependencies): Promise<Answer> {
  const sources = await deps.store.listSources();
  sources.sort((a, b) => a.calendarId.localeCompare(b.calendarId));
  return { status: 200, body: { calendars: sources.map(listRow) } };
}

export async function getCalendar(id: string, deps: CalendarApiDependencies): Promise<Answer> {
  const source = await deps.store.getSource(id);
  return source === undefined
    ? error(404, 'not-found', `No calendar ${id}.`)
    : { status: 200, body: await view(source, deps) };
}

export async function deleteCalendar(id: string, deps: CalendarApiDependencies): Promise<Answer> {
  const source = await deps.store.getSource(id);
  if (source === undefined) return error(404, 'not-found', `No calendar ${id}.`);
  // A company source is marked first: syncs still queued for its users then skip it (company-sync.ts).
  if (isCompanySource(source) && source.deleting === undefined)
    await deps.store.putSource({ ...source, deleting: new Date(deps.now()).toISOString() });
  // An ICS feed's sync holds the calendar's lease: a delete takes it too, or a sync already past its
  // read would make schedules after the cancel below, for a calendar that no longer exists.
  // (A company source's users are each taken under their own lease by cancelCompanyCalendar.)
  const leased = !isCompanySource(source);
  const lease = leased ? await deps.store.takeSyncLease(id, deps.now(), SYNC_LEASE_MS) : undefined;
  if (leased && lease === undefined)
    return error(409, 'sync-in-progress', `Calendar ${id} is being synced; try again shortly.`);
  let cancelled: number;
  try {
    const outcome = await cancelAll(source, deps);
    if (outcome.failed.length > 0)
      return error(
        409,
        'schedules-not-cancelled',
        `${outcome.failed.length} schedule(s) could not be cancelled: ${outcome.failed.map((f) => f.reason).join('; ')}`,
      );
    cancelled = outcome.cancelled;
    // Its push channels: no notification is taken from here on, and the next renewal run stops them.
    if (isCompanySource(source)) await deps.companyCalendars?.retireChannels(source);
    await deps.store.deleteSource(id);
  } finally {
    // Once the item is gone this changes nothing (the lease went with it).
    if (lease !== undefined) await deps.store.releaseSyncLease(id, lease);
  }
  deps.telemetry.log.info('calendar deleted', { calendar_id: id, cancelled });
  return { status: 200, body: { calendar_id: id, deleted: true, cancelled } };
}

/** Cancels the schedules of an ICS feed, or of every user of a company source. */
async function cancelAll(
  source: StoredCalendarSource,
  deps: CalendarApiDependencies,
): Promise<{ cancelled: number; failed: Array<{ reason: string }> }> {
  if (!isCompanySource(source)) return cancelCalendarSchedules(source.calendarId, deps);
  if (deps.companyCalendars === undefined)
    return { cancelled: 0, failed: [{ reason: 'this deployment has no company calendar sync to cancel them with' }] };
  return deps.companyCalendars.cancelCompanyCalendar(source.calendarId);
}

/** A feed that could not be fetched or read, as an answer naming why (never the address); a cut-off is counted. */
function feedProblem(problem: unknown, telemetry: Telemetry): Answer | undefined {
  if (problem instanceof DownloadCutOffError)
    telemetry.metrics.emit(METRICS.downloadCutOff, 1, { reason: problem.reason });
  if (problem instanceof DownloadRefusedError) return error(400, 'feed-refused', problem.message);
  if (problem instanceof LinkExpiredError || problem instanceof DownloadFailedError)
    return error(502, 'feed-unavailable', `${problem.message}; the feed is tried again at the next sync`);
  return undefined;
}

/** One data point per limit a sync reached (the alarm CalendarLimitsReached watches them all). */
function countLimits(limits: LimitReached[], telemetry: Telemetry): void {
  for (const limit of new Set(limits.map((hit) => hit.limit)))
    telemetry.metrics.emit(METRICS.calendarLimitReached, 1, { limit });
}

/** Syncs one calendar under its lease; used by the route and the scheduled sync alike. */
export async function runSync(
  source: CalendarSource,
  deps: CalendarApiDependencies,
): Promise<{ ok: true; result: SyncResult } | { ok: false; answer: Answer }> {
  const id = source.calendarId;
  const lease = await deps.store.takeSyncLease(id, deps.now(), SYNC_LEASE_MS);
  if (lease === undefined)
    return { ok: false, answer: error(409, 'sync-in-progress', `Calendar ${id} is being synced; try again shortly.`) };
  const at = new Date(deps.now()).toISOString();
  try {
    const result = await syncCalendar(source, deps);
    const { problems, limits, ...counts } = result;
    deps.telemetry.log.info('calendar synced', {
      calendar_id: id,
      ...counts,
      problems: problems.length,
      limits: limits.map((hit) => hit.limit),
    });
    countLimits(limits, deps.telemetry);
    if (result.failed.length > 0) deps.telemetry.metrics.emit(METRICS.calendarOccurrenceFailed, result.failed.length);
    await deps.store.recordSync(
      id,
      at,
      `created ${result.created}, moved ${result.moved}, cancelled ${result.cancelled}, unchanged ${result.unchanged}, skipped ${result.skipped}, failed ${result.failed.length}, deferred ${result.deferred}${result.limits.length > 0 ? `, limits: ${[...new Set(result.limits.map((hit) => hit.limit))].join(' ')}` : ''}`,
    );
    return { ok: true, result };
  } catch (problem) {
    const answer = feedProblem(problem, deps.telemetry);
    if (answer === undefined) throw problem;
    deps.telemetry.log.warn('calendar sync failed', {
      calendar_id: id,
      reason: (answer.body as { error: { message: string } }).error.message,
    });
    await deps.store.recordSync(id, at, `failed: ${(answer.body as { error: { message: string } }).error.message}`);
    return { ok: false, answer };
  } finally {
    await deps.store.releaseSyncLease(id, lease);
  }
}

/** 200 with the sync's outcome for an ICS feed; 202 for a company source, whose users sync on the queue. */
export async function syncNow(id: string, deps: CalendarApiDependencies): Promise<Answer> {
  const source = await deps.store.getSource(id);
  if (source === undefined) return error(404, 'not-found', `No calendar ${id}.`);
  // The ICS sync never runs on a company source.
  if (isCompanySource(source)) return syncCompanyNow(source, deps);
  const outcome = await runSync(source, deps);
  return outcome.ok ? { status: 200, body: outcome.result } : outcome.answer;
}

export async function previewCalendar(
  id: string,
  daysParam: string | undefined,
  deps: CalendarApiDependencies,
  user?: string,
): Promise<Answer> {
  const source = await deps.store.getSource(id);
  if (source === undefined) return error(404, 'not-found', `No calendar ${id}.`);
  const days = daysParam === undefined ? source.lookaheadDays : Number(daysParam);
  if (!Number.isInteger(days) || days < 1 || days > LOOKAHEAD_DAYS.max)
    return error(400, 'invalid-days', `days: a whole number of days from 1 to ${LOOKAHEAD_DAYS.max}`);
  if (isCompanySource(source)) return previewCompany(source, days, user, deps);
  let loaded: Awaited<ReturnType<typeof loadOccurrences>>;
  try {
    loaded = await loadOccurrences(source, days, deps);
  } catch (problem) {
    const answer = feedProblem(problem, deps.telemetry);
    if (answer === undefined) throw problem;
    return answer;
  }
  const occurrences = loaded.occurrences.map((occurrence) => previewRow(occurrence, source.rules, id));
  // The schedule limits (per sync, per day) apply when syncing; a preview decides nothing.
  return {
    status: 200,
    body: { calendar_id: id, days, occurrences, problems: loaded.problems, limits: loaded.limits },
  };
}

/** One schedule row of GET /schedules: the entry, and its schedule as it stands. */
async function scheduleRow(entry: CalendarEntry, deps: CalendarApiDependencies) {
  const id = entryScheduleId(entry);
  const schedule = await getSchedule(id, deps.schedules);
  return {
    id,
    join_at: utcTimestamp(schedule?.joinAt ?? entry.slot.start),
    meeting_url: schedule?.meetingUrl ?? entry.slot.meetingUrl,
    status: schedule?.status ?? 'cancelled',
    title: entry.title,
    ...(entry.state === 'duplicate' && { covered_by_another_calendar: true }),
  };
}

/** Users whose schedules GET /schedules reads at once. */
const USERS_READ_AT_ONCE = 8;

/** Each user's rows, in the user's name: a company source's entries live under each user's scope. */
async function companyScheduleRows(
  source: CompanyCalendarSource,
  user: string | undefined,
  deps: CalendarApiDependencies,
) {
  const scopes = (await companyScopes(source, deps)).filter(
    (scope) => user === undefined || scope.user.toLowerCase() === user.toLowerCase(),
  );
  const rows = [];
  // A few users at a time: a source may have a thousand, each a query and a read per schedule.
  for (let at = 0; at < scopes.length; at += USERS_READ_AT_ONCE) {
    const batch = scopes.slice(at, at + USERS_READ_AT_ONCE).map(async (scope) => {
      const mine = [];
      for (const entry of await deps.store.listEntries(scope.scopeId))
        mine.push({ ...(await scheduleRow(entry, deps)), user: scope.user });
      return mine;
    });
    for (const mine of await Promise.all(batch)) rows.push(...mine);
  }
  return rows;
}

export async function listCalendarSchedules(
  calendarId: string | undefined,
  deps: CalendarApiDependencies,
  user?: string,
): Promise<Answer> {
  if (calendarId === undefined || calendarId === '')
    return error(400, 'missing-calendar-id', 'Name the calendar: GET /schedules?calendar_id=<id>.');
  const source = await deps.store.getSource(calendarId);
  if (source === undefined) return error(404, 'not-found', `No calendar ${calendarId}.`);
  const schedules = [];
  if (isCompanySource(source)) schedules.push(...(await companyScheduleRows(source, user, deps)));
  else for (const entry of await deps.store.listEntries(calendarId)) schedules.push(await scheduleRow(entry, deps));
  schedules.sort((a, b) => a.join_at.localeCompare(b.join_at));
  return { status: 200, body: { calendar_id: calendarId, schedules } };
}
