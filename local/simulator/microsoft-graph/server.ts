/**
 * One HTTP server on 127.0.0.1 answering as both the identity platform's token
 * endpoint and Graph (a client is configured with the same base URL for both):
 * `POST /{tenant}/oauth2/v2.0/token`,
 * `GET /v1.0/users/{user}/calendarView/delta`, `GET /v1.0/users/{user}/events/{id}`,
 * `GET /v1.0/groups/{id}/transitiveMembers/microsoft.graph.user`, and the
 * change-notification subscriptions (`POST /v1.0/subscriptions`, `PATCH` and
 * `DELETE /v1.0/subscriptions/{id}`: subscriptions.ts). Anything else is a 404 in
 * Graph's error shape.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { onlyLoopbackHosts } from '../../loopback-host';
import type { CalendarViewDelta } from './calendar-view-delta';
import type { Directory } from './directory';
import type { EventGet } from './event-get';
import { type GraphRefusal, graphErrorBody, identityErrorBody } from './graph-errors';
import type { GroupMembers } from './group-members';
import type { SubscriptionAnswer, Subscriptions } from './subscriptions';
import { answerTokenRequest } from './token-endpoint';

/** Requests larger than this are refused: the token form is a few hundred bytes. */
const MAX_BODY_BYTES = 64 * 1024;

const TOKEN_PATH = /^\/([^/]+)\/oauth2\/v2\.0\/token$/;
const DELTA_PATH = /^\/v1\.0\/users\/([^/]+)\/calendarView\/delta$/i;
const EVENT_PATH = /^\/v1\.0\/users\/([^/]+)\/events\/([^/]+)$/i;
const SUBSCRIPTIONS_PATH = /^\/v1\.0\/subscriptions(?:\/([^/]+))?$/i;
const MEMBERS_PATH = /^\/v1\.0\/groups\/([^/]+)\/transitiveMembers\/microsoft\.graph\.user$/i;

async function readBody(request: IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function parseJson(body: string | undefined): unknown {
  try {
    return body === undefined ? undefined : (JSON.parse(body) as unknown);
  } catch {
    return undefined;
  }
}

function sendJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  response
    .writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers })
    .end(JSON.stringify(body));
}

export class GraphHttpServer {
  private server: Server | undefined;
  baseUrl = '';

  constructor(
    private readonly directory: Directory,
    private readonly delta: CalendarViewDelta,
    private readonly members: GroupMembers,
    private readonly subscriptions: Subscriptions,
    private readonly events: EventGet,
  ) {}

  async start(): Promise<string> {
    const server = createServer((request, response) => {
      this.handle(request, response).catch(() => {
        if (!response.headersSent)
          sendJson(
            response,
            500,
            graphErrorBody({ status: 500, code: 'generalException', message: 'unexpected' }, Date.now()),
          );
      });
    });
    // Like every local server: a web page that rebinds its name to 127.0.0.1 is refused (421).
    onlyLoopbackHosts(server);
    this.server = server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    this.baseUrl = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`;
    this.directory.graphAudiences.add(this.baseUrl);
    return this.baseUrl;
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (server === undefined) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    this.server = undefined;
  }

  private async answerSubscription(
    request: IncomingMessage,
    id: string | undefined,
  ): Promise<SubscriptionAnswer | undefined> {
    const authorization = request.headers.authorization;
    if (id === undefined && request.method === 'POST')
      return this.subscriptions.create(parseJson(await readBody(request)), authorization);
    if (id !== undefined && request.method === 'PATCH')
      return this.subscriptions.renew(decodeURIComponent(id), parseJson(await readBody(request)), authorization);
    if (id !== undefined && request.method === 'DELETE')
      return this.subscriptions.remove(decodeURIComponent(id), authorization);
    return undefined;
  }

  private graphRefusal(response: ServerResponse, refusal: GraphRefusal): void {
    sendJson(response, refusal.status, graphErrorBody(refusal, this.directory.now()), refusal.headers);
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', this.baseUrl);
    const tokenMatch = TOKEN_PATH.exec(url.pathname);
    if (tokenMatch !== null && request.method === 'POST') {
      const body = await readBody(request);
      const form = new URLSearchParams(
        body !== undefined && (request.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')
          ? body
          : '',
      );
      const answer = await answerTokenRequest(
        this.directory,
        decodeURIComponent(tokenMatch[1]!),
        form,
        `${this.baseUrl}${url.pathname}`,
      );
      if ('refusal' in answer)
        sendJson(response, answer.status, identityErrorBody(answer.refusal, this.directory.now()));
      else sendJson(response, 200, answer.body, { 'cache-control': 'no-store' });
      return;
    }
    const deltaMatch = DELTA_PATH.exec(url.pathname);
    if (deltaMatch !== null && request.method === 'GET') {
      const answer = this.delta.answer({
        userKey: decodeURIComponent(deltaMatch[1]!),
        query: url.searchParams,
        authorization: request.headers.authorization,
        prefer: preferValues(request),
        baseUrl: this.baseUrl,
      });
      if ('refusal' in answer) this.graphRefusal(response, answer.refusal);
      else sendJson(response, 200, answer.body, answer.headers);
      return;
    }
    const eventMatch = EVENT_PATH.exec(url.pathname);
    if (eventMatch !== null && request.method === 'GET') {
      const answer = this.events.answer({
        userKey: decodeURIComponent(eventMatch[1]!),
        eventId: decodeURIComponent(eventMatch[2]!),
        authorization: request.headers.authorization,
        prefer: preferValues(request),
        baseUrl: this.baseUrl,
      });
      if ('refusal' in answer) this.graphRefusal(response, answer.refusal);
      else sendJson(response, 200, answer.body, answer.headers);
      return;
    }
    const subscriptionMatch = SUBSCRIPTIONS_PATH.exec(url.pathname);
    if (subscriptionMatch !== null) {
      const answer = await this.answerSubscription(request, subscriptionMatch[1]);
      if (answer !== undefined) {
        if ('refusal' in answer) this.graphRefusal(response, answer.refusal);
        else if (answer.status === 204) response.writeHead(204).end();
        else sendJson(response, answer.status, answer.body);
        return;
      }
    }
    const membersMatch = MEMBERS_PATH.exec(url.pathname);
    if (membersMatch !== null && request.method === 'GET') {
      const answer = this.members.answer({
        groupId: decodeURIComponent(membersMatch[1]!),
        query: url.searchParams,
        authorization: request.headers.authorization,
        baseUrl: this.baseUrl,
      });
      if ('refusal' in answer) this.graphRefusal(response, answer.refusal);
      else sendJson(response, 200, answer.body);
      return;
    }
    this.graphRefusal(response, {
      status: 404,
      code: 'UnknownError',
      message: `No resource answers ${request.method} ${url.pathname} in this simulator.`,
    });
  }
}

/** The request's Prefer headers, each as sent (Node gives one as a string, several as a list). */
function preferValues(request: IncomingMessage): string[] {
  const prefer = request.headers.prefer;
  return prefer === undefined ? [] : Array.isArray(prefer) ? prefer : [prefer];
}
