/**
 * What a company calendar provider (Google Workspace, Microsoft 365) is to the
 * pipeline: one admin grant for the tenant, then per user an incremental list of
 * changed event instances, a group's members, and a bearer token for the push
 * subscriptions. The per-user sync (company-sync.ts) codes against this only;
 * google/ and microsoft/ implement it over each provider's REST API.
 *
 * Everything a provider answers is outsider-controlled (any invite lands in a
 * calendar), so items come back already bounded (PROVIDER_LIMITS) and every
 * refusal is one of the error classes below, never a raw HTTP error.
 */
import type { LimitReached } from '../calendar-limits';
import type { Occurrence } from '../ics-occurrences';

export type ProviderName = 'google' | 'microsoft';

/**
 * Where each provider's endpoints are. Configuration, not constants: Microsoft's
 * national clouds have their own hosts, and local mode points them at the simulators.
 */
export interface ProviderEndpoints {
  /** Calendar API v3 base, e.g. `https://www.googleapis.com/calendar/v3`. */
  googleCalendarApi: string;
  /** Admin SDK Directory API base, e.g. `https://admin.googleapis.com/admin/directory/v1`. */
  googleDirectoryApi: string;
  /** OAuth 2.0 token endpoint (the JWT's audience), e.g. `https://oauth2.googleapis.com/token`. */
  googleTokenUrl: string;
  /** Graph base with its version, e.g. `https://graph.microsoft.com/v1.0`. */
  microsoftGraph: string;
  /** Entra ID authority host, e.g. `https://login.microsoftonline.com`. */
  microsoftLogin: string;
}

export const DEFAULT_PROVIDER_ENDPOINTS: ProviderEndpoints = {
  googleCalendarApi: 'https://www.googleapis.com/calendar/v3',
  googleDirectoryApi: 'https://admin.googleapis.com/admin/directory/v1',
  googleTokenUrl: 'https://oauth2.googleapis.com/token',
  microsoftGraph: 'https://graph.microsoft.com/v1.0',
  microsoftLogin: 'https://login.microsoftonline.com',
};

/** The span a full sync lists: instances starting in it are kept. */
export interface SyncWindow {
  from: string;
  to: string;
}

/** One event instance as a provider listed it: its item id (what a later removal names) and the occurrence the rules read. */
export interface ProviderItem {
  /** The provider's id of this instance (Google `id`, Graph `id`): stable across moves. */
  id: string;
  /**
   * uid: the iCalUID (the same in every attendee's copy); originalStart: the
   * series slot of an instance (Google `originalStartTime`, Graph `originalStart`),
   * undefined for a one-off event. A cancelled instance has `cancelled: true`.
   */
  occurrence: Occurrence;
  /**
   * Its fields are its series' (Graph: a plain occurrence filled from its master), so a later
   * change to the series alone changes it too. Absent for an instance with fields of its own.
   */
  fromSeries?: true;
}

/** What one listing brought: every page followed to the provider's next cursor. */
export interface ChangeSet {
  /** true: a full listing (no cursor was given); the items are the whole window and replace what was kept. */
  full: boolean;
  /** Instances new or changed (cancelled ones included, with `occurrence.cancelled`). */
  items: ProviderItem[];
  /** Ids of instances removed (Google items with only an id and `status: cancelled`; Graph `@removed`). */
  removed: string[];
  /** The provider's cursor for the next incremental listing (Google `nextSyncToken`, Graph `@odata.deltaLink`). */
  cursor: string;
  /** HTTP requests made (tokens included): counted against the provider's quota. */
  calls: number;
  /** The listing reached PROVIDER_LIMITS.itemsPerUser: the items are cut, the cursor still valid. */
  truncated: boolean;
  /**
   * Other limits the provider reached (Graph: series masters not fetched): instances are missing, so the
   * listing is not complete and its cursor is not kept.
   */
  limits?: LimitReached[];
  /** What the provider skipped and why (Graph: occurrences of a deleted series), shown with the sync. */
  problems?: string[];
}

/** What one user's listing may cost: a hostile calendar holds any number of events. */
export const PROVIDER_LIMITS = {
  /** Items kept from one listing; beyond it the rest is paged over and dropped (counted as a limit). */
  itemsPerUser: 2_000,
  /** Pages followed in one listing before giving up (the cursor is then not advanced). */
  pagesPerListing: 50,
  /** Page size asked for (Google `maxResults`, Graph `Prefer: odata.maxpagesize`). */
  pageSize: 250,
  /**
   * Graph only: series masters fetched by GET in one listing (a plain occurrence comes without its series'
   * fields, and a series begun before the window comes without its master). A busy calendar holds a few
   * dozen series; with the 50 pages a listing then costs at most 250 requests, 2.5% of Graph's 10,000 per
   * ten minutes per mailbox, and the listing deadline bounds their time.
   */
  seriesMastersPerListing: 200,
  /** Members read from one group. */
  membersPerGroup: 5_000,
  /** Bytes of one response body read before it is refused. */
  responseBytes: 8 * 1024 * 1024,
  /** One whole listing (every page) ends within this, or is given up: a user sync must fit its function's timeout. */
  listingDeadlineMs: 120_000,
} as const;

export interface CalendarProvider {
  readonly name: ProviderName;
  /**
   * The user's changes since `cursor`, or a full listing of `window` when the
   * cursor is undefined. Throws CursorVoidError when the provider voided the cursor
   * (the caller lists in full), AccessRevokedError, ThrottledError or
   * ProviderUnavailableError. `kept`: with a cursor, the instances kept from the listings
   * before, so a provider that lists a changed series without its instances (Graph: the
   * master alone) can give them back changed.
   */
  listChanges(
    user: string,
    cursor: string | undefined,
    window: SyncWindow,
    kept?: readonly ProviderItem[],
  ): Promise<ChangeSet>;
  /** The users (addresses, or Graph ids/UPNs) a group holds, nested groups included. */
  resolveGroup(group: string): Promise<string[]>;
  /** A bearer token to act on `user`'s calendar (Google: delegated to the user; Microsoft: the app's). */
  accessToken(user: string): Promise<string>;
}

/** The cursor is void (Google 410 `fullSyncRequired`, Graph 410 `syncStateNotFound`/resync): list in full again. */
export class CursorVoidError extends Error {
  override name = 'CursorVoidError';
}

/**
 * The grant no longer holds: `invalid_grant` or `unauthorized_client` from the token
 * endpoint, 401 or 403 (other than throttling) from the API. `scope`: whether every
 * user of the source is cut off (the app's secret or the admin's grant) or this user
 * only (outside the access policy, suspended). `reason` is the provider's own words,
 * shown on the calendar; never a credential.
 */
export class AccessRevokedError extends Error {
  override name = 'AccessRevokedError';
  constructor(
    readonly scope: 'source' | 'user',
    readonly reason: string,
  ) {
    super(reason);
  }
}

/** Google 403 `rateLimitExceeded`/`userRateLimitExceeded` or 429, Graph 429: wait this long before asking for this user again. */
export class ThrottledError extends Error {
  override name = 'ThrottledError';
  constructor(
    readonly retryAfterMs: number,
    reason: string,
  ) {
    super(reason);
  }
}

/** A 5xx, a timeout, an unreadable answer: tried again at the next sync; the user stays connected. */
export class ProviderUnavailableError extends Error {
  override name = 'ProviderUnavailableError';
}

/**
 * Makes a provider for one source from its configuration and the value of its
 * credentials secret (a Google service-account key JSON; a Microsoft client secret
 * or certificate JSON). Tokens are cached inside, per user for Google, per tenant
 * for Microsoft.
 */
export type ProviderFactory = (source: CompanySourceConfig, credentials: string) => CalendarProvider;

/** What every provider implementation is made with (google/google-provider.ts, microsoft/microsoft-provider.ts). */
export interface ProviderOptions {
  endpoints: ProviderEndpoints;
  now(): number;
  /** Defaults to the global fetch; tests may wrap it to inject a fault. */
  fetch?: typeof fetch;
}

/** The provider part of a company calendar source as registered (PUT /calendars/{id}). */
export type CompanySourceConfig =
  | {
      provider: 'google';
      credentialsSecret: string;
      /** Exactly one of users and group. */
      users?: string[];
      group?: string;
      /** The admin the Directory API is asked as (domain-wide delegation needs a user); required with group. */
      adminEmail?: string;
    }
  | {
      provider: 'microsoft';
      tenantId: string;
      clientId: string;
      credentialsSecret: string;
      users?: string[];
      groupId?: string;
    };

/** One user's sync, as a message on the fan-out queue (and what a push notification asks for). */
export interface UserSyncRequest {
  calendar_id: string;
  user: string;
  reason: 'schedule' | 'push' | 'manual';
}

/** When queued requests become visible to the consumer: at once unless `delaySeconds` (SQS allows 0-900). */
export interface UserSyncSendOptions {
  delaySeconds?: number;
}

/** Where user syncs are asked for: the fan-out queue (SQS, the local emulator's in local mode and tests). */
export interface UserSyncQueue {
  send(requests: readonly UserSyncRequest[], options?: UserSyncSendOptions): Promise<void>;
}
