/**
 * A group's users from Graph: `transitiveMembers` cast to users, so nested
 * groups are flattened by Graph. Disabled accounts are left out (they cannot
 * hold meetings; their calendar would only be refused). Each user is named by
 * userPrincipalName (what calendarView takes and what invitations carry),
 * bounded by PROVIDER_LIMITS.membersPerGroup. Needs the application permission
 * GroupMember.Read.All (or Group.Read.All, Directory.Read.All).
 */
import * as z from 'zod/mini';
import { AccessRevokedError, PROVIDER_LIMITS, ProviderUnavailableError } from '../provider-contract';
import { type GraphClient, graphError } from './graph-client';
import type { CallCount } from './graph-http';

/** Graph's largest page for directory objects. */
const MEMBERS_PAGE_SIZE = '999';

const MembersPage = z.object({
  value: z.array(z.unknown()),
  '@odata.nextLink': z.optional(z.string().check(z.maxLength(16 * 1024))),
});

const Member = z.object({
  id: z.string().check(z.minLength(1), z.maxLength(256)),
  userPrincipalName: z.nullish(z.string().check(z.minLength(1), z.maxLength(1024))),
  accountEnabled: z.nullish(z.boolean()),
});

export async function listGroupUsers(graph: GraphClient, groupId: string, count: CallCount): Promise<string[]> {
  let url = graph.url(`/groups/${encodeURIComponent(groupId)}/transitiveMembers/microsoft.graph.user`, {
    $select: 'id,userPrincipalName,mail,accountEnabled',
    $top: MEMBERS_PAGE_SIZE,
  });
  const users = new Set<string>();
  for (let page = 0; page < PROVIDER_LIMITS.pagesPerListing; page += 1) {
    const answer = await graph.get(url, {}, count, `the members of group ${groupId}`);
    if (answer.status === 403)
      throw new AccessRevokedError(
        'source',
        `Graph refused to list group members (the app needs GroupMember.Read.All): ${graphError(answer).words}`,
      );
    if (answer.status === 404)
      throw new AccessRevokedError(
        'source',
        `Graph knows no group ${JSON.stringify(groupId)}: ${graphError(answer).words}`,
      );
    if (answer.status !== 200)
      throw new ProviderUnavailableError(
        `Graph answered HTTP ${answer.status} for group ${groupId}: ${graphError(answer).words}`,
      );
    const parsed = MembersPage.safeParse(answer.json);
    if (!parsed.success)
      throw new ProviderUnavailableError(`Graph answered a member page of group ${groupId} that is not one`);
    for (const json of parsed.data.value) {
      const member = Member.safeParse(json);
      if (!member.success || member.data.accountEnabled === false) continue;
      users.add(member.data.userPrincipalName ?? member.data.id);
      if (users.size >= PROVIDER_LIMITS.membersPerGroup) return [...users];
    }
    const next = parsed.data['@odata.nextLink'];
    if (next === undefined) return [...users];
    url = graph.followable(next, 'nextLink');
  }
  return [...users];
}
