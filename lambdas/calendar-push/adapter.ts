/**
 * The three unauthenticated notification routes over the push core, as payload-format
 * 2.0 events: `POST /calendars/push/google`, `POST /calendars/push/microsoft` and
 * `POST /calendars/push/microsoft/lifecycle`. The Lambda, local mode and tests all
 * build it this way.
 */
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import {
  handleGooglePush,
  handleGraphLifecycle,
  handleGraphPush,
  type LifecycleDependencies,
  type PushAnswer,
} from '../core/calendar/company/push/push-receiver';
import { CALENDAR_PUSH_ROUTES } from '../core/calendar/company/push/push-settings';

export type CalendarPushHandler = (event: APIGatewayProxyEventV2) => Promise<APIGatewayProxyStructuredResultV2>;

const response = (answer: PushAnswer): APIGatewayProxyStructuredResultV2 => ({
  statusCode: answer.status,
  // The validation echo is caller-chosen text: never let a browser sniff it into anything else.
  headers: { 'content-type': answer.contentType, 'x-content-type-options': 'nosniff' },
  body: answer.body,
});

function bodyOf(event: APIGatewayProxyEventV2, maxBytes: number): Uint8Array {
  const raw = event.body ?? '';
  // A body plainly over the cap is refused by its size alone: only its first bytes past the cap are decoded.
  const limit = event.isBase64Encoded ? Math.ceil(((maxBytes + 1) * 4) / 3) + 4 : maxBytes + 1;
  const head = raw.length > limit ? raw.slice(0, limit) : raw;
  return Buffer.from(head, event.isBase64Encoded ? 'base64' : 'utf8');
}

export function createCalendarPushHandler(deps: LifecycleDependencies): CalendarPushHandler {
  return async (event) => {
    const query = event.queryStringParameters ?? {};
    switch (event.routeKey) {
      case CALENDAR_PUSH_ROUTES.google:
        return response(await handleGooglePush(event.headers ?? {}, deps));
      case CALENDAR_PUSH_ROUTES.microsoft:
        return response(await handleGraphPush(query, bodyOf(event, deps.limits.maxBodyBytes), deps));
      case CALENDAR_PUSH_ROUTES.microsoftLifecycle:
        return response(await handleGraphLifecycle(query, bodyOf(event, deps.limits.maxBodyBytes), deps));
      default:
        return { statusCode: 404, headers: { 'content-type': 'application/json' }, body: '{"error":"no route"}' };
    }
  };
}
