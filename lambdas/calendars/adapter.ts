/**
 * The calendar routes over HTTP (payload format 2.0), and the scheduled sync of
 * every calendar: thin adapters over lambdas/core/calendar.
 */
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { apiError, failureDetails, internalErrorResponse } from '../core/api-error';
import {
  type Answer,
  CALENDAR_API_ROUTES,
  type CalendarApiDependencies,
  deleteCalendar,
  getCalendar,
  listCalendarSchedules,
  listCalendars,
  previewCalendar,
  putCalendar,
  runSync,
  syncNow,
} from '../core/calendar/calendar-api';
import { type CalendarSource, isCompanySource } from '../core/calendar/calendar-source';
import { METRICS } from '../core/telemetry';

const respond = (answer: Answer): APIGatewayProxyStructuredResultV2 => ({
  statusCode: answer.status,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(answer.body),
});

function bodyOf(event: APIGatewayProxyEventV2): unknown {
  const text = event.isBase64Encoded ? Buffer.from(event.body ?? '', 'base64').toString('utf8') : (event.body ?? '');
  return JSON.parse(text);
}

export function createCalendarsHandler(deps: CalendarApiDependencies) {
  const route = calendarRoute(deps);
  return async (event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> => {
    try {
      return await route(event);
    } catch (failure) {
      deps.telemetry.log.error('calendar request failed', {
        route: event.routeKey,
        request_id: event.requestContext.requestId,
        ...failureDetails(failure),
      });
      return internalErrorResponse(event.requestContext.requestId);
    }
  };
}

function calendarRoute(deps: CalendarApiDependencies) {
  return async (event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> => {
    const id = event.pathParameters?.id ?? '';
    switch (event.routeKey) {
      case CALENDAR_API_ROUTES.put: {
        let body: unknown;
        try {
          body = bodyOf(event);
        } catch {
          return respond({ status: 400, body: apiError('invalid-json', 'The body is not JSON.') });
        }
        return respond(await putCalendar(id, body, deps));
      }
      case CALENDAR_API_ROUTES.list:
        return respond(await listCalendars(deps));
      case CALENDAR_API_ROUTES.get:
        return respond(await getCalendar(id, deps));
      case CALENDAR_API_ROUTES.delete:
        return respond(await deleteCalendar(id, deps));
      case CALENDAR_API_ROUTES.sync: {
        const answer = await syncNow(id, deps);
        // 202: a company source's users were queued; each user's sync counts itself (calendarUserSynced).
        if (answer.status !== 202)
          deps.telemetry.metrics.emit(answer.status === 200 ? METRICS.calendarSynced : METRICS.calendarSyncFailed, 1);
        return respond(answer);
      }
      case CALENDAR_API_ROUTES.preview:
        return respond(
          await previewCalendar(id, event.queryStringParameters?.days, deps, event.queryStringParameters?.user),
        );
      case CALENDAR_API_ROUTES.schedules:
        return respond(
          await listCalendarSchedules(
            event.queryStringParameters?.calendar_id,
            deps,
            event.queryStringParameters?.user,
          ),
        );
      default:
        return respond({ status: 404, body: apiError('no-route', `No route ${event.routeKey}.`) });
    }
  };
}

/**
 * The scheduled run: every company calendar's users enqueued for the user-sync
 * consumer (`planCompany`, quick: no user is synced here), then every ICS calendar,
 * least recently synced first, until the time left is short. One calendar failing
 * (its feed down, a group unreadable) never stops the others.
 */
/** Runs the renewal if there is one: 1 when it failed as a whole (logged), else 0 (each channel logs its own). */
async function renewPushChannels(
  deps: CalendarApiDependencies,
  renewPush: (() => Promise<unknown>) | undefined,
): Promise<number> {
  if (renewPush === undefined) return 0;
  try {
    deps.telemetry.log.info('calendar push channels reconciled', { outcome: await renewPush() });
    return 0;
  } catch (error) {
    deps.telemetry.log.error('calendar push channels not reconciled', {
      reason: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
    });
    return 1;
  }
}

export function createCalendarSyncRun(
  deps: CalendarApiDependencies,
  options: {
    budgetMs: number;
    planCompany?: () => Promise<unknown>;
    /** The push channels' renewal (calendar push): alongside the feeds, its failure theirs to survive. */
    renewPush?: () => Promise<unknown>;
  },
) {
  return async (): Promise<{ synced: number; failed: number; left: number }> => {
    const deadline = deps.now() + options.budgetMs;
    let synced = 0;
    let failed = 0;
    let planFailed = 0;
    if (options.planCompany !== undefined) {
      try {
        deps.telemetry.log.info('company calendar users enqueued', { plan: await options.planCompany() });
      } catch (error) {
        planFailed = 1;
        deps.telemetry.log.error('company calendar users not enqueued', {
          reason: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
        });
      }
    }
    // Beside the feeds, not before them: a slow provider must not eat the feeds' budget.
    const renewal = renewPushChannels(deps, options.renewPush);
    // Company sources are synced a user at a time by the user-sync consumer.
    const sources = (await deps.store.listSources())
      .filter((source): source is CalendarSource => !isCompanySource(source))
      .sort((a, b) => (a.lastSync?.at ?? '').localeCompare(b.lastSync?.at ?? ''));
    for (const source of sources) {
      if (deps.now() > deadline) break;
      try {
        const outcome = await runSync(source, deps);
        if (outcome.ok) synced++;
        else failed++;
      } catch (error) {
        failed++;
        deps.telemetry.log.error('calendar sync failed', {
          calendar_id: source.calendarId,
          reason: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
        });
      }
    }
    const renewalFailed = await renewal;
    deps.telemetry.metrics.emit(METRICS.calendarSynced, synced);
    const left = sources.length - synced - failed;
    failed += planFailed + renewalFailed;
    deps.telemetry.metrics.emit(METRICS.calendarSyncFailed, failed);
    deps.telemetry.log.info('calendar sync run', { synced, failed, left });
    return { synced, failed, left };
  };
}
