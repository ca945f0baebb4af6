/** The ingress handler behind a local HTTP server on 127.0.0.1, as API Gateway would call it. */
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { IngressHandler } from '../lambdas/ingress/adapter';

export async function startIngressServer(
  handler: IngressHandler,
  port = 0,
): Promise<{ url: string; stop: () => Promise<void> }> {
  const server: Server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const path = new URL(request.url ?? '/', 'http://127.0.0.1').pathname;
    if (request.method !== 'POST' || path !== '/webhooks') {
      response.writeHead(404, { 'content-type': 'application/json' }).end('{"message":"Not Found"}');
      return;
    }
    const headers = Object.fromEntries(
      Object.entries(request.headers).map(([k, v]) => [k.toLowerCase(), Array.isArray(v) ? v.join(',') : (v ?? '')]),
    );
    const result = await handler({
      version: '2.0',
      routeKey: 'POST /webhooks',
      rawPath: path,
      rawQueryString: '',
      headers,
      requestContext: {
        accountId: '000000000000',
        apiId: 'local',
        domainName: '127.0.0.1',
        domainPrefix: 'local',
        http: {
          method: 'POST',
          path,
          protocol: 'HTTP/1.1',
          sourceIp: request.socket.remoteAddress ?? '127.0.0.1',
          userAgent: headers['user-agent'] ?? '',
        },
        requestId: randomUUID(),
        routeKey: 'POST /webhooks',
        stage: '$default',
        time: new Date().toISOString(),
        timeEpoch: Date.now(),
      },
      // API Gateway base64-encodes bodies it cannot treat as text; doing so always keeps the bytes exact.
      body: Buffer.concat(chunks).toString('base64'),
      isBase64Encoded: true,
    });
    response
      .writeHead(result.statusCode ?? 200, (result.headers ?? {}) as Record<string, string>)
      .end(result.body ?? '');
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  return {
    url: `http://127.0.0.1:${address.port}/webhooks`,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
