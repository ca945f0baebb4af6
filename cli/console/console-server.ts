/**
 * The console's server: the built pages as static files, and `/api`, which calls the same API
 * routes the CLI calls through the CLI's target (signed with the user's AWS credentials here, so
 * none ever reaches the browser). Loopback only, with the Host check every local server has.
 */
import { readFile } from 'node:fs/promises';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { apiError } from '../../lambdas/core/api-error';
import { READ_API_ROUTES, recordingLink } from '../../lambdas/core/read/read-api-contract';
import { listenOnLoopback } from '../../local/loopback-host';
import { ApiError, requestJson, routeUrl } from '../api';
import { CliError, localModeDownMessage, refusedLoopback } from '../exit-codes';
import type { Target } from '../target';
import {
  listDeadLetterQueues,
  listFiringAlarms,
  listQuarantine,
  OPERATION_CHANGES,
  OPERATION_READS,
  OperationRefused,
  redriveDeadLetterQueue,
  redriveQuarantine,
  replayMeeting,
  searchLake,
} from './console-operations';
import {
  type MatchedRoute,
  matchRoute,
  PASSED_CHANGES,
  PASSED_READS,
  RECORDING_MEDIA_ROUTE,
  SCHEDULE_CANCEL_ROUTE,
} from './console-routes';
import { CSRF_HEADER, consoleSessions, LAUNCH_TOKEN_PARAMETER } from './console-session';

/** No inline script or style, nothing from another origin, no framing. */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "media-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const COMMON_HEADERS = {
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
};

/** The built UI's files (console/build.ts writes them), by the path the pages ask for. */
const STATIC_FILES: Record<string, { file: string; type: string }> = {
  '/assets/app.js': { file: 'app.js', type: 'text/javascript; charset=utf-8' },
  '/assets/app.css': { file: 'app.css', type: 'text/css; charset=utf-8' },
};
const INDEX_FILE = 'index.html';

/** Response headers of a recording passed on to the page, as the archive answered them. */
const MEDIA_HEADERS = ['content-type', 'content-length', 'content-range', 'accept-ranges', 'etag', 'last-modified'];

export interface ConsoleServerOptions {
  target: Target;
  /** The built UI (index.html, app.js, app.css). */
  staticDir: string;
  readOnly: boolean;
  /** 0: any free port. */
  port?: number;
}

export interface ConsoleServer {
  /** The address to open: it carries the launch token. */
  url: string;
  origin: string;
  server: Server;
  close(): Promise<void>;
}

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  response
    .writeHead(status, { ...COMMON_HEADERS, 'content-type': 'application/json', 'cache-control': 'no-store' })
    .end(JSON.stringify(body));
}

const refuse = (response: ServerResponse, status: number, code: string, message: string) =>
  sendJson(response, status, apiError(code, message));

const refuseReadOnly = (response: ServerResponse) =>
  refuse(response, 403, 'read-only', 'This console was started with --read-only: it changes nothing');

/** What went wrong reaching the API, in words a person can act on. */
function unreachableReason(target: Target, error: unknown): string {
  const refused = refusedLoopback(error);
  if (refused !== undefined) return localModeDownMessage(refused);
  if (error instanceof CliError) return error.message;
  return `Could not reach ${target.label}: ${(error as Error).message}`;
}

export async function startConsoleServer(options: ConsoleServerOptions): Promise<ConsoleServer> {
  const { target, staticDir, readOnly } = options;
  const sessions = consoleSessions();
  const index = await readFile(join(staticDir, INDEX_FILE));

  async function passThrough(request: IncomingMessage, response: ServerResponse, url: URL, apiPath: string) {
    const method = request.method ?? 'GET';
    const read = matchRoute(PASSED_READS, method, apiPath);
    const change = read === undefined ? matchRoute(PASSED_CHANGES, method, apiPath) : undefined;
    const matched = read ?? change;
    if (matched === undefined) return refuse(response, 404, 'no-such-route', `The console has no ${method} ${apiPath}`);
    if (change !== undefined && readOnly) return refuseReadOnly(response);
    const query: Record<string, string> = Object.fromEntries(url.searchParams);
    let answer: Response;
    try {
      const address =
        matched.route === SCHEDULE_CANCEL_ROUTE
          ? target.scheduleUrl(matched.params.id ?? '')
          : routeUrl(target, matched.route, matched.params, query);
      answer = await target.fetch(address, { method });
    } catch (error) {
      return refuse(response, 502, 'api-unreachable', unreachableReason(target, error));
    }
    const type = answer.headers.get('content-type') ?? 'application/json';
    response.writeHead(answer.status, { ...COMMON_HEADERS, 'content-type': type, 'cache-control': 'no-store' });
    response.end(Buffer.from(await answer.arrayBuffer()));
  }

  /** The archived recording's bytes, streamed from its link with the page's Range passed on (seeking). */
  async function recordingMedia(request: IncomingMessage, response: ServerResponse, botId: string) {
    let link: { url: string };
    try {
      link = (await requestJson(target, routeUrl(target, READ_API_ROUTES.recording, { bot_id: botId }), recordingLink))
        .value;
    } catch (error) {
      if (error instanceof ApiError) return refuse(response, error.status, 'no-recording', error.message);
      return refuse(response, 502, 'api-unreachable', unreachableReason(target, error));
    }
    const abort = new AbortController();
    response.on('close', () => abort.abort());
    const range = request.headers.range;
    let media: Response;
    try {
      media = await fetch(link.url, {
        ...(range !== undefined && { headers: { range } }),
        signal: abort.signal,
      });
    } catch (error) {
      if (abort.signal.aborted) return;
      return refuse(response, 502, 'recording-unreachable', `The archive did not answer: ${(error as Error).message}`);
    }
    const headers: Record<string, string> = { ...COMMON_HEADERS, 'cache-control': 'no-store' };
    for (const name of MEDIA_HEADERS) {
      const value = media.headers.get(name);
      if (value !== null) headers[name] = value;
    }
    response.writeHead(media.status, headers);
    if (media.body === null) return void response.end();
    try {
      await pipeline(Readable.fromWeb(media.body as import('node:stream/web').ReadableStream), response);
    } catch {
      // The page stopped reading (a seek or a closed tab): nothing to answer.
    }
  }

  /** The CLI's own operations: answered as JSON, a refusal with its status and reason. */
  async function operate(response: ServerResponse, operation: MatchedRoute, url: URL) {
    // A dry run (`?apply=false`) of a replay or a re-drive changes nothing, so a read-only console may ask it.
    const dryRun =
      (operation.route === OPERATION_CHANGES.replayMeeting ||
        operation.route === OPERATION_CHANGES.redriveQuarantine) &&
      url.searchParams.get('apply') !== 'true';
    const isChange = (Object.values(OPERATION_CHANGES) as string[]).includes(operation.route) && !dryRun;
    if (isChange && readOnly) return refuseReadOnly(response);
    try {
      switch (operation.route) {
        case OPERATION_READS.deadLetterQueues:
          return sendJson(response, 200, { queues: await listDeadLetterQueues(target) });
        case OPERATION_READS.alarms:
          return sendJson(response, 200, await listFiringAlarms(target));
        case OPERATION_READS.quarantine:
          return sendJson(response, 200, { quarantined: await listQuarantine(target) });
        case OPERATION_CHANGES.redriveQuarantine:
          return sendJson(response, 200, await redriveQuarantine(target, !dryRun));
        case OPERATION_READS.search:
          return sendJson(response, 200, await searchLake(target, url.searchParams));
        case OPERATION_CHANGES.replayMeeting:
          return sendJson(response, 200, await replayMeeting(target, operation.params.bot_id ?? '', !dryRun));
        case OPERATION_CHANGES.redriveDeadLetters:
          return sendJson(response, 200, await redriveDeadLetterQueue(target, operation.params.name ?? ''));
      }
    } catch (error) {
      if (error instanceof OperationRefused) return refuse(response, error.status, error.code, error.message);
      return refuse(response, 502, 'operation-failed', unreachableReason(target, error));
    }
    return refuse(response, 404, 'no-such-route', `The console has no ${operation.route}`);
  }

  async function api(request: IncomingMessage, response: ServerResponse, url: URL) {
    const method = request.method ?? 'GET';
    const csrf = sessions.csrfFor(request.headers.cookie);
    if (csrf === undefined)
      return refuse(response, 401, 'no-session', 'No console session: open the address the console printed');
    const apiPath = url.pathname.slice('/api'.length);
    if (method !== 'GET' && method !== 'HEAD') {
      const origin = request.headers.origin;
      if (origin !== undefined && origin !== `http://${request.headers.host ?? ''}`)
        return refuse(response, 403, 'foreign-origin', `A change from ${origin} is refused`);
      if (!sessions.changeAllowed(request.headers.cookie, headerValue(request, CSRF_HEADER)))
        return refuse(response, 403, 'csrf-token-missing', `A change needs the session's ${CSRF_HEADER} header`);
    }
    if (apiPath === '/session' && method === 'GET')
      return sendJson(response, 200, { csrf_token: csrf, read_only: readOnly, target: target.label });
    const media = matchRoute([RECORDING_MEDIA_ROUTE], method, apiPath);
    if (media !== undefined) return recordingMedia(request, response, media.params.bot_id ?? '');
    const operation = matchRoute(
      [...Object.values(OPERATION_READS), ...Object.values(OPERATION_CHANGES)],
      method,
      apiPath,
    );
    if (operation !== undefined) return operate(response, operation, url);
    return passThrough(request, response, url, apiPath);
  }

  function page(request: IncomingMessage, response: ServerResponse, url: URL) {
    const token = url.searchParams.get(LAUNCH_TOKEN_PARAMETER);
    if (token !== null) {
      const opened = sessions.open(token);
      if (opened === undefined)
        return refuse(response, 403, 'wrong-token', 'This address is not the one the console printed');
      url.searchParams.delete(LAUNCH_TOKEN_PARAMETER);
      // The token leaves the address bar (and the history entry) at once. One leading slash: `//host`
      // would send the browser to another site.
      const location = `/${url.pathname.replace(/^\/+/, '')}${url.search}`;
      response.writeHead(303, { ...COMMON_HEADERS, location, 'set-cookie': opened.setCookie }).end();
      return;
    }
    if (sessions.csrfFor(request.headers.cookie) === undefined) {
      response
        .writeHead(401, { ...COMMON_HEADERS, 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' })
        .end('No console session: open the address `meeting-pipeline console` printed in your terminal.\n');
      return;
    }
    response
      .writeHead(200, { ...COMMON_HEADERS, 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' })
      .end(index);
  }

  async function handle(request: IncomingMessage, response: ServerResponse) {
    const requestTarget = request.url ?? '/';
    // Origin-form only (`/path?query`): an absolute or `//host` target is no page of this server.
    if (!requestTarget.startsWith('/') || requestTarget.startsWith('//'))
      return refuse(response, 400, 'bad-request-target', 'The request names no path on this server');
    const url = new URL(`http://console.invalid${requestTarget}`);
    const asset = STATIC_FILES[url.pathname];
    if (asset !== undefined && request.method === 'GET') {
      const body = await readFile(join(staticDir, asset.file));
      response.writeHead(200, { ...COMMON_HEADERS, 'content-type': asset.type, 'cache-control': 'no-cache' }).end(body);
      return;
    }
    if (url.pathname === '/api' || url.pathname.startsWith('/api/')) return api(request, response, url);
    if (request.method !== 'GET' && request.method !== 'HEAD')
      return refuse(response, 405, 'method-not-allowed', `${request.method} is not a page`);
    return page(request, response, url);
  }

  const { server, port } = await listenOnLoopback((request, response) => {
    handle(request, response).catch((error: unknown) => {
      // No stack trace to the page: the reason, in the API's error shape.
      if (!response.headersSent) refuse(response, 500, 'console-error', (error as Error).message);
      else response.destroy();
    });
  }, options.port);
  const origin = `http://127.0.0.1:${port}`;
  return {
    url: `${origin}/?${LAUNCH_TOKEN_PARAMETER}=${sessions.launchToken}`,
    origin,
    server,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function headerValue(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}
