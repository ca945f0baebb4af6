/**
 * The stack's HTTP API on 127.0.0.1, calling the same handlers with the same
 * payload-format 2.0 events API Gateway would: POST /webhooks (the ingress) and
 * PUT/GET/DELETE /schedules/{id} (the schedule API; IAM-authorized in AWS, open on
 * loopback here).
 */
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';

export type HttpRouteHandler = (
  event: APIGatewayProxyEventV2,
) => Promise<APIGatewayProxyStructuredResultV2 | undefined>;

export interface LocalHttpApiRoutes {
  webhooks: HttpRouteHandler;
  /** Resolved per request, so the schedule API can be wired after the server starts. */
  schedules?: () => HttpRouteHandler | undefined;
}

export interface LocalHttpApi {
  /** The API's base, e.g. `http://127.0.0.1:PORT`. */
  baseUrl: string;
  webhookUrl: string;
  /** PUT/GET/DELETE `${scheduleApiUrl}/{id}`. */
  scheduleApiUrl: string;
  stop(): Promise<void>;
}

const SCHEDULE_PATH = /^\/schedules\/([^/]+)$/;

export async function startLocalHttpApi(routes: LocalHttpApiRoutes, port = 0): Promise<LocalHttpApi> {
  const server: Server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    const method = request.method ?? 'GET';
    const scheduleId = SCHEDULE_PATH.exec(url.pathname)?.[1];
    let routeKey: string | undefined;
    let handler: HttpRouteHandler | undefined;
    if (method === 'POST' && url.pathname === '/webhooks') {
      routeKey = 'POST /webhooks';
      handler = routes.webhooks;
    } else if (scheduleId !== undefined && ['PUT', 'GET', 'DELETE'].includes(method)) {
      routeKey = `${method} /schedules/{id}`;
      handler = routes.schedules?.();
    }
    if (routeKey === undefined || handler === undefined) {
      response.writeHead(404, { 'content-type': 'application/json' }).end('{"message":"Not Found"}');
      return;
    }
    const headers = Object.fromEntries(
      Object.entries(request.headers).map(([k, v]) => [k.toLowerCase(), Array.isArray(v) ? v.join(',') : (v ?? '')]),
    );
    const result = await handler({
      version: '2.0',
      routeKey,
      rawPath: url.pathname,
      rawQueryString: url.search.replace(/^\?/, ''),
      headers,
      ...(scheduleId !== undefined && { pathParameters: { id: decodeURIComponent(scheduleId) } }),
      requestContext: {
        accountId: '000000000000',
        apiId: 'local',
        domainName: '127.0.0.1',
        domainPrefix: 'local',
        http: {
          method,
          path: url.pathname,
          protocol: 'HTTP/1.1',
          sourceIp: request.socket.remoteAddress ?? '127.0.0.1',
          userAgent: headers['user-agent'] ?? '',
        },
        requestId: randomUUID(),
        routeKey,
        stage: '$default',
        time: new Date().toISOString(),
        timeEpoch: Date.now(),
      },
      // API Gateway base64-encodes bodies it cannot treat as text; doing so always keeps the bytes exact.
      body: Buffer.concat(chunks).toString('base64'),
      isBase64Encoded: true,
    });
    response
      .writeHead(result?.statusCode ?? 200, (result?.headers ?? {}) as Record<string, string>)
      .end(result?.body ?? '');
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  const baseUrl = `http://127.0.0.1:${address.port}`;
  return {
    baseUrl,
    webhookUrl: `${baseUrl}/webhooks`,
    scheduleApiUrl: `${baseUrl}/schedules`,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
