/**
 * Opening, renewing and closing a user's push channel at each provider, over their
 * REST APIs (the endpoints are configuration, as for the sync):
 * - Google: `POST {calendarApi}/calendars/{user}/events/watch` with our channel id,
 *   the route's address, the secret as the channel token and a ttl; a channel cannot
 *   be extended, so renewing is opening a new one (the caller then closes the old)
 *   and closing is `POST {calendarApi}/channels/stop` with the id and resourceId.
 * - Graph: `POST {graph}/subscriptions` on `users/{user}/events` with the secret as
 *   clientState (Graph validates both URLs before answering), `PATCH` to move the
 *   expiry, `DELETE` to end it.
 * A channel the provider no longer knows (404) counts as closed. A redirect is refused and an answer
 * read up to PROVIDER_LIMITS.responseBytes, as for every provider call (provider-answer.ts).
 */
import { randomUUID } from 'node:crypto';
import { NO_REDIRECTS, readBoundedText, refuseRedirect } from '../provider-answer';
import type { ProviderEndpoints, ProviderName } from '../provider-contract';
import { GRAPH_EVENT_SUBSCRIPTION_MAX_MINUTES, PUSH_ROUTES, type PushSettings } from './push-settings';
import type { PushChannelRecord } from './push-store';

/** What the provider answered when a channel was opened. */
export interface OpenedChannel {
  channelId: string;
  resourceId?: string;
  expiresAtMs: number;
}

export interface ChannelApi {
  open(user: string, secret: string, token: string): Promise<OpenedChannel>;
  /** The new expiry, or undefined when the channel cannot be extended (Google) or is gone (Graph 404). */
  renew(record: PushChannelRecord, token: string): Promise<number | undefined>;
  close(record: PushChannelRecord, token: string): Promise<void>;
}

/** A provider answered a push call with an error: the user's channel is tried again at the next run. */
export class PushChannelError extends Error {
  override name = 'PushChannelError';
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export interface ChannelApiOptions {
  endpoints: ProviderEndpoints;
  settings: PushSettings;
  now(): number;
  fetch?: typeof fetch;
}

const TIMEOUT_MS = 15_000;

async function call(
  fetcher: typeof fetch,
  method: string,
  url: string,
  token: string,
  body?: unknown,
): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await fetcher(url, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
    ...(body !== undefined && { body: JSON.stringify(body) }),
    // The body holds the channel secret (Google's token, Graph's clientState): never sent on elsewhere.
    ...NO_REDIRECTS,
    signal: AbortSignal.timeout(TIMEOUT_MS),
  });
  const who = `${method} ${new URL(url).pathname}`;
  await refuseRedirect(response, who);
  const text = await readBoundedText(response, who);
  let json: Record<string, unknown> = {};
  try {
    json = text === '' ? {} : (JSON.parse(text) as Record<string, unknown>);
  } catch {
    // An unreadable body: the status decides.
  }
  return { status: response.status, json };
}

function ensureOk(answer: { status: number }, what: string): void {
  if (answer.status < 200 || answer.status >= 300)
    throw new PushChannelError(answer.status, `${what}: HTTP ${answer.status}`);
}

export function googleChannelApi(options: ChannelApiOptions): ChannelApi {
  const fetcher = options.fetch ?? fetch;
  const base = options.endpoints.googleCalendarApi;
  return {
    async open(user, secret, token) {
      const channelId = randomUUID();
      const answer = await call(fetcher, 'POST', `${base}/calendars/${encodeURIComponent(user)}/events/watch`, token, {
        id: channelId,
        type: 'web_hook',
        address: `${options.settings.publicBaseUrl}${PUSH_ROUTES.google}`,
        token: secret,
        params: { ttl: String(options.settings.googleChannelTtlSeconds) },
      });
      ensureOk(answer, 'events.watch');
      const expiresAtMs = Number(answer.json.expiration);
      const resourceId = answer.json.resourceId;
      if (typeof resourceId !== 'string' || !Number.isFinite(expiresAtMs))
        throw new PushChannelError(answer.status, 'events.watch answered without resourceId or expiration');
      return { channelId, resourceId, expiresAtMs };
    },
    async renew() {
      return undefined;
    },
    async close(record, token) {
      const answer = await call(fetcher, 'POST', `${base}/channels/stop`, token, {
        id: record.channelId,
        resourceId: record.resourceId,
      });
      if (answer.status !== 404) ensureOk(answer, 'channels.stop');
    },
  };
}

export function graphSubscriptionApi(options: ChannelApiOptions): ChannelApi {
  const fetcher = options.fetch ?? fetch;
  const base = options.endpoints.microsoftGraph;
  const furthestExpiry = () =>
    options.now() + GRAPH_EVENT_SUBSCRIPTION_MAX_MINUTES * 60_000 - options.settings.graphSafetyMarginMs;
  return {
    async open(user, secret, token) {
      const expiresAtMs = furthestExpiry();
      const answer = await call(fetcher, 'POST', `${base}/subscriptions`, token, {
        changeType: 'created,updated,deleted',
        notificationUrl: `${options.settings.publicBaseUrl}${PUSH_ROUTES.microsoft}`,
        lifecycleNotificationUrl: `${options.settings.publicBaseUrl}${PUSH_ROUTES.microsoftLifecycle}`,
        resource: `users/${encodeURIComponent(user)}/events`,
        expirationDateTime: new Date(expiresAtMs).toISOString(),
        clientState: secret,
      });
      ensureOk(answer, 'POST /subscriptions');
      const id = answer.json.id;
      if (typeof id !== 'string') throw new PushChannelError(answer.status, 'POST /subscriptions answered without id');
      const granted = Date.parse(String(answer.json.expirationDateTime));
      return { channelId: id, expiresAtMs: Number.isNaN(granted) ? expiresAtMs : granted };
    },
    async renew(record, token) {
      const expiresAtMs = furthestExpiry();
      const answer = await call(
        fetcher,
        'PATCH',
        `${base}/subscriptions/${encodeURIComponent(record.channelId)}`,
        token,
        {
          expirationDateTime: new Date(expiresAtMs).toISOString(),
        },
      );
      if (answer.status === 404) return undefined;
      ensureOk(answer, 'PATCH /subscriptions');
      const granted = Date.parse(String(answer.json.expirationDateTime));
      return Number.isNaN(granted) ? expiresAtMs : granted;
    },
    async close(record, token) {
      const answer = await call(
        fetcher,
        'DELETE',
        `${base}/subscriptions/${encodeURIComponent(record.channelId)}`,
        token,
      );
      if (answer.status !== 404) ensureOk(answer, 'DELETE /subscriptions');
    },
  };
}

export type ChannelApis = Record<ProviderName, ChannelApi>;

export const channelApis = (options: ChannelApiOptions): ChannelApis => ({
  google: googleChannelApi(options),
  microsoft: graphSubscriptionApi(options),
});
