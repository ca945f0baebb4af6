import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, EventBridgeEvent } from 'aws-lambda';
import { apiError, apiErrorResponse, failureDetails, internalErrorResponse } from '../core/api-error';
import {
  markCalendarEventApplied,
  releaseCalendarEvent,
  takeCalendarEvent,
} from '../core/schedule/applied-calendar-events';
import {
  CALENDAR_DETAIL_TYPES,
  type CalendarEventKind,
  calendarEventDetailSchema,
  calendarEventOrder,
} from '../core/schedule/calendar-events';
import { SCHEDULE_ID } from '../core/schedule/schedule-request';
import {
  CONCURRENT_UPDATE,
  cancelSchedule,
  getSchedule,
  OLDER_EVENT,
  type Schedule,
  type ScheduleDependencies,
  type ScheduleResult,
  upsertSchedule,
} from '../core/schedule/schedules';
import { METRICS } from '../core/telemetry';
import { utcTimestamp } from '../core/text/utc-timestamp';
import { describeIssues } from '../core/validation';

export type SchedulesEvent = APIGatewayProxyEventV2 | EventBridgeEvent<string, unknown>;

/** A calendar event that lost to other writers of its schedule on every attempt. */
export class CalendarEventConflictError extends Error {
  override name = 'CalendarEventConflictError';
  constructor(scheduleId: string, message: string) {
    super(`schedule ${scheduleId}: ${message}`);
  }
}

/** The same calendar event is being applied by another delivery: tried again later, when that one is done. */
export class CalendarEventInFlightError extends Error {
  override name = 'CalendarEventInFlightError';
  constructor(scheduleId: string, eventId: string) {
    super(`schedule ${scheduleId}: calendar event ${eventId} is being applied by another delivery`);
  }
}

/** What a caller sees of a schedule. */
function view(schedule: Schedule) {
  return {
    schedule_id: schedule.scheduleId,
    version: schedule.version,
    status: schedule.status,
    meeting_url: schedule.meetingUrl,
    join_at: utcTimestamp(schedule.joinAt),
    launch_at: utcTimestamp(schedule.launchAt),
    bot_name: schedule.botName,
    bot_id: schedule.botId ?? null,
    failure_reason: schedule.failureReason ?? null,
  };
}

function respond(result: ScheduleResult): APIGatewayProxyStructuredResultV2 {
  const body =
    'schedule' in result
      ? { ...view(result.schedule), ...(result.message && { message: result.message }) }
      : apiError(result.error.code, result.error.message, result.error.issues ? { issues: result.error.issues } : {});
  return { statusCode: result.status, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) };
}

/** PUT/GET/DELETE /schedules/{id} (IAM-authorized) and calendar events from EventBridge: one core. */
export function createSchedulesHandler(deps: ScheduleDependencies) {
  return async (event: SchedulesEvent): Promise<APIGatewayProxyStructuredResultV2 | undefined> => {
    if ('routeKey' in event) {
      try {
        return await handleRequest(event, deps);
      } catch (failure) {
        deps.telemetry.log.error('schedule request failed', {
          route: event.routeKey,
          request_id: event.requestContext.requestId,
          ...failureDetails(failure),
        });
        return internalErrorResponse(event.requestContext.requestId);
      }
    }
    await handleCalendarEvent(event, deps);
    return undefined;
  };
}

async function handleRequest(
  event: APIGatewayProxyEventV2,
  deps: ScheduleDependencies,
): Promise<APIGatewayProxyStructuredResultV2> {
  const id = event.pathParameters?.id ?? '';
  const method = event.requestContext.http.method;
  if (method === 'GET') {
    const schedule = await getSchedule(id, deps);
    return respond(
      schedule === undefined
        ? { status: 404, ...apiError('not-found', `No schedule ${id}.`) }
        : { status: 200, schedule },
    );
  }
  if (method === 'DELETE') return respond(await cancelSchedule(id, deps));
  let body: unknown;
  try {
    body = JSON.parse(
      event.isBase64Encoded ? Buffer.from(event.body ?? '', 'base64').toString('utf8') : (event.body ?? ''),
    );
  } catch {
    return apiErrorResponse(400, 'invalid-json', 'The body is not JSON.');
  }
  return respond(await upsertSchedule(id, body, deps));
}

async function handleCalendarEvent(
  event: EventBridgeEvent<string, unknown>,
  deps: ScheduleDependencies,
): Promise<void> {
  const about = { detail_type: event['detail-type'], event_id: event.id };
  const refuse = (message: string) => {
    // Not retried: EventBridge would only deliver the same bad event again.
    deps.telemetry.log.error('calendar event refused', { ...about, reason: message });
    deps.telemetry.metrics.emit(METRICS.calendarEventRefused, 1);
  };
  const detail = calendarEventDetailSchema.safeParse(event.detail);
  if (!detail.success) return refuse(describeIssues(detail.error, 'detail').join('; '));
  const kind = (Object.keys(CALENDAR_DETAIL_TYPES) as CalendarEventKind[]).find(
    (key) => CALENDAR_DETAIL_TYPES[key] === event['detail-type'],
  );
  if (kind === undefined) return refuse(`unknown detail-type ${event['detail-type']}`);
  const id = detail.data.schedule_id;
  if (!SCHEDULE_ID.test(id))
    return refuse('detail.schedule_id: 1–200 characters without spaces, slashes or control characters');
  // EventBridge gives every event an id (a UUID); it is what tells a redelivery from a new event.
  if (typeof event.id !== 'string' || !SCHEDULE_ID.test(event.id)) return refuse('the event has no usable id');
  const order = calendarEventOrder(detail.data, kind);
  // EventBridge delivers at least once: a redelivery of an event applied already changes nothing.
  const turn = await takeCalendarEvent(deps.table, id, event.id, deps.now());
  if (turn === 'applied') {
    deps.telemetry.log.info('calendar event applied already; this delivery is ignored', { ...about, schedule_id: id });
    return;
  }
  if (turn === 'in-flight') throw new CalendarEventInFlightError(id, event.id);
  let result: ScheduleResult;
  try {
    result =
      kind === 'cancelled'
        ? await cancelSchedule(id, deps, order)
        : await upsertSchedule(id, event.detail, deps, order);
  } catch (error) {
    await releaseCalendarEvent(deps.table, id, event.id);
    throw error;
  }
  // Transient: thrown, so Lambda tries the event again and then sends it to the calendar DLQ (alarmed).
  if ('error' in result && result.error.code === CONCURRENT_UPDATE) {
    await releaseCalendarEvent(deps.table, id, event.id);
    throw new CalendarEventConflictError(id, result.error.message);
  }
  await markCalendarEventApplied(deps.table, id, event.id);
  if (!('error' in result) || result.error.code === 'not-found') return;
  if (result.error.code === OLDER_EVENT) {
    deps.telemetry.log.info('calendar event ignored as older', { ...about, schedule_id: id, order });
    deps.telemetry.metrics.emit(METRICS.calendarEventStale, 1);
    return;
  }
  refuse(`${result.error.code}: ${result.error.message}`);
}
