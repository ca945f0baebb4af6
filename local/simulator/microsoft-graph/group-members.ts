/**
 * `GET /v1.0/groups/{id}/transitiveMembers/microsoft.graph.user`: the users a
 * group holds, nested groups flattened, for an app-only token, refusing what
 * Graph refuses:
 * - 401 `InvalidAuthenticationToken` (graph-auth.ts);
 * - 403 `Authorization_RequestDenied`: the app holds none of GroupMember.Read.All,
 *   Group.Read.All, Directory.Read.All;
 * - 404 `Request_ResourceNotFound`: no such group in the token's tenant;
 * - 400 `Request_BadRequest`: a `$select` naming a property users do not have, a
 *   `$top` outside 1..999, or a skip token from another query.
 * Pages hold `$top` users (100 when not given) and link the next with `@odata.nextLink`.
 * Only the properties `$select` names are returned (and `id`), as Graph does:
 * `accountEnabled` is not among the default ones.
 */
import { randomBytes } from 'node:crypto';
import type { Directory, SimulatedUser } from './directory';
import { authenticate, holdsRole } from './graph-auth';
import type { GraphRefusal } from './graph-errors';

const GROUP_READ_ROLES = ['GroupMember.Read.All', 'Group.Read.All', 'Directory.Read.All'];
const DEFAULT_PAGE_SIZE = 100;
const MAX_PAGE_SIZE = 999;
const DEFAULT_PROPERTIES = ['id', 'displayName', 'userPrincipalName', 'mail'];
const USER_PROPERTIES = new Set(['id', 'displayName', 'userPrincipalName', 'mail', 'accountEnabled']);

export interface MembersRequest {
  groupId: string;
  query: URLSearchParams;
  authorization: string | undefined;
  baseUrl: string;
}

export type MembersAnswer = { status: 200; body: Record<string, unknown> } | { status: number; refusal: GraphRefusal };

interface PageState {
  tenantId: string;
  clientId: string;
  groupId: string;
  offset: number;
}

function refuse(status: number, code: string, message: string): MembersAnswer {
  return { status, refusal: { status, code, message } };
}

function userJson(user: SimulatedUser, properties: string[]): Record<string, unknown> {
  const all: Record<string, unknown> = {
    id: user.id,
    displayName: user.displayName,
    userPrincipalName: user.userPrincipalName,
    mail: user.mail ?? user.userPrincipalName,
    accountEnabled: user.accountEnabled ?? true,
  };
  return Object.fromEntries(['id', ...properties.filter((name) => name !== 'id')].map((name) => [name, all[name]]));
}

export class GroupMembers {
  private readonly pages = new Map<string, PageState>();

  constructor(private readonly directory: Directory) {}

  answer(request: MembersRequest): MembersAnswer {
    const authenticated = authenticate(this.directory, request.authorization);
    if ('refusal' in authenticated) return { status: authenticated.refusal.status, refusal: authenticated.refusal };
    if (!holdsRole(authenticated, GROUP_READ_ROLES))
      return refuse(403, 'Authorization_RequestDenied', 'Insufficient privileges to complete the operation.');
    const { token } = authenticated;
    const group = authenticated.tenant.groups.get(request.groupId);
    if (group === undefined)
      return refuse(
        404,
        'Request_ResourceNotFound',
        `Resource '${request.groupId}' does not exist or one of its queried reference-property objects are not present.`,
      );
    const select = request.query.get('$select');
    const properties = select === null ? DEFAULT_PROPERTIES : select.split(',').map((name) => name.trim());
    const unknown = properties.find((name) => !USER_PROPERTIES.has(name));
    if (unknown !== undefined)
      return refuse(
        400,
        'Request_BadRequest',
        `Could not find a property named '${unknown}' on type 'microsoft.graph.user'.`,
      );
    const top = request.query.get('$top');
    const pageSize = top === null ? DEFAULT_PAGE_SIZE : Number(top);
    if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > MAX_PAGE_SIZE)
      return refuse(
        400,
        'Request_BadRequest',
        `Invalid page size specified: '${top}'. Must be between 1 and ${MAX_PAGE_SIZE}.`,
      );

    let offset = 0;
    const skipToken = request.query.get('$skiptoken');
    if (skipToken !== null) {
      const state = this.pages.get(skipToken);
      if (
        state === undefined ||
        state.tenantId !== token.tenantId ||
        state.clientId !== token.clientId ||
        state.groupId !== group.id
      )
        return refuse(400, 'Request_BadRequest', 'The skip token is not valid for this query.');
      offset = state.offset;
    }
    const users = this.directory.transitiveUsers(token.tenantId, group.id);
    const body: Record<string, unknown> = {
      '@odata.context': `${request.baseUrl}/v1.0/$metadata#users(${properties.join(',')})`,
      value: users.slice(offset, offset + pageSize).map((user) => userJson(user, properties)),
    };
    if (offset + pageSize < users.length) {
      const handle = randomBytes(24).toString('base64url');
      this.pages.set(handle, {
        tenantId: token.tenantId,
        clientId: token.clientId,
        groupId: group.id,
        offset: offset + pageSize,
      });
      const next = new URL(
        `${request.baseUrl}/v1.0/groups/${encodeURIComponent(group.id)}/transitiveMembers/microsoft.graph.user`,
      );
      if (select !== null) next.searchParams.set('$select', select);
      next.searchParams.set('$top', String(pageSize));
      next.searchParams.set('$skiptoken', handle);
      body['@odata.nextLink'] = next.toString();
    }
    return { status: 200, body };
  }
}
