/**
 * The Workspace tenant as Google's token endpoint sees it: its users, the service
 * accounts a test registered (email, numeric client id, public key), the admin
 * console's domain-wide delegation grants (client id -> allowed scopes), the
 * access tokens handed out, and its directory (admins, groups, suspended users).
 * A revoked grant refuses new tokens; tokens already
 * issued live until they expire, as with Google.
 */
import { randomBytes } from 'node:crypto';

export const CALENDAR_READ_SCOPES = [
  'https://www.googleapis.com/auth/calendar.readonly',
  'https://www.googleapis.com/auth/calendar.events.readonly',
  'https://www.googleapis.com/auth/calendar',
  'https://www.googleapis.com/auth/calendar.events',
] as const;

/** Google's access tokens for service accounts last an hour; it reports one second less. */
export const ACCESS_TOKEN_SECONDS = 3599;

export interface ServiceAccount {
  clientEmail: string;
  clientId: string;
  publicKeyPem: string;
}

export interface AccessToken {
  user: string;
  scopes: string[];
  expiresAtMs: number;
}

export class Tenant {
  readonly users = new Set<string>();
  readonly serviceAccounts = new Map<string, ServiceAccount>();
  /** clientId -> scopes the administrator granted through domain-wide delegation. */
  readonly delegationGrants = new Map<string, Set<string>>();
  readonly accessTokens = new Map<string, AccessToken>();
  /** Users with the admin role the Directory API asks of its caller. */
  readonly admins = new Set<string>();
  /** group address -> member addresses (users or other groups), in the order they were added. */
  readonly groups = new Map<string, string[]>();
  /** Suspended users: still listed in their groups, with status SUSPENDED. */
  readonly suspendedUsers = new Set<string>();
  private readonly directoryIds = new Map<string, string>();

  /** The Directory API's numeric id of a user or group, stable for the tenant's life. */
  directoryIdOf(email: string): string {
    let id = this.directoryIds.get(email);
    if (id === undefined) {
      id = String(100_000_000_000_000_000_000n + BigInt(this.directoryIds.size + 1));
      this.directoryIds.set(email, id);
    }
    return id;
  }

  issueAccessToken(user: string, scopes: string[], nowMs: number): string {
    const token = `ya29.sim-${randomBytes(24).toString('base64url')}`;
    this.accessTokens.set(token, { user, scopes, expiresAtMs: nowMs + ACCESS_TOKEN_SECONDS * 1000 });
    return token;
  }
}
