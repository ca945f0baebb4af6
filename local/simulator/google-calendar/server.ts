/**
 * A strict local stand-in for Google's OAuth 2.0 token endpoint and the Calendar API
 * v3 `events.list`, on one real HTTP server bound to 127.0.0.1:
 * - `POST /token` (form-encoded JWT bearer grant; token-endpoint.ts)
 * - `GET /calendar/v3/calendars/{calendarId}/events` (events-list.ts)
 * - `GET /admin/directory/v1/groups/{groupKey}/members` (directory.ts)
 * - `POST /calendar/v3/calendars/{calendarId}/events/watch` and `POST /calendar/v3/channels/stop`
 *   (push-channels.ts)
 * Point the pipeline's token URL at `tokenUrl`, its Calendar API base at `apiBase`
 * and its Directory API base at `directoryBase`.
 * Tests drive calendars and the tenant through `control`, and time through `clock`.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { listenOnLoopback } from '../../loopback-host';
import { CalendarControl } from './calendar-control';
import { CalendarStore } from './calendar-store';
import { SimulatedClock } from './clock';
import { Directory } from './directory';
import { EventsList } from './events-list';
import { apiError, type SimulatorAnswer } from './google-errors';
import { PushChannels } from './push-channels';
import { Tenant } from './tenant';
import { answerTokenRequest } from './token-endpoint';
import { UserQuotas } from './user-quota';

const EVENTS_PATH = /^\/calendar\/v3\/calendars\/([^/]+)\/events$/;
const WATCH_PATH = /^\/calendar\/v3\/calendars\/([^/]+)\/events\/watch$/;
const STOP_PATH = '/calendar/v3/channels/stop';
const MEMBERS_PATH = /^\/admin\/directory\/v1\/groups\/([^/]+)\/members$/;
/** A token request is a short form; anything longer is refused rather than buffered. */
const MAX_FORM_BYTES = 64 * 1024;

export class GoogleCalendarSimulator {
  readonly clock: SimulatedClock;
  readonly tenant = new Tenant();
  readonly store = new CalendarStore();
  readonly quotas = new UserQuotas();
  readonly eventsList: EventsList;
  readonly directory: Directory;
  readonly control: CalendarControl;
  /** events.watch channels and the notifications they deliver (push-channels.ts). */
  readonly push: PushChannels;
  private server: Server | undefined;
  private base = '';

  constructor(startMs: number) {
    this.clock = new SimulatedClock(startMs);
    this.eventsList = new EventsList(this.store, this.tenant, this.quotas, this.clock);
    this.directory = new Directory(this.tenant, this.clock);
    this.control = new CalendarControl(this.store, this.tenant, this.eventsList, this.clock);
    this.push = new PushChannels(this.store, this.tenant, this.clock, () => this.apiBase);
    this.store.onChange = (owner) => this.push.changed(owner);
  }

  get tokenUrl(): string {
    return `${this.base}/token`;
  }

  /** Base of the Calendar API, like `https://www.googleapis.com/calendar/v3`. */
  get apiBase(): string {
    return `${this.base}/calendar/v3`;
  }

  /** Base of the Admin SDK Directory API, like `https://admin.googleapis.com/admin/directory/v1`. */
  get directoryBase(): string {
    return `${this.base}/admin/directory/v1`;
  }

  async start(port = 0): Promise<void> {
    // A web page that rebinds its name to 127.0.0.1 reaches this too: refused (421) like every local server.
    const { server, port: listening } = await listenOnLoopback((req, res) => {
      void this.handle(req, res);
    }, port);
    this.server = server;
    this.base = `http://127.0.0.1:${listening}`;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', this.base);
    let answer: SimulatorAnswer;
    try {
      if (url.pathname === '/token' && req.method === 'POST') {
        const form = await readForm(req);
        answer = form
          ? answerTokenRequest(form, this.tokenUrl, this.tenant, this.clock)
          : { status: 400, body: { error: 'invalid_request', error_description: 'expected a small form body' } };
      } else if (req.method === 'POST' && (WATCH_PATH.test(url.pathname) || url.pathname === STOP_PATH)) {
        const body = await readJson(req);
        const watched = WATCH_PATH.exec(url.pathname);
        answer =
          body === undefined
            ? apiError(400, 'parseError', 'Parse Error')
            : watched
              ? this.push.watch(decodeURIComponent(watched[1]!), body, req.headers.authorization)
              : this.push.stop(body, req.headers.authorization);
      } else {
        const calendar = EVENTS_PATH.exec(url.pathname);
        const group = MEMBERS_PATH.exec(url.pathname);
        answer =
          calendar && req.method === 'GET'
            ? this.eventsList.answer(decodeURIComponent(calendar[1]!), url.searchParams, req.headers.authorization)
            : group && req.method === 'GET'
              ? this.directory.answer(decodeURIComponent(group[1]!), url.searchParams, req.headers.authorization)
              : apiError(404, 'notFound', 'Not Found');
      }
    } catch (error) {
      answer = apiError(500, 'backendError', error instanceof Error ? error.message : 'Backend Error');
    }
    if (answer.status === 204) {
      res.writeHead(204, answer.headers).end();
      return;
    }
    res.writeHead(answer.status, { 'content-type': 'application/json; charset=UTF-8', ...answer.headers });
    res.end(JSON.stringify(answer.body));
  }
}

async function readForm(req: IncomingMessage): Promise<URLSearchParams | undefined> {
  if (!(req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) {
    req.resume();
    return undefined;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_FORM_BYTES) return undefined;
    chunks.push(chunk as Buffer);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

/** A small JSON body (watch and stop requests), or undefined when it is not one. */
async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_FORM_BYTES) return undefined;
    chunks.push(chunk as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}
