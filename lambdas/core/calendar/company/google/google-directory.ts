/**
 * A Google group's users, from the Admin SDK Directory API `members.list` with
 * `includeDerivedMembership=true`, so members of nested groups count; only active
 * users are kept (nested groups themselves, customers and suspended users are not
 * calendars to sync). The call is made as the source's administrator, whose
 * delegation covers the read-only members scope; every refusal is about the
 * source's setup (its admin, its grant, its group), so none singles out one user.
 * Reference: https://developers.google.com/workspace/admin/directory/reference/rest/v1/members/list
 */
import * as z from 'zod/mini';
import { AccessRevokedError, PROVIDER_LIMITS, ProviderUnavailableError } from '../provider-contract';
import { apiRefusal, exchange } from './google-http';
import type { ThrottleLog } from './google-throttle';

/** The API's largest page. */
export const DIRECTORY_PAGE_SIZE = 200;

const membersPage = z.looseObject({
  members: z.catch(
    z.optional(
      z.array(
        z.catch(
          z.looseObject({
            email: z.catch(z.optional(z.string()), undefined),
            type: z.catch(z.optional(z.string()), undefined),
            status: z.catch(z.optional(z.string()), undefined),
          }),
          {},
        ),
      ),
    ),
    undefined,
  ),
  nextPageToken: z.catch(z.optional(z.string()), undefined),
});

export interface DirectoryDependencies {
  directoryApi: string;
  fetch: typeof fetch;
  now(): number;
  throttle: ThrottleLog;
  /** The administrator's token with the members scope. */
  token(onRequest: () => void): Promise<string>;
}

/** The group's active users (lowercased, each once), at most PROVIDER_LIMITS.membersPerGroup of them. */
export async function resolveGoogleGroup(group: string, deps: DirectoryDependencies): Promise<string[]> {
  const users = new Set<string>();
  let pageToken: string | undefined;
  try {
    for (let page = 1; page <= PROVIDER_LIMITS.pagesPerListing; page++) {
      const query = new URLSearchParams({ includeDerivedMembership: 'true', maxResults: String(DIRECTORY_PAGE_SIZE) });
      if (pageToken !== undefined) query.set('pageToken', pageToken);
      const token = await deps.token(() => undefined);
      const answer = await exchange(
        deps.fetch,
        `${deps.directoryApi}/groups/${encodeURIComponent(group)}/members?${query}`,
        { headers: { authorization: `Bearer ${token}`, accept: 'application/json' } },
      );
      if (answer.status !== 200) {
        const refusal = apiRefusal(answer);
        if (
          answer.status === 429 ||
          refusal.reason === 'rateLimitExceeded' ||
          refusal.reason === 'userRateLimitExceeded'
        )
          throw deps.throttle.throttled(`group ${group}`, answer.headers, deps.now(), refusal.text);
        if (answer.status === 401 || answer.status === 403 || answer.status === 404)
          throw new AccessRevokedError('source', `Google refused the members of group ${group}: ${refusal.text}`);
        throw new ProviderUnavailableError(`Google answered the members of group ${group} with ${refusal.text}`);
      }
      const parsed = membersPage.safeParse(answer.body);
      if (!parsed.success)
        throw new ProviderUnavailableError(`Google answered the members of group ${group} with no JSON object`);
      for (const member of parsed.data.members ?? []) {
        if (member.type !== 'USER' || member.status !== 'ACTIVE' || member.email === undefined) continue;
        if (member.email.length > 320 || !member.email.includes('@')) continue;
        // Beyond the bound the group is cut: the users read first are synced, the rest are not.
        if (users.size >= PROVIDER_LIMITS.membersPerGroup) return [...users];
        users.add(member.email.toLowerCase());
      }
      deps.throttle.answered(`group ${group}`);
      pageToken = parsed.data.nextPageToken;
      if (pageToken === undefined || pageToken === '') return [...users];
    }
  } catch (error) {
    // The administrator's own token: a refusal of it is the source's, not one user's.
    if (error instanceof AccessRevokedError && error.scope === 'user')
      throw new AccessRevokedError('source', `the administrator account: ${error.reason}`);
    throw error;
  }
  throw new ProviderUnavailableError(
    `group ${group} lists more than ${PROVIDER_LIMITS.pagesPerListing} pages of members; it was given up`,
  );
}
