/**
 * The local servers a browser can reach (the local HTTP API, the emulators, the
 * simulated service) answer only requests addressed to this machine by name:
 * Host `127.0.0.1`, `[::1]` or `localhost`, with the port the server listens on.
 * A web page that rebinds its own name to 127.0.0.1 (DNS rebinding) still sends
 * its own name as Host, so it is refused with 421 before anything is read or erased.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { apiError } from '../lambdas/core/api-error';

const LOOPBACK_NAMES = new Set(['127.0.0.1', '[::1]', 'localhost']);

/** Why a request's Host is not this server on loopback, or undefined when it is. */
export function misdirectedHost(host: string | undefined, port: number): string | undefined {
  if (host === undefined || host === '') return 'the request has no Host header';
  const match = /^(\[[^\]]*\]|[^:]*)(?::(\d+))?$/.exec(host.toLowerCase());
  const name = match?.[1];
  const givenPort = match?.[2] === undefined ? 80 : Number(match[2]);
  if (name === undefined || !LOOPBACK_NAMES.has(name) || givenPort !== port)
    return `Host ${JSON.stringify(host)} is not this server: use 127.0.0.1:${port}, [::1]:${port} or localhost:${port}`;
  return undefined;
}

/** Answers 421 Misdirected Request with the reason, as JSON. */
export function answerMisdirected(response: ServerResponse, reason: string): void {
  response
    .writeHead(421, { 'content-type': 'application/json', connection: 'close' })
    .end(JSON.stringify(apiError('misdirected-request', reason)));
}

function listeningPort(server: Server): number {
  const address = server.address();
  return address === null || typeof address === 'string' ? 0 : address.port;
}

/**
 * Puts the Host check in front of a server's own request handling (a third-party
 * emulator's included): its request listeners run only for requests to loopback.
 */
export function onlyLoopbackHosts(server: Server): void {
  const listeners = server.listeners('request') as ((request: IncomingMessage, response: ServerResponse) => void)[];
  server.removeAllListeners('request');
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const refused = misdirectedHost(request.headers.host, listeningPort(server));
    if (refused !== undefined) {
      request.resume();
      answerMisdirected(response, refused);
      return;
    }
    for (const listener of listeners) listener.call(server, request, response);
  });
}

/**
 * An HTTP server on 127.0.0.1 (port 0: any free one) that answers only requests addressed to
 * loopback: how a local server is started, so none can leave the Host check out.
 */
export async function listenOnLoopback(
  handle: (request: IncomingMessage, response: ServerResponse) => void,
  port = 0,
): Promise<{ server: Server; port: number }> {
  const server = createServer(handle);
  onlyLoopbackHosts(server);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  return { server, port: listeningPort(server) };
}
