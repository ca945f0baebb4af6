/**
 * The bearer-token check every simulated Graph resource makes first: 401
 * `InvalidAuthenticationToken` for no token, one this service never issued, an
 * expired one, or one issued for another resource (audience).
 */
import type { Directory, IssuedToken, SimulatedApp, SimulatedTenant } from './directory';
import type { GraphRefusal } from './graph-errors';

export type Authenticated = { token: IssuedToken; tenant: SimulatedTenant; app: SimulatedApp | undefined };

function unauthenticated(message: string): { refusal: GraphRefusal } {
  return { refusal: { status: 401, code: 'InvalidAuthenticationToken', message } };
}

export function authenticate(
  directory: Directory,
  authorization: string | undefined,
): Authenticated | { refusal: GraphRefusal } {
  const bearer = /^Bearer (\S+)$/i.exec(authorization ?? '')?.[1];
  if (bearer === undefined) return unauthenticated('The access token is missing or empty.');
  const token = directory.tokens.get(bearer);
  if (token === undefined) return unauthenticated('The access token is not one this service issued.');
  if (token.expiresAt <= directory.now()) return unauthenticated('Lifetime validation failed: the token has expired.');
  if (!directory.graphAudiences.has(token.audience))
    return unauthenticated('Access token validation failure: invalid audience.');
  const tenant = directory.tenants.get(token.tenantId)!;
  // The app as it stands now: a grant revoked after the token was issued refuses at once.
  return { token, tenant, app: tenant.apps.get(token.clientId) };
}

/** Whether the token carries one of the roles and the app still holds it. */
export function holdsRole({ token, app }: Authenticated, roles: readonly string[]): boolean {
  return app !== undefined && roles.some((role) => token.roles.includes(role) && app.roles.has(role));
}
