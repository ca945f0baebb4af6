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
 * The scheduled run: every ICS calendar, least recently synced first, until the time
 * left is short. One calendar failing (its feed down) never stops the others.
 * Company sources are not synced here: their users are queued one by one by the
 * company run (company/company-run.ts planCompanySyncs).
 */
export function createCalendarSyncRun(deps: CalendarApiDependencies, options: { budgetMs: number }) {
  return async (): Promise<{ synced: number; failed: number; left: number }> => {
    const deadline = deps.now() + options.budgetMs;
    const sources = (await deps.store.listSources())
      .filter((source): source is CalendarSource => !isCompanySource(source))
      .sort((a, b) => (a.lastSync?.at ?? '').localeCompare(b.lastSync?.at ?? ''));
    let synced = 0;
    let failed = 0;
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
    deps.telemetry.metrics.emit(METRICS.calendarSynced, synced);
    deps.telemetry.metrics.emit(METRICS.calendarSyncFailed, failed);
    const left = sources.length - synced - failed;
    deps.telemetry.log.info('calendar sync run', { synced, failed, left });
    return { synced, failed, left };
  };
}
