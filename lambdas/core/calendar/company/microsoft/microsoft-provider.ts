/**
 * The Microsoft 365 calendar provider: one Entra app with the application
 * permission Calendars.Read (scoped by the tenant's application access policy)
 * reads every employee's calendar through Graph. The token is the app's, one for
 * the whole source; the Graph resource it is asked for is the configured Graph
 * endpoint's origin, so a national cloud (graph.microsoft.us, …) works by
 * configuration alone.
 */
import {
  AccessRevokedError,
  type CalendarProvider,
  type ChangeSet,
  type CompanySourceConfig,
  type ProviderItem,
  type ProviderOptions,
  type SyncWindow,
} from '../provider-contract';
import { listCalendarChanges } from './calendar-view-delta';
import { EntraTokenSource } from './entra-token';
import { GraphClient } from './graph-client';
import { type GraphClientCredential, parseGraphCredentials } from './graph-credentials';
import { type CallCount, LISTING_DEADLINE_MS } from './graph-http';
import { listGroupUsers } from './group-members';

export type MicrosoftSourceConfig = Extract<CompanySourceConfig, { provider: 'microsoft' }>;

function readCredentials(credentials: string): GraphClientCredential | AccessRevokedError {
  try {
    return parseGraphCredentials(credentials);
  } catch (error) {
    if (error instanceof AccessRevokedError) return error;
    throw error;
  }
}

export function createMicrosoftProvider(
  config: MicrosoftSourceConfig,
  credentials: string,
  options: ProviderOptions,
): CalendarProvider {
  const fetchFn = options.fetch ?? fetch;
  const credential = readCredentials(credentials);
  // A malformed secret refuses every call the same way, as a revoked grant would.
  const graph =
    credential instanceof AccessRevokedError
      ? undefined
      : new GraphClient(
          options.endpoints.microsoftGraph,
          new EntraTokenSource({
            tenantId: config.tenantId,
            clientId: config.clientId,
            credential,
            login: options.endpoints.microsoftLogin,
            resource: new URL(options.endpoints.microsoftGraph).origin,
            fetch: fetchFn,
            now: options.now,
          }),
          fetchFn,
          options.now,
        );
  const ready = (): GraphClient => {
    if (graph === undefined)
      throw credential instanceof AccessRevokedError ? credential : new AccessRevokedError('source', 'no credentials');
    return graph;
  };
  const listing = (): CallCount => ({ calls: 0, deadline: options.now() + LISTING_DEADLINE_MS });
  return {
    name: 'microsoft',
    async listChanges(
      user: string,
      cursor: string | undefined,
      window: SyncWindow,
      kept: readonly ProviderItem[] = [],
    ): Promise<ChangeSet> {
      return listCalendarChanges(ready(), user, cursor, window, listing(), cursor === undefined ? [] : kept);
    },
    async resolveGroup(group: string): Promise<string[]> {
      return listGroupUsers(ready(), group, listing());
    },
    async accessToken(_user: string): Promise<string> {
      return ready().token({ calls: 0 });
    },
  };
}
