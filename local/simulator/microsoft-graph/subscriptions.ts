/**
 * Graph change notifications on users' events, as Graph's subscription reference and
 * its webhook guides describe them:
 * - `POST /v1.0/subscriptions` takes `changeType` (created, updated, deleted, comma
 *   separated), `notificationUrl`, an optional `lifecycleNotificationUrl`, `resource`
 *   `users/{id | userPrincipalName}/events`, `expirationDateTime` in the future and at
 *   most 4,230 minutes ahead (Outlook events), and an optional `clientState` of at
 *   most 128 characters. Both URLs must be https (the simulator lets plain http
 *   through for 127.0.0.1 only). Before answering, Graph validates each URL: it POSTs
 *   to `url?validationToken=<url-encoded token>` and needs a 200 `text/plain` answer
 *   whose body is the decoded token, within 10 seconds; anything else refuses the
 *   subscription with 400.
 * - `PATCH /v1.0/subscriptions/{id}` moves `expirationDateTime` (same bounds);
 *   `DELETE /v1.0/subscriptions/{id}` ends it (204). An expired subscription is gone (404).
 * - each change of a subscribed mailbox's events is POSTed to `notificationUrl` as
 *   `{ value: [{ subscriptionId, subscriptionExpirationDateTime, changeType, resource,
 *   resourceData, clientState, tenantId }] }`; the receiver must answer 2xx within a
 *   few seconds.
 * - lifecycle notifications (`reauthorizationRequired`, `subscriptionRemoved`,
 *   `missed`) go to `lifecycleNotificationUrl`; tests trigger them (`sendLifecycle`).
 *   A removed subscription delivers nothing more.
 */
import { randomUUID } from 'node:crypto';
import type { Directory } from './directory';
import type { GraphRefusal } from './graph-errors';

/** Graph's longest lifetime for a subscription on Outlook events. */
export const MAX_EVENT_SUBSCRIPTION_MINUTES = 4_230;
export const MAX_CLIENT_STATE_CHARS = 128;
/** How long Graph waits for the validation answer. */
export const VALIDATION_TIMEOUT_MS = 10_000;
/** How long the simulator waits for a notification's answer before counting it failed. */
export const NOTIFICATION_TIMEOUT_MS = 3_000;

const CHANGE_TYPES = new Set(['created', 'updated', 'deleted']);
const EVENTS_RESOURCE = /^\/?users\/([^/]+)\/events$/i;
const CALENDAR_READ_ROLES = ['Calendars.Read', 'Calendars.ReadBasic.All', 'Calendars.ReadWrite'];
const MINUTE = 60_000;

export type ChangeType = 'created' | 'updated' | 'deleted';
export type LifecycleEvent = 'reauthorizationRequired' | 'subscriptionRemoved' | 'missed';

export interface StoredSubscription {
  id: string;
  tenantId: string;
  clientId: string;
  userId: string;
  resource: string;
  changeTypes: Set<string>;
  changeType: string;
  notificationUrl: string;
  lifecycleNotificationUrl?: string;
  clientState?: string;
  expiresAt: number;
}

/** One notification sent, with the receiver's answer (0: none in time). */
export interface NotificationDelivery {
  subscriptionId: string;
  kind: ChangeType | LifecycleEvent;
  status: number;
}

export type SubscriptionAnswer =
  | { status: 200 | 201; body: Record<string, unknown> }
  | { status: 204 }
  | { status: number; refusal: GraphRefusal };

function refuse(status: number, code: string, message: string): SubscriptionAnswer {
  return { status, refusal: { status, code, message } };
}

/** https anywhere; plain http only to this machine (tests and local mode). */
function deliverable(address: unknown): address is string {
  if (typeof address !== 'string') return false;
  try {
    const url = new URL(address);
    return url.protocol === 'https:' || (url.protocol === 'http:' && url.hostname === '127.0.0.1');
  } catch {
    return false;
  }
}

export class Subscriptions {
  readonly subscriptions = new Map<string, StoredSubscription>();
  readonly deliveries: NotificationDelivery[] = [];
  private readonly inFlight = new Set<Promise<void>>();

  constructor(private readonly directory: Directory) {}

  async create(body: unknown, authorization: string | undefined): Promise<SubscriptionAnswer> {
    const caller = this.caller(authorization);
    if ('refusal' in caller) return caller;
    const request = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
    const { changeType, notificationUrl, lifecycleNotificationUrl, resource, expirationDateTime, clientState } =
      request;
    const types = typeof changeType === 'string' ? changeType.split(',').map((type) => type.trim()) : [];
    if (types.length === 0 || !types.every((type) => CHANGE_TYPES.has(type)))
      return refuse(400, 'InvalidRequest', "changeType must name one or more of 'created', 'updated', 'deleted'.");
    if (!deliverable(notificationUrl))
      return refuse(400, 'InvalidRequest', 'The notificationUrl must be an https URL.');
    if (lifecycleNotificationUrl !== undefined && !deliverable(lifecycleNotificationUrl))
      return refuse(400, 'InvalidRequest', 'The lifecycleNotificationUrl must be an https URL.');
    if (clientState !== undefined && (typeof clientState !== 'string' || clientState.length > MAX_CLIENT_STATE_CHARS))
      return refuse(400, 'InvalidRequest', `clientState must be at most ${MAX_CLIENT_STATE_CHARS} characters.`);
    const userKey = typeof resource === 'string' ? EVENTS_RESOURCE.exec(resource)?.[1] : undefined;
    if (userKey === undefined)
      return refuse(400, 'InvalidRequest', 'The resource must be users/{id}/events for this simulator.');
    const user = this.directory.findUser(caller.tenantId, decodeURIComponent(userKey));
    if (user === undefined) return refuse(404, 'ErrorInvalidUser', `The requested user '${userKey}' is invalid.`);
    const app = this.directory.tenants.get(caller.tenantId)?.apps.get(caller.clientId);
    if (app?.allowedUsers !== undefined && !app.allowedUsers.has(user.id))
      return refuse(
        403,
        'ErrorAccessDenied',
        "Access to OData is disabled: the tenant's application access policy does not let this app read this mailbox.",
      );
    const expiresAt = this.expiry(expirationDateTime);
    if (typeof expiresAt !== 'number') return expiresAt;
    for (const url of [notificationUrl, lifecycleNotificationUrl]) {
      if (url !== undefined && !(await validates(url))) {
        return refuse(
          400,
          'ValidationError',
          `Subscription validation request failed. Notification endpoint must respond with 200 OK to validation request.`,
        );
      }
    }
    const subscription: StoredSubscription = {
      id: randomUUID(),
      tenantId: caller.tenantId,
      clientId: caller.clientId,
      userId: user.id,
      resource: resource as string,
      changeTypes: new Set(types),
      changeType: types.join(','),
      notificationUrl,
      ...(lifecycleNotificationUrl !== undefined
        ? { lifecycleNotificationUrl: lifecycleNotificationUrl as string }
        : {}),
      ...(clientState !== undefined ? { clientState: clientState as string } : {}),
      expiresAt,
    };
    this.subscriptions.set(subscription.id, subscription);
    return { status: 201, body: this.resourceOf(subscription) };
  }

  renew(id: string, body: unknown, authorization: string | undefined): SubscriptionAnswer {
    const caller = this.caller(authorization);
    if ('refusal' in caller) return caller;
    const subscription = this.live(id, caller.clientId);
    if (subscription === undefined) return refuse(404, 'ResourceNotFound', `The object was not found: ${id}`);
    const expiresAt = this.expiry((body as { expirationDateTime?: unknown } | null)?.expirationDateTime);
    if (typeof expiresAt !== 'number') return expiresAt;
    subscription.expiresAt = expiresAt;
    return { status: 200, body: this.resourceOf(subscription) };
  }

  remove(id: string, authorization: string | undefined): SubscriptionAnswer {
    const caller = this.caller(authorization);
    if ('refusal' in caller) return caller;
    if (this.live(id, caller.clientId) === undefined)
      return refuse(404, 'ResourceNotFound', `The object was not found: ${id}`);
    this.subscriptions.delete(id);
    return { status: 204 };
  }

  /** A change in a mailbox: each live subscription on it that asked for this change type is notified, per item. */
  changed(userId: string, itemIds: readonly string[], changeType: ChangeType): void {
    for (const subscription of this.subscriptions.values()) {
      if (subscription.userId !== userId || !subscription.changeTypes.has(changeType)) continue;
      if (subscription.expiresAt <= this.directory.now()) continue;
      const value = itemIds.map((itemId) => ({
        subscriptionId: subscription.id,
        subscriptionExpirationDateTime: new Date(subscription.expiresAt).toISOString(),
        changeType,
        resource: `Users/${userId}/Events/${itemId}`,
        resourceData: {
          '@odata.type': '#Microsoft.Graph.Event',
          '@odata.id': `Users/${userId}/Events/${itemId}`,
          id: itemId,
        },
        ...(subscription.clientState !== undefined ? { clientState: subscription.clientState } : {}),
        tenantId: subscription.tenantId,
      }));
      this.deliver(subscription.id, changeType, subscription.notificationUrl, { value });
    }
  }

  /** Graph's lifecycle notification for a subscription; `subscriptionRemoved` ends it first. */
  sendLifecycle(id: string, lifecycleEvent: LifecycleEvent): void {
    const subscription = this.subscriptions.get(id);
    if (subscription?.lifecycleNotificationUrl === undefined)
      throw new Error(`subscription ${id} is unknown or has no lifecycleNotificationUrl`);
    if (lifecycleEvent === 'subscriptionRemoved') this.subscriptions.delete(id);
    this.deliver(id, lifecycleEvent, subscription.lifecycleNotificationUrl, {
      value: [
        {
          subscriptionId: id,
          subscriptionExpirationDateTime: new Date(subscription.expiresAt).toISOString(),
          tenantId: subscription.tenantId,
          ...(subscription.clientState !== undefined ? { clientState: subscription.clientState } : {}),
          lifecycleEvent,
        },
      ],
    });
  }

  /** Resolves once every notification sent so far has been answered (or timed out). */
  async settled(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.all([...this.inFlight]);
  }

  private live(id: string, clientId: string): StoredSubscription | undefined {
    const subscription = this.subscriptions.get(id);
    if (subscription === undefined || subscription.clientId !== clientId) return undefined;
    if (subscription.expiresAt <= this.directory.now()) {
      this.subscriptions.delete(id);
      return undefined;
    }
    return subscription;
  }

  private expiry(value: unknown): number | SubscriptionAnswer {
    const at = typeof value === 'string' ? Date.parse(value) : Number.NaN;
    if (Number.isNaN(at)) return refuse(400, 'InvalidRequest', 'expirationDateTime must be an ISO 8601 time.');
    const now = this.directory.now();
    if (at <= now) return refuse(400, 'InvalidRequest', 'Subscription expiration must be in the future.');
    if (at > now + MAX_EVENT_SUBSCRIPTION_MINUTES * MINUTE)
      return refuse(
        400,
        'InvalidRequest',
        `Subscription expiration can only be ${MAX_EVENT_SUBSCRIPTION_MINUTES} minutes in the future.`,
      );
    return at;
  }

  private caller(
    authorization: string | undefined,
  ): { tenantId: string; clientId: string } | { status: number; refusal: GraphRefusal } {
    const bearer = /^Bearer (\S+)$/i.exec(authorization ?? '')?.[1];
    const token = bearer === undefined ? undefined : this.directory.tokens.get(bearer);
    if (
      token === undefined ||
      token.expiresAt <= this.directory.now() ||
      !this.directory.graphAudiences.has(token.audience)
    )
      return {
        status: 401,
        refusal: {
          status: 401,
          code: 'InvalidAuthenticationToken',
          message: 'Access token is missing, expired or not for Graph.',
        },
      };
    const app = this.directory.tenants.get(token.tenantId)?.apps.get(token.clientId);
    if (!CALENDAR_READ_ROLES.some((role) => token.roles.includes(role) && app?.roles.has(role)))
      return {
        status: 403,
        refusal: {
          status: 403,
          code: 'ExtensionError',
          message: 'Operation: Create; Exception: [Status Code: Forbidden; Reason: Access is denied.]',
        },
      };
    return { tenantId: token.tenantId, clientId: token.clientId };
  }

  private resourceOf(subscription: StoredSubscription): Record<string, unknown> {
    return {
      '@odata.context': 'https://graph.microsoft.com/v1.0/$metadata#subscriptions/$entity',
      id: subscription.id,
      resource: subscription.resource,
      applicationId: subscription.clientId,
      changeType: subscription.changeType,
      clientState: subscription.clientState ?? null,
      notificationUrl: subscription.notificationUrl,
      lifecycleNotificationUrl: subscription.lifecycleNotificationUrl ?? null,
      expirationDateTime: new Date(subscription.expiresAt).toISOString(),
      latestSupportedTlsVersion: 'v1_2',
    };
  }

  private deliver(subscriptionId: string, kind: NotificationDelivery['kind'], url: string, body: unknown): void {
    const delivery = fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(NOTIFICATION_TIMEOUT_MS),
    })
      .then(async (response) => {
        await response.arrayBuffer();
        return response.status;
      })
      .catch(() => 0)
      .then((status) => void this.deliveries.push({ subscriptionId, kind, status }));
    this.inFlight.add(delivery);
    void delivery.finally(() => this.inFlight.delete(delivery));
  }
}

/**
 * Graph's validation request: a token with spaces and punctuation, URL-encoded in the
 * query, that must come back decoded, byte for byte, as a 200 text/plain body.
 */
async function validates(url: string): Promise<boolean> {
  const token = `Validation: Testing client application reachability for subscription Request-Id: ${randomUUID()}`;
  // Percent-encoded (spaces as %20), as Graph sends it.
  const target = `${url}${url.includes('?') ? '&' : '?'}validationToken=${encodeURIComponent(token)}`;
  try {
    const response = await fetch(target, {
      method: 'POST',
      headers: { 'content-type': 'text/plain; charset=utf-8' },
      signal: AbortSignal.timeout(VALIDATION_TIMEOUT_MS),
    });
    const text = await response.text();
    return (
      response.status === 200 && (response.headers.get('content-type') ?? '').startsWith('text/plain') && text === token
    );
  } catch {
    return false;
  }
}
