/**
 * The simulated Entra tenants: their apps (client id, secret, granted application
 * permissions), users, the application access policy that limits which mailboxes
 * an app may read, the access tokens issued, and the clock every expiry is
 * measured against (tests advance it; nothing waits).
 */
import { randomBytes } from 'node:crypto';

export const GRAPH_AUDIENCE = 'https://graph.microsoft.com';
/** An app-only token from the identity platform lives about an hour; it says 3599 seconds. */
export const TOKEN_LIFETIME_SECONDS = 3599;

export interface SimulatedApp {
  clientId: string;
  secret: string;
  /** Application permissions an administrator granted (the token's `roles`). */
  roles: Set<string>;
  /**
   * The tenant's application access policy for this app: undefined when none is
   * set (every mailbox), otherwise the user ids the app may read.
   */
  allowedUsers: Set<string> | undefined;
}

export interface SimulatedUser {
  id: string;
  userPrincipalName: string;
  displayName: string;
}

export interface SimulatedTenant {
  id: string;
  apps: Map<string, SimulatedApp>;
  users: Map<string, SimulatedUser>;
}

export interface IssuedToken {
  tenantId: string;
  clientId: string;
  audience: string;
  roles: string[];
  expiresAt: number;
}

export class Directory {
  readonly tenants = new Map<string, SimulatedTenant>();
  readonly tokens = new Map<string, IssuedToken>();
  private clock: number;

  constructor(start: number) {
    this.clock = start;
  }

  now(): number {
    return this.clock;
  }

  advance(ms: number): void {
    this.clock += ms;
  }

  tenant(id: string): SimulatedTenant {
    let tenant = this.tenants.get(id);
    if (tenant === undefined) {
      tenant = { id, apps: new Map(), users: new Map() };
      this.tenants.set(id, tenant);
    }
    return tenant;
  }

  /** The user by object id or userPrincipalName (Graph takes either in the path), case-insensitive. */
  findUser(tenantId: string, idOrUpn: string): SimulatedUser | undefined {
    const wanted = idOrUpn.toLowerCase();
    for (const user of this.tenants.get(tenantId)?.users.values() ?? [])
      if (user.id.toLowerCase() === wanted || user.userPrincipalName.toLowerCase() === wanted) return user;
    return undefined;
  }

  /** Mints an opaque access token; the simulator keeps what a real token would carry as claims. */
  issue(tenantId: string, app: SimulatedApp, audience: string): string {
    const token = `sim-graph.${randomBytes(24).toString('base64url')}`;
    this.tokens.set(token, {
      tenantId,
      clientId: app.clientId,
      audience,
      roles: [...app.roles],
      expiresAt: this.clock + TOKEN_LIFETIME_SECONDS * 1000,
    });
    return token;
  }
}
