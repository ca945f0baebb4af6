/**
 * Push notifications as the Calendar API sends them (Google's push guide and the
 * `events.watch` / `channels.stop` reference):
 * - `POST /calendar/v3/calendars/{calendarId}/events/watch` opens a channel: `id`
 *   (the caller's, `[A-Za-z0-9\-_+/=]`, 64 characters at most, unique), `type`
 *   `web_hook`, an `address` that must be https (the simulator lets plain http
 *   through for 127.0.0.1 only), an optional `token` (256 characters at most) and
 *   `params.ttl` in seconds. The answer is the Channel with the `resourceId` Google
 *   chose and the `expiration` (ms since the epoch, as a string).
 * - the receiver first gets one `sync` message, then one `exists` message for each
 *   change of the watched calendar; every message is a bodiless POST whose headers
 *   say which channel, resource and state, with a message number counting up;
 * - a channel delivers nothing after its expiration (it cannot be extended: a new
 *   channel must be opened) nor after `POST /calendar/v3/channels/stop` with its
 *   `id` and `resourceId`.
 */
import { randomBytes } from 'node:crypto';
import type { CalendarStore } from './calendar-store';
import type { SimulatedClock } from './clock';
import { apiError, type SimulatorAnswer } from './google-errors';
import { CALENDAR_READ_SCOPES, type Tenant } from './tenant';

const CHANNEL_ID = /^[A-Za-z0-9\-_+/=]{1,64}$/;
const MAX_TOKEN_CHARS = 256;
/** How long a channel lives when the caller asks for no ttl, and the longest the simulator grants: one week. */
export const DEFAULT_CHANNEL_TTL_SECONDS = 604_800;
/** How long the simulator waits for a receiver before counting a delivery failed. */
const DELIVERY_TIMEOUT_MS = 10_000;

export interface WatchChannel {
  id: string;
  resourceId: string;
  resourceUri: string;
  owner: string;
  address: string;
  token?: string;
  expirationMs: number;
  /** The message number of the last message sent (the sync message is 1). */
  messageNumber: number;
}

/** One message sent, with the receiver's answer (0: no answer in time). */
export interface ChannelDelivery {
  channelId: string;
  state: 'sync' | 'exists';
  status: number;
  sentAtMs: number;
}

export class PushChannels {
  readonly channels = new Map<string, WatchChannel>();
  readonly deliveries: ChannelDelivery[] = [];
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    private readonly store: CalendarStore,
    private readonly tenant: Tenant,
    private readonly clock: SimulatedClock,
    private readonly apiBase: () => string,
  ) {}

  watch(calendarId: string, body: unknown, authorization: string | undefined): SimulatorAnswer {
    const caller = this.caller(authorization);
    if ('status' in caller) return caller;
    const owner = calendarId === 'primary' ? caller.user : calendarId;
    if (!this.store.mayRead(caller.user, owner)) {
      return apiError(403, 'forbidden', `The caller has no access to the calendar ${calendarId}`);
    }
    const request = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
    const { id, type, address, token, params } = request;
    if (typeof id !== 'string' || !CHANNEL_ID.test(id)) {
      return apiError(400, 'invalid', 'Channel id must be 1 to 64 characters from [A-Za-z0-9-_+/=].');
    }
    if (this.channels.has(id)) return apiError(400, 'channelIdNotUnique', `Channel id ${id} not unique`);
    if (type !== 'web_hook') return apiError(400, 'invalid', 'Channel type must be web_hook.');
    if (typeof address !== 'string' || !deliverable(address)) {
      return apiError(400, 'push.webhookUrlNotHttps', `WebHook callback must be HTTPS: ${String(address)}`);
    }
    if (token !== undefined && (typeof token !== 'string' || token.length > MAX_TOKEN_CHARS)) {
      return apiError(400, 'invalid', `Channel token must be a string of at most ${MAX_TOKEN_CHARS} characters.`);
    }
    const ttlText = (params as { ttl?: unknown } | undefined)?.ttl;
    const ttl = ttlText === undefined ? DEFAULT_CHANNEL_TTL_SECONDS : Number(ttlText);
    if (!Number.isInteger(ttl) || ttl <= 0) return apiError(400, 'invalid', 'params.ttl must be a positive integer.');
    const resourceId = randomBytes(18).toString('base64url');
    const channel: WatchChannel = {
      id,
      resourceId,
      resourceUri: `${this.apiBase()}/calendars/${encodeURIComponent(owner)}/events?alt=json`,
      owner,
      address,
      ...(token !== undefined ? { token } : {}),
      expirationMs: this.clock.now() + Math.min(ttl, DEFAULT_CHANNEL_TTL_SECONDS) * 1000,
      messageNumber: 0,
    };
    this.channels.set(id, channel);
    this.send(channel, 'sync');
    return {
      status: 200,
      body: {
        kind: 'api#channel',
        id,
        resourceId,
        resourceUri: channel.resourceUri,
        ...(token !== undefined ? { token } : {}),
        expiration: String(channel.expirationMs),
      },
    };
  }

  stop(body: unknown, authorization: string | undefined): SimulatorAnswer {
    const caller = this.caller(authorization);
    if ('status' in caller) return caller;
    const { id, resourceId } = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
    const channel = typeof id === 'string' ? this.channels.get(id) : undefined;
    if (!channel || channel.resourceId !== resourceId) {
      return apiError(404, 'notFound', `Channel '${String(id)}' not found for project`);
    }
    this.channels.delete(channel.id);
    return { status: 204, body: undefined };
  }

  /** A change in `owner`'s calendar: one `exists` message on each live channel watching it. */
  changed(owner: string): void {
    for (const channel of this.channels.values()) {
      if (channel.owner === owner && channel.expirationMs > this.clock.now()) this.send(channel, 'exists');
    }
  }

  /** Resolves once every message sent so far has been answered (or timed out). */
  async settled(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.all([...this.inFlight]);
  }

  private caller(authorization: string | undefined): { user: string } | SimulatorAnswer {
    const bearer = /^Bearer (\S+)$/.exec(authorization ?? '')?.[1];
    const token = bearer ? this.tenant.accessTokens.get(bearer) : undefined;
    if (!token || token.expiresAtMs <= this.clock.now()) {
      return apiError(401, 'authError', 'Invalid Credentials', { location: 'Authorization', locationType: 'header' });
    }
    if (!token.scopes.some((scope) => (CALENDAR_READ_SCOPES as readonly string[]).includes(scope))) {
      return apiError(403, 'insufficientPermissions', 'Request had insufficient authentication scopes.');
    }
    return { user: token.user };
  }

  private send(channel: WatchChannel, state: 'sync' | 'exists'): void {
    channel.messageNumber += 1;
    const headers: Record<string, string> = {
      'X-Goog-Channel-ID': channel.id,
      'X-Goog-Channel-Expiration': new Date(channel.expirationMs).toUTCString(),
      'X-Goog-Resource-ID': channel.resourceId,
      'X-Goog-Resource-URI': channel.resourceUri,
      'X-Goog-Resource-State': state,
      'X-Goog-Message-Number': String(channel.messageNumber),
      ...(channel.token !== undefined ? { 'X-Goog-Channel-Token': channel.token } : {}),
    };
    const sentAtMs = this.clock.now();
    const delivery = fetch(channel.address, {
      method: 'POST',
      headers,
      signal: AbortSignal.timeout(DELIVERY_TIMEOUT_MS),
    })
      .then(async (response) => {
        await response.arrayBuffer();
        return response.status;
      })
      .catch(() => 0)
      .then((status) => void this.deliveries.push({ channelId: channel.id, state, status, sentAtMs }));
    this.inFlight.add(delivery);
    void delivery.finally(() => this.inFlight.delete(delivery));
  }
}

/** https anywhere; plain http only to this machine (tests and local mode). */
function deliverable(address: string): boolean {
  try {
    const url = new URL(address);
    return url.protocol === 'https:' || (url.protocol === 'http:' && url.hostname === '127.0.0.1');
  } catch {
    return false;
  }
}
