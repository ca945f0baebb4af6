/**
 * The Google Workspace calendar provider: one service account with domain-wide
 * delegation reads every user's calendar (`calendar.readonly`, as the user) and a
 * group's members (as the source's administrator). One provider per source; it
 * keeps the tokens it was given until shortly before they lapse.
 */
import {
  AccessRevokedError,
  type CalendarProvider,
  type CompanySourceConfig,
  type ProviderOptions,
} from '../provider-contract';
import { resolveGoogleGroup } from './google-directory';
import { listGoogleChanges } from './google-events-list';
import { ThrottleLog } from './google-throttle';
import { CALENDAR_READONLY_SCOPE, DIRECTORY_MEMBERS_SCOPE, GoogleTokens } from './google-token';
import { readServiceAccountKey } from './service-account-key';

export type GoogleSourceConfig = Extract<CompanySourceConfig, { provider: 'google' }>;

export function createGoogleProvider(
  config: GoogleSourceConfig,
  credentials: string,
  options: ProviderOptions,
): CalendarProvider {
  // A malformed key refuses the source at once, before any user is tried.
  const key = readServiceAccountKey(credentials);
  const fetchImpl = options.fetch ?? fetch;
  const throttle = new ThrottleLog();
  const tokens = new GoogleTokens(key, {
    tokenUrl: options.endpoints.googleTokenUrl,
    now: options.now,
    fetch: fetchImpl,
    throttle,
  });
  const shared = { fetch: fetchImpl, now: options.now, throttle };
  return {
    name: 'google',
    listChanges: (user, cursor, window) =>
      listGoogleChanges(user, cursor, window, {
        ...shared,
        calendarApi: options.endpoints.googleCalendarApi,
        token: (forUser, fresh, onRequest) => {
          if (fresh) tokens.forget(forUser, CALENDAR_READONLY_SCOPE);
          return tokens.token(forUser, CALENDAR_READONLY_SCOPE, onRequest);
        },
      }),
    resolveGroup: (group) => {
      const admin = config.adminEmail;
      if (admin === undefined)
        return Promise.reject(
          new AccessRevokedError('source', 'a Google group source needs the administrator address to read it as'),
        );
      return resolveGoogleGroup(group, {
        ...shared,
        directoryApi: options.endpoints.googleDirectoryApi,
        token: (onRequest) => tokens.token(admin, DIRECTORY_MEMBERS_SCOPE, onRequest),
      });
    },
    accessToken: (user) => tokens.token(user, CALENDAR_READONLY_SCOPE, () => undefined),
  };
}
