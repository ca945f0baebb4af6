/**
 * What Graph checks before it reads anything of a mailbox's calendar, in its order,
 * for calendarView/delta and a GET of one event alike: the token (401), a calendar
 * read permission (403), the user (404 `ErrorInvalidUser`), the tenant's
 * application access policy (403), then the per-app, per-mailbox limit (429 with
 * `Retry-After`).
 */
import type { Directory, SimulatedApp, SimulatedUser } from './directory';
import { authenticate, holdsRole } from './graph-auth';
import type { GraphRefusal } from './graph-errors';
import type { MailboxThrottle } from './throttle';

const CALENDAR_READ_ROLES = ['Calendars.Read', 'Calendars.ReadBasic.All', 'Calendars.ReadWrite'];

export interface MailboxAccess {
  tenantId: string;
  app: SimulatedApp;
  user: SimulatedUser;
}

const refusal = (status: number, code: string, message: string, headers?: Record<string, string>) => ({
  refusal: { status, code, message, ...(headers === undefined ? {} : { headers }) } satisfies GraphRefusal,
});

export function mailboxAccess(
  directory: Directory,
  throttle: MailboxThrottle,
  authorization: string | undefined,
  userKey: string,
): MailboxAccess | { refusal: GraphRefusal } {
  const authenticated = authenticate(directory, authorization);
  if ('refusal' in authenticated) return authenticated;
  const { token, app } = authenticated;
  if (!holdsRole(authenticated, CALENDAR_READ_ROLES) || app === undefined)
    return refusal(403, 'ErrorAccessDenied', 'Access is denied: the app holds no permission to read calendars.');
  const user = directory.findUser(token.tenantId, userKey);
  if (user === undefined) return refusal(404, 'ErrorInvalidUser', `The requested user '${userKey}' is invalid.`);
  if (app.allowedUsers !== undefined && !app.allowedUsers.has(user.id))
    return refusal(
      403,
      'ErrorAccessDenied',
      'Access to OData is disabled: [RAOP] : Blocked by tenant configured AppOnly AccessPolicy settings.',
    );
  const wait = throttle.admit(app.clientId, user.id, directory.now());
  if (wait !== undefined)
    return refusal(
      429,
      'ApplicationThrottled',
      'The application is over its request limit for this mailbox; retry after the time given.',
      { 'Retry-After': String(wait) },
    );
  return { tenantId: token.tenantId, app, user };
}
