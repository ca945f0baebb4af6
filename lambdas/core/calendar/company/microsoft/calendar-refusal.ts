/**
 * Graph's refusal of a user's calendar (its view, or one event of it) as the
 * provider contract's errors, so every read of a mailbox is judged alike.
 */
import { AccessRevokedError, CursorVoidError, ProviderUnavailableError } from '../provider-contract';
import { graphError } from './graph-client';
import type { HttpAnswer } from './graph-http';

/**
 * Graph's refusal of a user's calendar as the contract's errors. 403
 * `ErrorAccessDenied` means one of two things: the app lacks Calendars.Read (the
 * tenant's grant, so every user: 'source'), or the tenant's application access
 * policy leaves this mailbox out (this user: 'user'). Graph's message for the
 * latter names the policy ("… AccessPolicy settings"), so that decides.
 */
export function calendarRefusal(answer: HttpAnswer, user: string, onCursor: boolean): Error {
  const { code, message, words } = graphError(answer);
  if (answer.status === 410) return new CursorVoidError(`Graph voided the sync state of ${user}'s calendar: ${words}`);
  // A delta or skip token Graph no longer takes (ErrorInvalidUrlQuery): only a full listing recovers.
  if (answer.status === 400 && onCursor) return new CursorVoidError(`Graph refused the kept delta token: ${words}`);
  if (answer.status === 403) {
    const policy = /access ?policy|Access to OData is disabled/i.test(message);
    return policy
      ? new AccessRevokedError('user', `the tenant's application access policy leaves out this mailbox: ${words}`)
      : new AccessRevokedError('source', `Graph refused to read calendars (the app needs Calendars.Read): ${words}`);
  }
  if (answer.status === 404)
    return new AccessRevokedError(
      'user',
      `Graph knows no mailbox ${JSON.stringify(user)} (${code || 'HTTP 404'}): ${words}`,
    );
  return new ProviderUnavailableError(`Graph answered HTTP ${answer.status} for ${user}'s calendar view: ${words}`);
}
