/**
 * The notification routes' decisions, cheapest refusal first, as the webhook ingress
 * does: sizes and shapes before parsing, the secret's HMAC (constant time) before any
 * table read, and only then the channel looked up by the secret's id and matched to
 * the channel the notification names. Every refusal is counted
 * (METRICS.calendarPushRefused by provider) and answered with a short 4xx; a
 * verified notification asks for its user's incremental sync (one request per user
 * per notification request).
 *
 * - Google: one bodiless POST per message; the token header carries the secret. The
 *   first message of a channel (`sync`) only says it is open: verified, it is answered
 *   without a read (it may come before the channel is stored).
 * - Graph: `?validationToken=` is the handshake (echoed as 200 text/plain); else a
 *   JSON body `{ value: [...] }`, each item carrying the secret as clientState;
 *   answered 202 when at least one item held.
 * - Graph lifecycle: the same, plus the channel marked due in the table for the
 *   renewal run of the scheduled sync: `reauthorizationRequired` inside the renew
 *   margin (renewed), `subscriptionRemoved` lapsed (recreated); `missed`: the sync is
 *   the cure. The routes never read a credential nor call a provider: only the sync
 *   functions do.
 */
import * as z from 'zod/mini';
import type { SecretSource } from '../../../secrets';
import { METRICS, type Telemetry } from '../../../telemetry';
import type { ProviderName, UserSyncQueue, UserSyncRequest } from '../provider-contract';
import { PUSH_SECRET_MAX_CHARS, verifyPushSecret } from './push-secret';
import type { PushLimits } from './push-settings';
import type { PushChannelRecord, PushRouteStore } from './push-store';

export interface PushAnswer {
  status: number;
  contentType: 'text/plain; charset=utf-8' | 'application/json';
  body: string;
}

export interface PushReceiverDependencies {
  pushKey: SecretSource;
  channels: Pick<PushRouteStore, 'getRoute'>;
  queue: UserSyncQueue;
  telemetry: Telemetry;
  limits: PushLimits;
}

/** What a Graph lifecycle notification needs besides: marking its channel due for the renewal run. */
export interface LifecycleDependencies extends PushReceiverDependencies {
  channels: PushRouteStore;
  /** The renewal run's margin: a channel expiring sooner than this is renewed. */
  renewMarginMs: number;
  now(): number;
}

/** Inside the renew margin by this much, so the next run (sooner than the margin) renews rather than recreates. */
const DUE_INSIDE_MARGIN_MS = 60_000;

const json = (status: number, body: Record<string, unknown>): PushAnswer => ({
  status,
  contentType: 'application/json',
  body: JSON.stringify(body),
});

function refuse(deps: PushReceiverDependencies, provider: ProviderName, status: number, reason: string): PushAnswer {
  deps.telemetry.metrics.emit(METRICS.calendarPushRefused, 1, { provider });
  deps.telemetry.log.warn('calendar push refused', { provider, reason });
  return json(status, { error: reason });
}

/** Header lookup, whatever case the caller used. */
function header(headers: Readonly<Record<string, string | undefined>>, name: string): string | undefined {
  return headers[name] ?? Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1];
}

/** The user a verified secret's channel belongs to, when the notification names that very channel. */
async function channelOf(
  deps: PushReceiverDependencies,
  provider: ProviderName,
  secretId: string,
  channelId: string,
): Promise<PushChannelRecord | undefined> {
  const record = await deps.channels.getRoute(secretId);
  return record !== undefined && record.provider === provider && record.channelId === channelId ? record : undefined;
}

const syncRequest = (record: PushChannelRecord): UserSyncRequest => ({
  calendar_id: record.calendarId,
  user: record.user,
  reason: 'push',
});

/** One request per user: a batch naming the same user twice syncs it once. */
function distinct(requests: UserSyncRequest[]): UserSyncRequest[] {
  const seen = new Map<string, UserSyncRequest>();
  for (const request of requests) seen.set(`${request.calendar_id}\u0000${request.user}`, request);
  return [...seen.values()];
}

const GOOGLE_STATES = new Set(['sync', 'exists', 'not_exists']);
const GOOGLE_CHANNEL_ID = /^[A-Za-z0-9\-_+/=]{1,64}$/;

export async function handleGooglePush(
  headers: Readonly<Record<string, string | undefined>>,
  deps: PushReceiverDependencies,
): Promise<PushAnswer> {
  const token = header(headers, 'x-goog-channel-token');
  const channelId = header(headers, 'x-goog-channel-id');
  const state = header(headers, 'x-goog-resource-state');
  if (token === undefined || token.length > PUSH_SECRET_MAX_CHARS)
    return refuse(deps, 'google', 401, 'bad channel token');
  if (channelId === undefined || !GOOGLE_CHANNEL_ID.test(channelId) || state === undefined || !GOOGLE_STATES.has(state))
    return refuse(deps, 'google', 400, 'not a channel message');
  const secretId = verifyPushSecret(await deps.pushKey.read(), 'google', token);
  if (secretId === undefined) return refuse(deps, 'google', 401, 'bad channel token');
  // A channel's first message only says it is open; it may arrive before the channel is stored.
  if (state === 'sync') return json(200, { status: 'ok' });
  const record = await channelOf(deps, 'google', secretId, channelId);
  if (record === undefined) return refuse(deps, 'google', 404, 'unknown channel');
  await deps.queue.send([syncRequest(record)]);
  return json(200, { status: 'ok' });
}

const graphItem = z.object({
  subscriptionId: z.string().check(z.maxLength(200)),
  clientState: z.optional(z.string()),
  lifecycleEvent: z.optional(z.string()),
});
type GraphItem = z.infer<typeof graphItem>;

/** Graph's validation request: echo the (already decoded) token, bounded. */
function validationAnswer(
  query: Readonly<Record<string, string | undefined>>,
  provider: ProviderName,
  deps: PushReceiverDependencies,
): PushAnswer | undefined {
  const token = query.validationToken;
  if (token === undefined) return undefined;
  if (token.length === 0 || token.length > deps.limits.maxValidationTokenChars)
    return refuse(deps, provider, 400, 'bad validation token');
  return { status: 200, contentType: 'text/plain; charset=utf-8', body: token };
}

/** The verified items of a Graph notification body with their channels, or the refusal. */
async function verifiedGraphItems(
  body: Uint8Array,
  deps: PushReceiverDependencies,
): Promise<{ refusal: PushAnswer } | { items: Array<{ item: GraphItem; record: PushChannelRecord }> }> {
  if (body.byteLength > deps.limits.maxBodyBytes) return { refusal: refuse(deps, 'microsoft', 413, 'body too large') };
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(body).toString('utf8'));
  } catch {
    return { refusal: refuse(deps, 'microsoft', 400, 'not JSON') };
  }
  const shape = z
    .object({ value: z.array(graphItem).check(z.minLength(1), z.maxLength(deps.limits.maxItems)) })
    .safeParse(parsed);
  if (!shape.success) return { refusal: refuse(deps, 'microsoft', 400, 'not a notification collection') };
  const key = await deps.pushKey.read();
  const verified: Array<{ item: GraphItem; secretId: string }> = [];
  for (const item of shape.data.value) {
    const secretId = verifyPushSecret(key, 'microsoft', item.clientState);
    if (secretId === undefined) refuse(deps, 'microsoft', 401, 'bad clientState');
    else verified.push({ item, secretId });
  }
  if (verified.length === 0) return { refusal: json(401, { error: 'bad clientState' }) };
  const items: Array<{ item: GraphItem; record: PushChannelRecord }> = [];
  for (const { item, secretId } of verified) {
    const record = await channelOf(deps, 'microsoft', secretId, item.subscriptionId);
    if (record === undefined) refuse(deps, 'microsoft', 404, 'unknown subscription');
    else items.push({ item, record });
  }
  if (items.length === 0) return { refusal: json(404, { error: 'unknown subscription' }) };
  return { items };
}

export async function handleGraphPush(
  query: Readonly<Record<string, string | undefined>>,
  body: Uint8Array,
  deps: PushReceiverDependencies,
): Promise<PushAnswer> {
  const validation = validationAnswer(query, 'microsoft', deps);
  if (validation !== undefined) return validation;
  const verified = await verifiedGraphItems(body, deps);
  if ('refusal' in verified) return verified.refusal;
  await deps.queue.send(distinct(verified.items.map(({ record }) => syncRequest(record))));
  return json(202, { status: 'accepted' });
}

export async function handleGraphLifecycle(
  query: Readonly<Record<string, string | undefined>>,
  body: Uint8Array,
  deps: LifecycleDependencies,
): Promise<PushAnswer> {
  const validation = validationAnswer(query, 'microsoft', deps);
  if (validation !== undefined) return validation;
  const verified = await verifiedGraphItems(body, deps);
  if ('refusal' in verified) return verified.refusal;
  for (const { item, record } of verified.items) {
    const now = deps.now();
    // Removed: gone at Graph, so lapsed (recreated). Reauthorize: still there, so renewed before it lapses.
    if (item.lifecycleEvent === 'subscriptionRemoved') await deps.channels.markDue(record, now);
    else if (item.lifecycleEvent === 'reauthorizationRequired')
      await deps.channels.markDue(record, now + deps.renewMarginMs - DUE_INSIDE_MARGIN_MS);
  }
  await deps.queue.send(distinct(verified.items.map(({ record }) => syncRequest(record))));
  return json(202, { status: 'accepted' });
}
