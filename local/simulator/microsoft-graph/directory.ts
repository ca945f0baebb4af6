/**
 * The simulated Entra tenants: their apps (client id, secret, certificates,
 * granted application permissions), users, groups (which may hold groups), the
 * application access policy that limits which mailboxes an app may read, the
 * access tokens issued, and the clock every expiry is measured against (tests
 * advance it; nothing waits).
 */
import { type KeyObject, randomBytes } from 'node:crypto';

export const GRAPH_AUDIENCE = 'https://graph.microsoft.com';
/** An app-only token from the identity platform lives about an hour; it says 3599 seconds. */
export const TOKEN_LIFETIME_SECONDS = 3599;

export interface SimulatedApp {
  clientId: string;
  /** undefined: the app proves itself with a certificate only. */
  secret: string | undefined;
  /** Application permissions an administrator granted (the token's `roles`). */
  roles: Set<string>;
  /**
   * The tenant's application access policy for this app: undefined when none is
   * set (every mailbox), otherwise the user ids the app may read.
   */
  allowedUsers: Set<string> | undefined;
  /** Certificates uploaded to the app registration, by their SHA-1 thumbprint (base64url, a JWT's `x5t`). */
  certificates: Map<string, KeyObject>;
}

export interface SimulatedUser {
  id: string;
  userPrincipalName: string;
  displayName: string;
  /** A disabled account (false) still belongs to its groups; undefined counts as enabled. */
  accountEnabled?: boolean;
  mail?: string;
}

export interface SimulatedGroup {
  id: string;
  displayName: string;
  /** Object ids of its direct members: users and groups. */
  members: string[];
}

export interface SimulatedTenant {
  id: string;
  apps: Map<string, SimulatedApp>;
  users: Map<string, SimulatedUser>;
  groups: Map<string, SimulatedGroup>;
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
  /**
   * The resources a token may be asked for and Graph accepts as its audience:
   * Graph's own, and the simulator's base URL (a client derives the resource from
   * the Graph endpoint it is configured with, as national clouds need).
   */
  readonly graphAudiences = new Set([GRAPH_AUDIENCE]);
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
      tenant = { id, apps: new Map(), users: new Map(), groups: new Map() };
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

  /** Every user a group holds, through nested groups (each group read once, so a cycle ends), in member order. */
  transitiveUsers(tenantId: string, groupId: string): SimulatedUser[] {
    const tenant = this.tenants.get(tenantId);
    const users = new Map<string, SimulatedUser>();
    const seen = new Set<string>();
    const visit = (id: string) => {
      if (seen.has(id)) return;
      seen.add(id);
      for (const member of tenant?.groups.get(id)?.members ?? []) {
        const user = tenant?.users.get(member);
        if (user !== undefined) users.set(user.id, user);
        else visit(member);
      }
    };
    visit(groupId);
    return [...users.values()];
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
