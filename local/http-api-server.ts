/**
 * The stack's HTTP API on 127.0.0.1, calling the same handlers with the same
 * payload-format 2.0 events API Gateway would: POST /webhooks (the ingress) and
 * PUT/GET/DELETE /schedules/{id} (the schedule API), the read API's GET routes and
 * DELETE /meetings/{bot_id} (IAM-authorized in AWS, open on loopback here).
 *
 * Open on loopback means any web page the operator visits must not reach it: a
 * request whose Host is not this server on loopback (DNS rebinding) is answered
 * 421, a path with a bad escape 400, an unknown path 404, a known path with another
 * method 405, a body over API Gateway's payload limit 413, and whatever a request
 * does, it is answered (500 at worst, without the error's details) and the process
 * goes on. Every error has the routes' one shape (lambdas/core/api-error.ts).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { apiError } from '../lambdas/core/api-error';
import { CALENDAR_API_ROUTES } from '../lambdas/core/calendar/calendar-api';
import { CALENDAR_PUSH_ROUTES } from '../lambdas/core/calendar/company/push/push-settings';
import { ERASE_API_ROUTES } from '../lambdas/core/erase/erase-contract';
import { LAKE_SEARCH_ROUTES } from '../lambdas/core/lake/lake-search-routes';
import { READ_API_ROUTES } from '../lambdas/core/read/read-api-contract';
import { httpApiEvent } from './http-api-event';
import { onlyLoopbackHosts } from './loopback-host';

export type HttpRouteHandler = (
  event: APIGatewayProxyEventV2,
) => Promise<APIGatewayProxyStructuredResultV2 | undefined>;

export interface LocalHttpApiRoutes {
  webhooks: HttpRouteHandler;
  /** Resolved per request, so the schedule API can be wired after the server starts. */
  schedules?: () => HttpRouteHandler | undefined;
  /** Every read API route (READ_API_ROUTES); resolved per request like the schedule API. */
  read?: () => HttpRouteHandler | undefined;
  /** Every calendar route (CALENDAR_API_ROUTES); resolved per request like the schedule API. */
  calendars?: () => HttpRouteHandler | undefined;
  /** `DELETE /meetings/{bot_id}` (ERASE_API_ROUTES); resolved per request like the schedule API. */
  erase?: () => HttpRouteHandler | undefined;
  /** The calendar push notification routes (CALENDAR_PUSH_ROUTES, unauthenticated in AWS too). */
  calendarPush?: () => HttpRouteHandler | undefined;
  /** The lake's search routes (LAKE_SEARCH_ROUTES); resolved per request like the schedule API. */
  lake?: () => HttpRouteHandler | undefined;
}

export interface LocalHttpApi {
  /** The API's base, e.g. `http://127.0.0.1:PORT`. */
  baseUrl: string;
  webhookUrl: string;
  /** PUT/GET/DELETE `${scheduleApiUrl}/{id}`. */
  scheduleApiUrl: string;
  /** The read API's base: `GET ${readApiUrl}/meetings`… */
  readApiUrl: string;
  stop(): Promise<void>;
}

const SCHEDULE_PATH = /^\/schedules\/([^/]+)$/;

/** API Gateway's HTTP APIs take a request payload of 10 MB at most; a larger one is refused before any handler. */
export const MAX_REQUEST_BODY_BYTES = 10 * 1024 * 1024;

/** A route template (`GET /meetings/{bot_id}`) as a pattern for its paths, capturing the parameters. */
function routePattern(routeKey: string): { method: string; pattern: RegExp; names: string[] } {
  const [method = '', template = ''] = routeKey.split(' ');
  const names = [...template.matchAll(/\{([^}]+)\}/g)].map((match) => match[1] ?? '');
  const source = template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[^}]+\}/g, '([^/]+)');
  return { method, pattern: new RegExp(`^${source}$`), names };
}

const READ_ROUTES = Object.values(READ_API_ROUTES).map((routeKey) => ({ routeKey, ...routePattern(routeKey) }));
const CALENDAR_ROUTES = Object.values(CALENDAR_API_ROUTES).map((routeKey) => ({ routeKey, ...routePattern(routeKey) }));
const ERASE_ROUTES = Object.values(ERASE_API_ROUTES).map((routeKey) => ({ routeKey, ...routePattern(routeKey) }));
const PUSH_ROUTES = Object.values(CALENDAR_PUSH_ROUTES).map((routeKey) => ({ routeKey, ...routePattern(routeKey) }));
const LAKE_ROUTES = Object.values(LAKE_SEARCH_ROUTES).map((routeKey) => ({ routeKey, ...routePattern(routeKey) }));

/** A path parameter that is not valid percent-encoded UTF-8: the request is answered 400. */
class BadPathError extends Error {}

function decodePathParameter(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new BadPathError(`the path segment ${JSON.stringify(raw)} is not valid percent-encoded UTF-8`);
  }
}

function answerError(
  response: ServerResponse,
  status: number,
  code: string,
  message: string,
  headers: Record<string, string> = {},
): void {
  if (response.headersSent) {
    response.destroy();
    return;
  }
  response
    .writeHead(status, { 'content-type': 'application/json', ...headers })
    .end(JSON.stringify(apiError(code, message)));
}

/** A request body over MAX_REQUEST_BODY_BYTES: answered 413 without reading the rest. */
class BodyTooLargeError extends Error {}

export async function startLocalHttpApi(routes: LocalHttpApiRoutes, port = 0): Promise<LocalHttpApi> {
  const server: Server = createServer((request, response) => {
    answer(routes, request, response).catch((error: unknown) => {
      if (error instanceof BadPathError) return answerError(response, 400, 'bad-path', error.message);
      if (error instanceof BodyTooLargeError)
        return answerError(response, 413, 'body-too-large', error.message, { connection: 'close' });
      // The operator's terminal gets the error; the client only that it failed.
      console.error('local HTTP API: request failed', request.method, request.url?.split('?')[0], error);
      answerError(
        response,
        500,
        'internal-error',
        'The request failed inside the local HTTP API; its terminal shows why.',
      );
    });
  });
  onlyLoopbackHosts(server);
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  const baseUrl = `http://127.0.0.1:${address.port}`;
  return {
    baseUrl,
    webhookUrl: `${baseUrl}/webhooks`,
    scheduleApiUrl: `${baseUrl}/schedules`,
    readApiUrl: baseUrl,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The routes matched by path pattern, with the handler each resolves to. */
function routed(routes: LocalHttpApiRoutes) {
  return [
    ...PUSH_ROUTES.map((route) => ({ ...route, handler: routes.calendarPush })),
    ...READ_ROUTES.map((route) => ({ ...route, handler: routes.read })),
    ...CALENDAR_ROUTES.map((route) => ({ ...route, handler: routes.calendars })),
    ...ERASE_ROUTES.map((route) => ({ ...route, handler: routes.erase })),
    ...LAKE_ROUTES.map((route) => ({ ...route, handler: routes.lake })),
  ];
}

/** The methods some route takes on this path (for a 405's Allow header); empty for an unknown path. */
function allowedMethods(routes: LocalHttpApiRoutes, path: string): string[] {
  const methods = new Set<string>();
  if (path === '/webhooks') methods.add('POST');
  if (SCHEDULE_PATH.test(path)) for (const method of ['PUT', 'GET', 'DELETE']) methods.add(method);
  for (const route of routed(routes)) if (route.pattern.test(path)) methods.add(route.method);
  return [...methods].sort();
}

/** One request through its route's handler, as API Gateway would call it. */
async function answer(routes: LocalHttpApiRoutes, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const chunks: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of request) {
    bytes += (chunk as Buffer).length;
    if (bytes > MAX_REQUEST_BODY_BYTES)
      throw new BodyTooLargeError(`The body is over ${MAX_REQUEST_BODY_BYTES} bytes, the most API Gateway takes.`);
    chunks.push(chunk as Buffer);
  }
  const url = new URL(request.url ?? '/', 'http://127.0.0.1');
  const method = request.method ?? 'GET';
  const scheduleId = SCHEDULE_PATH.exec(url.pathname)?.[1];
  let routeKey: string | undefined;
  let handler: HttpRouteHandler | undefined;
  let pathParameters: Record<string, string> | undefined =
    scheduleId === undefined ? undefined : { id: decodePathParameter(scheduleId) };
  if (method === 'POST' && url.pathname === '/webhooks') {
    routeKey = 'POST /webhooks';
    handler = routes.webhooks;
  } else if (scheduleId !== undefined && ['PUT', 'GET', 'DELETE'].includes(method)) {
    routeKey = `${method} /schedules/{id}`;
    handler = routes.schedules?.();
  } else {
    for (const route of routed(routes)) {
      const match = method === route.method ? route.pattern.exec(url.pathname) : null;
      if (match === null) continue;
      routeKey = route.routeKey;
      handler = route.handler?.();
      const values = route.names.map((name, i) => [name, decodePathParameter(match[i + 1] ?? '')]);
      pathParameters = values.length === 0 ? undefined : Object.fromEntries(values);
      break;
    }
  }
  if (routeKey === undefined) {
    const allowed = allowedMethods(routes, url.pathname);
    if (allowed.length > 0)
      return answerError(response, 405, 'method-not-allowed', `${url.pathname} takes ${allowed.join(', ')}.`, {
        allow: allowed.join(', '),
      });
    return answerError(response, 404, 'no-route', `No route ${method} ${url.pathname}.`);
  }
  if (handler === undefined)
    return answerError(response, 503, 'route-not-ready', `${routeKey} is not wired yet in this local run.`);
  const result = await handler(
    httpApiEvent({
      routeKey,
      method,
      rawPath: url.pathname,
      rawQueryString: url.search.replace(/^\?/, ''),
      headers: request.headers,
      ...(pathParameters !== undefined && { pathParameters }),
      body: Buffer.concat(chunks),
      sourceIp: request.socket.remoteAddress ?? '127.0.0.1',
      // API Gateway base64-encodes bodies it cannot treat as text; doing so always keeps the bytes exact.
      alwaysBase64: true,
    }),
  );
  response
    .writeHead(result?.statusCode ?? 200, (result?.headers ?? {}) as Record<string, string>)
    .end(result?.body ?? '');
}
