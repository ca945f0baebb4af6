/**
 * The Google simulator's Directory API `members.list` refuses what Google refuses
 * (no token, a token without a group-member scope, a caller who is no admin, an
 * unknown group, a page token from another query) and lists a group's members,
 * nested groups' users included with includeDerivedMembership, suspended ones
 * marked. The token endpoint hands out the directory scope only when the
 * delegation grant covers it.
 */
import { generateKeyPairSync, sign } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DirectoryMember } from '../../local/simulator/google-calendar/directory';
import { GoogleCalendarSimulator } from '../../local/simulator/google-calendar/server';
import { JWT_BEARER_GRANT } from '../../local/simulator/google-calendar/token-endpoint';

const READONLY = 'https://www.googleapis.com/auth/calendar.readonly';
const MEMBERS = 'https://www.googleapis.com/auth/admin.directory.group.member.readonly';
const SA = 'pipeline@acme-project.iam.gserviceaccount.com';
const CALENDAR_ONLY_SA = 'calendar-only@acme-project.iam.gserviceaccount.com';
const ADMIN = 'admin@acme.example';
const ENG = 'eng@acme.example';
const PLATFORM = 'platform@acme.example';
const USERS = ['ada@acme.example', 'bob@acme.example', 'cy@acme.example', 'dee@acme.example'];

const sim = new GoogleCalendarSimulator(Date.parse('2026-03-10T08:00:00Z'));
const keys = generateKeyPairSync('rsa', { modulusLength: 2048 });

async function requestToken(iss: string, sub: string, scope: string) {
  const iat = Math.floor(sim.clock.now() / 1000);
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const signed = `${part({ alg: 'RS256', typ: 'JWT' })}.${part({ iss, sub, scope, aud: sim.tokenUrl, iat, exp: iat + 600 })}`;
  const jwt = `${signed}.${sign('sha256', Buffer.from(signed), keys.privateKey).toString('base64url')}`;
  const response = await fetch(sim.tokenUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: JWT_BEARER_GRANT, assertion: jwt }).toString(),
  });
  return { status: response.status, body: (await response.json()) as Record<string, string> };
}

async function tokenFor(sub: string, scope = MEMBERS): Promise<string> {
  const { status, body } = await requestToken(SA, sub, scope);
  expect(status).toBe(200);
  return body.access_token as string;
}

async function listMembers(token: string | undefined, group: string, params: Record<string, string> = {}) {
  const response = await fetch(
    `${sim.directoryBase}/groups/${encodeURIComponent(group)}/members?${new URLSearchParams(params)}`,
    token === undefined ? {} : { headers: { authorization: `Bearer ${token}` } },
  );
  const body = (await response.json()) as {
    members?: DirectoryMember[];
    nextPageToken?: string;
    error?: { code: number; errors: { reason: string }[] };
  };
  return { status: response.status, body };
}

beforeAll(async () => {
  await sim.start();
  for (const user of [ADMIN, ...USERS]) sim.control.addUser(user);
  const publicKeyPem = keys.publicKey.export({ type: 'spki', format: 'pem' }).toString();
  sim.control.registerServiceAccount({ clientEmail: SA, clientId: '1001', publicKeyPem });
  sim.control.registerServiceAccount({ clientEmail: CALENDAR_ONLY_SA, clientId: '1002', publicKeyPem });
  sim.control.grantDelegation('1001', [READONLY, MEMBERS]);
  sim.control.grantDelegation('1002', [READONLY]);
  sim.control.makeAdmin(ADMIN);
  // eng holds ada, bob and the platform group; platform holds cy (suspended) and dee, and bob again.
  sim.control.defineGroup(ENG, ['ada@acme.example', 'bob@acme.example', PLATFORM]);
  sim.control.defineGroup(PLATFORM, ['cy@acme.example', 'dee@acme.example', 'bob@acme.example']);
  sim.control.suspendUser('cy@acme.example');
});
afterAll(() => sim.stop());

describe('directory scope at the token endpoint', () => {
  it('refuses the members scope to a client whose delegation grant lacks it: 401 unauthorized_client', async () => {
    const { status, body } = await requestToken(CALENDAR_ONLY_SA, ADMIN, MEMBERS);
    expect([status, body.error]).toEqual([401, 'unauthorized_client']);
  });
});

describe('members.list refusals', () => {
  it('answers 401 without a token', async () => {
    const { status, body } = await listMembers(undefined, ENG);
    expect([status, body.error?.errors[0]?.reason]).toEqual([401, 'authError']);
  });

  it('answers 403 insufficientPermissions for a token without a group-member scope', async () => {
    const { status, body } = await listMembers(await tokenFor(ADMIN, READONLY), ENG);
    expect([status, body.error?.errors[0]?.reason]).toEqual([403, 'insufficientPermissions']);
  });

  it('answers 403 forbidden when the token is for a user who is no admin', async () => {
    const { status, body } = await listMembers(await tokenFor('ada@acme.example'), ENG);
    expect([status, body.error?.errors[0]?.reason]).toEqual([403, 'forbidden']);
  });

  it('answers 404 for an unknown group', async () => {
    const { status, body } = await listMembers(await tokenFor(ADMIN), 'nobody@acme.example');
    expect([status, body.error?.errors[0]?.reason]).toEqual([404, 'notFound']);
  });

  it('answers 400 for a page token from another query, an unknown one and a page over 200', async () => {
    const token = await tokenFor(ADMIN);
    const first = await listMembers(token, ENG, { maxResults: '1' });
    expect(first.body.nextPageToken).toBeDefined();
    const elsewhere = await listMembers(token, PLATFORM, { maxResults: '1', pageToken: first.body.nextPageToken! });
    expect([elsewhere.status, elsewhere.body.error?.errors[0]?.reason]).toEqual([400, 'invalid']);
    expect((await listMembers(token, ENG, { pageToken: 'made-up' })).status).toBe(400);
    expect((await listMembers(token, ENG, { maxResults: '201' })).status).toBe(400);
  });
});

describe('members.list', () => {
  it('lists direct members only without includeDerivedMembership', async () => {
    const { status, body } = await listMembers(await tokenFor(ADMIN), ENG);
    expect(status).toBe(200);
    expect(body.members?.map((m) => [m.email, m.type])).toEqual([
      ['ada@acme.example', 'USER'],
      ['bob@acme.example', 'USER'],
      [PLATFORM, 'GROUP'],
    ]);
  });

  it("adds nested groups' users once each, suspended ones marked, across pages", async () => {
    const token = await tokenFor(ADMIN);
    const members: DirectoryMember[] = [];
    let pageToken: string | undefined;
    let pages = 0;
    do {
      const params: Record<string, string> = { includeDerivedMembership: 'true', maxResults: '2' };
      if (pageToken !== undefined) params.pageToken = pageToken;
      const { status, body } = await listMembers(token, ENG, params);
      expect(status).toBe(200);
      members.push(...(body.members ?? []));
      pageToken = body.nextPageToken;
      pages++;
    } while (pageToken !== undefined);
    expect(pages).toBe(3);
    expect(members.map((m) => [m.email, m.type, m.status])).toEqual([
      ['ada@acme.example', 'USER', 'ACTIVE'],
      ['bob@acme.example', 'USER', 'ACTIVE'],
      [PLATFORM, 'GROUP', 'ACTIVE'],
      ['cy@acme.example', 'USER', 'SUSPENDED'],
      ['dee@acme.example', 'USER', 'ACTIVE'],
    ]);
  });
});
