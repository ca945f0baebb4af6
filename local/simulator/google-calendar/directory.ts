/**
 * The Admin SDK Directory API's `GET /admin/directory/v1/groups/{groupKey}/members`,
 * refusing what Google refuses:
 * - 401 `authError` without a current Bearer token;
 * - 403 `insufficientPermissions` when the token lacks every group-member scope,
 *   and 403 `forbidden` ("Not Authorized to access this resource/api") when the
 *   token's user is no administrator of the tenant;
 * - 404 `notFound` for a group the tenant does not have;
 * - 400 `invalid` for `maxResults` outside 1..200 and a `pageToken` not issued for
 *   this same query.
 * `includeDerivedMembership=true` adds the members of nested groups (each user
 * once); direct nested groups are listed too, as `type: GROUP`. Every member
 * carries `status` (`ACTIVE` or `SUSPENDED`), as users do.
 * Reference: https://developers.google.com/workspace/admin/directory/reference/rest/v1/members/list
 */
import { randomBytes } from 'node:crypto';
import type { SimulatedClock } from './clock';
import { apiError, type SimulatorAnswer } from './google-errors';
import type { Tenant } from './tenant';

export const DIRECTORY_MEMBER_SCOPES = [
  'https://www.googleapis.com/auth/admin.directory.group.member.readonly',
  'https://www.googleapis.com/auth/admin.directory.group.member',
  'https://www.googleapis.com/auth/admin.directory.group.readonly',
  'https://www.googleapis.com/auth/admin.directory.group',
] as const;
export const DIRECTORY_DEFAULT_PAGE_SIZE = 200;
export const DIRECTORY_MAX_PAGE_SIZE = 200;

export interface DirectoryMember {
  kind: 'admin#directory#member';
  id: string;
  email: string;
  role: 'MEMBER';
  type: 'USER' | 'GROUP';
  status: 'ACTIVE' | 'SUSPENDED';
}

interface MembersCursor {
  queryKey: string;
  offset: number;
}

export class Directory {
  private readonly cursors = new Map<string, MembersCursor>();

  constructor(
    private readonly tenant: Tenant,
    private readonly clock: SimulatedClock,
  ) {}

  answer(groupKey: string, query: URLSearchParams, authorization: string | undefined): SimulatorAnswer {
    const bearer = /^Bearer (\S+)$/.exec(authorization ?? '')?.[1];
    const token = bearer ? this.tenant.accessTokens.get(bearer) : undefined;
    if (!token || token.expiresAtMs <= this.clock.now()) {
      return apiError(
        401,
        'authError',
        'Invalid Credentials',
        { location: 'Authorization', locationType: 'header' },
        'global',
      );
    }
    if (!token.scopes.some((scope) => (DIRECTORY_MEMBER_SCOPES as readonly string[]).includes(scope))) {
      return apiError(
        403,
        'insufficientPermissions',
        'Request had insufficient authentication scopes.',
        undefined,
        'global',
      );
    }
    if (!this.tenant.admins.has(token.user)) {
      return apiError(403, 'forbidden', 'Not Authorized to access this resource/api', undefined, 'global');
    }
    const group = this.tenant.groups.get(groupKey.toLowerCase());
    if (!group) return apiError(404, 'notFound', 'Resource Not Found: groupKey', undefined, 'global');
    const maxText = query.get('maxResults');
    const max = maxText === null ? DIRECTORY_DEFAULT_PAGE_SIZE : Number(maxText);
    if (!Number.isInteger(max) || max < 1 || max > DIRECTORY_MAX_PAGE_SIZE) {
      return invalid('maxResults', `maxResults must be an integer from 1 to ${DIRECTORY_MAX_PAGE_SIZE}`);
    }
    const queryKey = JSON.stringify([
      groupKey.toLowerCase(),
      [...query.entries()].filter(([name]) => name !== 'pageToken' && name !== 'maxResults').sort(),
    ]);
    const pageToken = query.get('pageToken');
    let offset = 0;
    if (pageToken !== null) {
      const cursor = this.cursors.get(pageToken);
      if (!cursor || cursor.queryKey !== queryKey) return invalid('pageToken', 'Invalid page token');
      offset = cursor.offset;
    }
    const members = this.members(groupKey.toLowerCase(), query.get('includeDerivedMembership') === 'true');
    const page = members.slice(offset, offset + max);
    const body: Record<string, unknown> = {
      kind: 'admin#directory#members',
      etag: `"${randomToken()}"`,
      members: page,
    };
    if (offset + page.length < members.length) {
      const next = randomToken();
      this.cursors.set(next, { queryKey, offset: offset + page.length });
      body.nextPageToken = next;
    }
    return { status: 200, body };
  }

  /** Direct members in the order they were added, then (derived) the users of nested groups, each address once. */
  private members(groupKey: string, derived: boolean): DirectoryMember[] {
    const listed = new Map<string, DirectoryMember>();
    const visited = new Set<string>();
    const walk = (key: string, direct: boolean): void => {
      if (visited.has(key)) return;
      visited.add(key);
      for (const email of this.tenant.groups.get(key) ?? []) {
        const isGroup = this.tenant.groups.has(email);
        if (!listed.has(email) && (direct || !isGroup)) listed.set(email, this.member(email, isGroup));
        if (isGroup && derived) walk(email, false);
      }
    };
    walk(groupKey, true);
    return [...listed.values()];
  }

  private member(email: string, isGroup: boolean): DirectoryMember {
    return {
      kind: 'admin#directory#member',
      id: this.tenant.directoryIdOf(email),
      email,
      role: 'MEMBER',
      type: isGroup ? 'GROUP' : 'USER',
      status: this.tenant.suspendedUsers.has(email) ? 'SUSPENDED' : 'ACTIVE',
    };
  }
}

function invalid(parameter: string, message: string): SimulatorAnswer {
  return apiError(400, 'invalid', message, { location: parameter, locationType: 'parameter' }, 'global');
}

function randomToken(): string {
  return randomBytes(18).toString('base64url');
}
