/**
 * The Microsoft Graph simulator refuses what Graph and the identity platform
 * refuse (one test each), pages a first calendar-view delta round, returns
 * exactly the changes on the next one, and expands a weekly series across the
 * end of March DST change at the right UTC times.
 */
import { createHash, createPrivateKey, randomUUID, X509Certificate } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventFields } from '../../local/simulator/microsoft-graph/calendar-store';
import { MicrosoftGraphSimulator } from '../../local/simulator/microsoft-graph/simulator';
import { APP_CERTIFICATE, APP_PRIVATE_KEY, OTHER_CERTIFICATE, OTHER_PRIVATE_KEY } from '../fixtures/entra-certificates';

const TENANT = '8f1c2d3e-0000-4000-8000-00000000c0de';
const APP = { clientId: 'app-calendar', secret: 'right-secret', roles: ['Calendars.Read'] };
const GRAPH_SCOPE = 'https://graph.microsoft.com/.default';
const WINDOW = 'startDateTime=2027-03-01T00:00:00Z&endDateTime=2027-05-01T00:00:00Z';
const UTC = 'outlook.timezone="UTC"';

const users = {
  ada: { id: 'u-ada', userPrincipalName: 'ada@contoso.example', displayName: 'Ada' },
  bob: { id: 'u-bob', userPrincipalName: 'bob@contoso.example', displayName: 'Bob' },
  eve: { id: 'u-eve', userPrincipalName: 'eve@contoso.example', displayName: 'Eve' },
};

function meeting(subject: string, start: string, end: string, extra: Partial<EventFields> = {}): EventFields {
  return {
    subject,
    start,
    end,
    timeZone: 'UTC',
    organizer: { address: users.ada.userPrincipalName, name: 'Ada' },
    attendees: [{ address: users.bob.userPrincipalName, name: 'Bob', response: 'none' }],
    joinUrl: `https://teams.microsoft.com/l/meetup-join/${encodeURIComponent(subject)}`,
    ...extra,
  };
}

type Json = Record<string, unknown> & { value?: Array<Record<string, unknown>> };

let sim: MicrosoftGraphSimulator;
let base: string;

async function tokenRequest(fields: Record<string, string>, tenant = TENANT): Promise<{ status: number; body: Json }> {
  const response = await fetch(`${base}/${tenant}/oauth2/v2.0/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  });
  return { status: response.status, body: (await response.json()) as Json };
}

async function tokenFor(clientId: string, secret: string, scope = GRAPH_SCOPE): Promise<string> {
  const { status, body } = await tokenRequest({
    grant_type: 'client_credentials',
    client_id: clientId,
    client_secret: secret,
    scope,
  });
  expect(status).toBe(200);
  return body.access_token as string;
}

async function get(
  url: string,
  token: string | undefined,
  prefer: string[] = [UTC],
): Promise<{ status: number; body: Json; headers: Headers }> {
  const headers: Record<string, string> = { prefer: prefer.join(', ') };
  if (token !== undefined) headers.authorization = `Bearer ${token}`;
  const response = await fetch(url, { headers });
  return { status: response.status, body: (await response.json()) as Json, headers: response.headers };
}

function deltaUrl(user: string, query = WINDOW): string {
  return `${base}/v1.0/users/${encodeURIComponent(user)}/calendarView/delta?${query}`;
}

/** Follows nextLinks to the deltaLink; answers the pages' items and the deltaLink. */
async function round(first: string, token: string, prefer: string[]) {
  const pages: Json[] = [];
  let url: string | undefined = first;
  while (url !== undefined) {
    const { status, body } = await get(url, token, prefer);
    expect(status).toBe(200);
    pages.push(body);
    url = body['@odata.nextLink'] as string | undefined;
  }
  return {
    pages,
    items: pages.flatMap((page) => page.value ?? []),
    deltaLink: pages.at(-1)!['@odata.deltaLink'] as string,
  };
}

function graphCode(body: Json): string {
  return (body.error as { code: string }).code;
}

beforeAll(async () => {
  sim = new MicrosoftGraphSimulator({ now: Date.parse('2027-03-01T06:00:00Z') });
  base = await sim.start();
  sim.addApp(TENANT, APP);
  sim.addApp(TENANT, { clientId: 'app-users-only', secret: 's', roles: ['User.Read.All'] });
  sim.addApp(TENANT, { clientId: 'app-revoked', secret: 's', roles: ['Calendars.Read'] });
  sim.addApp(TENANT, { clientId: 'app-policy', secret: 's', roles: ['Calendars.Read'] });
  sim.setAccessPolicy(TENANT, 'app-policy', [users.ada.id]);
  sim.addApp(TENANT, { clientId: 'app-certificate', roles: ['Calendars.Read'] });
  sim.addCertificate(TENANT, 'app-certificate', APP_CERTIFICATE);
  sim.addApp(TENANT, { clientId: 'app-groups', secret: 's', roles: ['GroupMember.Read.All'] });
  for (const user of Object.values(users)) sim.addUser(TENANT, user);
  sim.addEvent(users.eve.id, meeting('eve one', '2027-03-10T10:00:00', '2027-03-10T10:30:00'));
  sim.addEvent(users.eve.id, meeting('eve two', '2027-03-11T10:00:00', '2027-03-11T10:30:00'));
});

afterAll(async () => {
  await sim.stop();
});

describe('token endpoint refusals', () => {
  it('refuses a wrong client secret with 401 invalid_client (AADSTS7000215)', async () => {
    const { status, body } = await tokenRequest({
      grant_type: 'client_credentials',
      client_id: APP.clientId,
      client_secret: 'wrong',
      scope: GRAPH_SCOPE,
    });
    expect(status).toBe(401);
    expect(body.error).toBe('invalid_client');
    expect(body.error_codes).toEqual([7000215]);
    expect(body.error_description).toMatch(/^AADSTS7000215: /);
  });

  it('refuses an unknown tenant with 400 invalid_request (AADSTS90002)', async () => {
    const { status, body } = await tokenRequest(
      { grant_type: 'client_credentials', client_id: APP.clientId, client_secret: APP.secret, scope: GRAPH_SCOPE },
      'no-such-tenant',
    );
    expect(status).toBe(400);
    expect(body.error).toBe('invalid_request');
    expect(body.error_codes).toEqual([90002]);
  });

  it('refuses an app unknown in the tenant with 400 unauthorized_client (AADSTS700016)', async () => {
    const { status, body } = await tokenRequest({
      grant_type: 'client_credentials',
      client_id: 'never-registered',
      client_secret: 'x',
      scope: GRAPH_SCOPE,
    });
    expect(status).toBe(400);
    expect(body.error).toBe('unauthorized_client');
    expect(body.error_codes).toEqual([700016]);
  });

  it('refuses a scope that is not a resource/.default with 400 invalid_scope', async () => {
    const { status, body } = await tokenRequest({
      grant_type: 'client_credentials',
      client_id: APP.clientId,
      client_secret: APP.secret,
      scope: 'https://graph.microsoft.com/Calendars.Read',
    });
    expect(status).toBe(400);
    expect(body.error).toBe('invalid_scope');
  });

  it('answers a right request with a Bearer token that lives 3599 seconds', async () => {
    const { status, body } = await tokenRequest({
      grant_type: 'client_credentials',
      client_id: APP.clientId,
      client_secret: APP.secret,
      scope: GRAPH_SCOPE,
    });
    expect(status).toBe(200);
    expect(body).toMatchObject({ token_type: 'Bearer', expires_in: 3599 });
    expect(typeof body.access_token).toBe('string');
  });
});

describe('certificate credentials (client assertion)', () => {
  const thumbprint = (pem: string) => createHash('sha1').update(new X509Certificate(pem).raw).digest('base64url');

  async function assertion(
    options: { key?: string; certificate?: string; aud?: string; expiresIn?: number; iss?: string } = {},
  ): Promise<string> {
    const now = Math.floor(sim.directory.now() / 1000);
    return new SignJWT({ jti: randomUUID() })
      .setProtectedHeader({ alg: 'RS256', typ: 'JWT', x5t: thumbprint(options.certificate ?? APP_CERTIFICATE) })
      .setIssuer(options.iss ?? 'app-certificate')
      .setSubject(options.iss ?? 'app-certificate')
      .setAudience(options.aud ?? `${base}/${TENANT}/oauth2/v2.0/token`)
      .setIssuedAt(now)
      .setNotBefore(now)
      .setExpirationTime(now + (options.expiresIn ?? 600))
      .sign(createPrivateKey(options.key ?? APP_PRIVATE_KEY));
  }

  const assertionForm = async (signed: string) =>
    tokenRequest({
      grant_type: 'client_credentials',
      client_id: 'app-certificate',
      scope: GRAPH_SCOPE,
      client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
      client_assertion: signed,
    });

  it("answers a token for an assertion signed with the registered certificate's key", async () => {
    const { status, body } = await assertionForm(await assertion());
    expect(status).toBe(200);
    expect(body).toMatchObject({ token_type: 'Bearer', expires_in: 3599 });
  });

  it('refuses a bad signature (another key under the registered thumbprint) with AADSTS700027', async () => {
    const { status, body } = await assertionForm(await assertion({ key: OTHER_PRIVATE_KEY }));
    expect(status).toBe(401);
    expect(body.error).toBe('invalid_client');
    expect(body.error_codes).toEqual([700027]);
    expect(body.error_description).toMatch(/invalid signature/);
  });

  it('refuses an unregistered certificate thumbprint with AADSTS700027', async () => {
    const signed = await assertion({ key: OTHER_PRIVATE_KEY, certificate: OTHER_CERTIFICATE });
    const { status, body } = await assertionForm(signed);
    expect(status).toBe(401);
    expect(body.error_codes).toEqual([700027]);
    expect(body.error_description).toMatch(/not registered/);
  });

  it('refuses an assertion addressed to another token endpoint with AADSTS700023', async () => {
    const signed = await assertion({ aud: `https://login.microsoftonline.com/${TENANT}/oauth2/v2.0/token` });
    const { status, body } = await assertionForm(signed);
    expect(status).toBe(401);
    expect(body.error_codes).toEqual([700023]);
  });

  it('refuses an expired assertion with AADSTS700024', async () => {
    const { status, body } = await assertionForm(await assertion({ expiresIn: -3600 }));
    expect(status).toBe(401);
    expect(body.error_codes).toEqual([700024]);
  });

  it("refuses an assertion whose issuer is another app's id with AADSTS700021", async () => {
    const { status, body } = await assertionForm(await assertion({ iss: 'app-calendar' }));
    expect(status).toBe(401);
    expect(body.error_codes).toEqual([700021]);
  });
});

describe('group transitiveMembers', () => {
  const membersUrl = (group: string, query = '$select=id,userPrincipalName,accountEnabled') =>
    `${base}/v1.0/groups/${group}/transitiveMembers/microsoft.graph.user?${query}`;

  beforeAll(() => {
    sim.addUser(TENANT, { id: 'u-zed', userPrincipalName: 'zed@contoso.example', displayName: 'Zed' });
    sim.addGroup(TENANT, { id: 'g-inner', displayName: 'Inner', members: ['u-eve', 'u-zed'] });
    sim.addGroup(TENANT, { id: 'g-outer', displayName: 'Outer', members: ['u-ada', 'g-inner', 'u-bob'] });
    sim.disableUser(TENANT, 'u-zed');
  });

  it('flattens nested groups, pages by $top, and shows accountEnabled when selected', async () => {
    const token = await tokenFor('app-groups', 's');
    const first = await get(membersUrl('g-outer', '$select=id,userPrincipalName,accountEnabled&$top=3'), token, []);
    expect(first.status).toBe(200);
    expect(first.body.value).toHaveLength(3);
    const second = await get(first.body['@odata.nextLink'] as string, token, []);
    expect(second.body['@odata.nextLink']).toBeUndefined();
    expect([...first.body.value!, ...second.body.value!]).toEqual([
      { id: 'u-ada', userPrincipalName: 'ada@contoso.example', accountEnabled: true },
      { id: 'u-eve', userPrincipalName: 'eve@contoso.example', accountEnabled: true },
      { id: 'u-zed', userPrincipalName: 'zed@contoso.example', accountEnabled: false },
      { id: 'u-bob', userPrincipalName: 'bob@contoso.example', accountEnabled: true },
    ]);
  });

  it('leaves accountEnabled out unless $select names it', async () => {
    const token = await tokenFor('app-groups', 's');
    const { body } = await get(membersUrl('g-inner', ''), token, []);
    expect(body.value![0]).not.toHaveProperty('accountEnabled');
  });

  it('refuses an app without a group read permission with 403 Authorization_RequestDenied', async () => {
    const token = await tokenFor(APP.clientId, APP.secret);
    const { status, body } = await get(membersUrl('g-outer'), token, []);
    expect(status).toBe(403);
    expect(graphCode(body)).toBe('Authorization_RequestDenied');
  });

  it('refuses an unknown group with 404 Request_ResourceNotFound', async () => {
    const token = await tokenFor('app-groups', 's');
    const { status, body } = await get(membersUrl('g-none'), token, []);
    expect(status).toBe(404);
    expect(graphCode(body)).toBe('Request_ResourceNotFound');
  });
});

describe('calendarView/delta refusals', () => {
  it('refuses a request without a token with 401 InvalidAuthenticationToken', async () => {
    const { status, body } = await get(deltaUrl(users.ada.id), undefined);
    expect(status).toBe(401);
    expect(graphCode(body)).toBe('InvalidAuthenticationToken');
    expect(body.error).toHaveProperty('innerError.request-id');
  });

  it('refuses an expired token with 401 InvalidAuthenticationToken', async () => {
    const token = await tokenFor(APP.clientId, APP.secret);
    sim.advanceClock(3600 * 1000);
    const { status, body } = await get(deltaUrl(users.ada.id), token);
    expect(status).toBe(401);
    expect(graphCode(body)).toBe('InvalidAuthenticationToken');
    expect((body.error as { message: string }).message).toMatch(/expired/);
  });

  it('refuses a token issued for another resource with 401 InvalidAuthenticationToken', async () => {
    const token = await tokenFor(APP.clientId, APP.secret, 'https://management.azure.com/.default');
    const { status, body } = await get(deltaUrl(users.ada.id), token);
    expect(status).toBe(401);
    expect((body.error as { message: string }).message).toMatch(/audience/);
  });

  it('refuses an app without Calendars.Read with 403 ErrorAccessDenied', async () => {
    const token = await tokenFor('app-users-only', 's');
    const { status, body } = await get(deltaUrl(users.ada.id), token);
    expect(status).toBe(403);
    expect(graphCode(body)).toBe('ErrorAccessDenied');
  });

  it('refuses at once after an administrator revokes Calendars.Read (403 ErrorAccessDenied)', async () => {
    const token = await tokenFor('app-revoked', 's');
    expect((await get(deltaUrl(users.ada.id), token)).status).toBe(200);
    sim.revokePermission(TENANT, 'app-revoked', 'Calendars.Read');
    const { status, body } = await get(deltaUrl(users.ada.id), token);
    expect(status).toBe(403);
    expect(graphCode(body)).toBe('ErrorAccessDenied');
  });

  it('refuses a user outside the application access policy with 403 ErrorAccessDenied', async () => {
    const token = await tokenFor('app-policy', 's');
    expect((await get(deltaUrl(users.ada.userPrincipalName), token)).status).toBe(200);
    const { status, body } = await get(deltaUrl(users.bob.userPrincipalName), token);
    expect(status).toBe(403);
    expect(graphCode(body)).toBe('ErrorAccessDenied');
  });

  it('refuses an unknown user with 404 ErrorInvalidUser', async () => {
    const token = await tokenFor(APP.clientId, APP.secret);
    const { status, body } = await get(deltaUrl('nobody@contoso.example'), token);
    expect(status).toBe(404);
    expect(graphCode(body)).toBe('ErrorInvalidUser');
  });

  it('refuses a first call without startDateTime and endDateTime with 400', async () => {
    const token = await tokenFor(APP.clientId, APP.secret);
    const { status, body } = await get(deltaUrl(users.ada.id, 'startDateTime=2027-03-01T00:00:00Z'), token);
    expect(status).toBe(400);
    expect(graphCode(body)).toBe('ErrorInvalidParameter');
  });

  it("refuses another mailbox's skip token and delta token, and a delta token with another window, with 400", async () => {
    const token = await tokenFor(APP.clientId, APP.secret);
    const first = await get(deltaUrl(users.eve.id), token, [UTC, 'odata.maxpagesize=1']);
    const skip = new URL(first.body['@odata.nextLink'] as string).searchParams.get('$skiptoken')!;
    const foreignSkip = await get(deltaUrl(users.bob.id, `$skiptoken=${skip}`), token);
    expect(foreignSkip.status).toBe(400);
    expect(graphCode(foreignSkip.body)).toBe('ErrorInvalidUrlQuery');

    const { deltaLink } = await round(deltaUrl(users.eve.id), token, [UTC]);
    const delta = new URL(deltaLink).searchParams.get('$deltatoken')!;
    expect((await get(deltaUrl(users.bob.id, `$deltatoken=${delta}`), token)).status).toBe(400);
    const otherWindow = `$deltatoken=${delta}&startDateTime=2027-04-01T00:00:00Z&endDateTime=2027-06-01T00:00:00Z`;
    expect((await get(deltaUrl(users.eve.id, otherWindow), token)).status).toBe(400);
    expect((await get(deltaLink, token)).status).toBe(200);
  });

  it('answers 410 syncStateNotFound for a voided delta token, and a new full round works', async () => {
    const token = await tokenFor(APP.clientId, APP.secret);
    const { deltaLink } = await round(deltaUrl(users.eve.id), token, [UTC]);
    sim.voidDeltaTokens(users.eve.id);
    const { status, body } = await get(deltaLink, token);
    expect(status).toBe(410);
    expect(graphCode(body)).toBe('syncStateNotFound');
    const again = await round(deltaUrl(users.eve.id), token, [UTC]);
    expect(again.items).toHaveLength(2);
  });

  it('throttles past the per-app, per-mailbox limit with 429 ApplicationThrottled and Retry-After', async () => {
    const throttled = new MicrosoftGraphSimulator({
      now: Date.parse('2027-03-01T06:00:00Z'),
      throttle: { requests: 2, windowSeconds: 60 },
    });
    const throttledBase = await throttled.start();
    try {
      throttled.addApp(TENANT, APP);
      throttled.addUser(TENANT, users.ada);
      throttled.addUser(TENANT, users.bob);
      const form = { grant_type: 'client_credentials', client_id: APP.clientId, client_secret: APP.secret };
      const tokenResponse = await fetch(`${throttledBase}/${TENANT}/oauth2/v2.0/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ ...form, scope: GRAPH_SCOPE }).toString(),
      });
      const token = ((await tokenResponse.json()) as Json).access_token as string;
      const url = (user: string) => `${throttledBase}/v1.0/users/${user}/calendarView/delta?${WINDOW}`;
      expect((await get(url(users.ada.id), token)).status).toBe(200);
      throttled.advanceClock(20_000);
      expect((await get(url(users.ada.id), token)).status).toBe(200);
      const third = await get(url(users.ada.id), token);
      expect(third.status).toBe(429);
      expect(graphCode(third.body)).toBe('ApplicationThrottled');
      expect(third.headers.get('retry-after')).toBe('40');
      // The limit is per mailbox: another user is still answered; after the wait, so is this one.
      expect((await get(url(users.bob.id), token)).status).toBe(200);
      throttled.advanceClock(40_000);
      expect((await get(url(users.ada.id), token)).status).toBe(200);
    } finally {
      await throttled.stop();
    }
  });
});

describe('full and incremental sync', () => {
  it('pages a first round by maxpagesize, then returns exactly a move, a cancel and a new event', async () => {
    const token = await tokenFor(APP.clientId, APP.secret);
    const singles = [1, 2, 3, 4, 5].map((day) =>
      sim.addEvent(
        users.ada.id,
        meeting(`standup ${day}`, `2027-03-0${day + 1}T09:00:00`, `2027-03-0${day + 1}T09:15:00`),
      ),
    );
    const series = sim.addWeeklySeries(
      users.ada.id,
      meeting('weekly sync', '2027-03-15T09:00:00', '2027-03-15T09:30:00', { timeZone: 'W. Europe Standard Time' }),
      5,
    );
    // An exception after the DST change (moved to 10:00 local) and a cancelled occurrence.
    sim.changeOccurrence(users.ada.id, series.id, '2027-03-29', {
      start: '2027-03-29T10:00:00',
      end: '2027-03-29T10:30:00',
    });
    sim.cancelOccurrence(users.ada.id, series.id, '2027-04-05');

    const first = await round(deltaUrl(users.ada.id), token, [UTC, 'odata.maxpagesize=4']);
    // Nine instances and the series' master, in pages of at most four, every second one short.
    expect(first.pages.map((page) => page.value!.length)).toEqual([4, 2, 4]);
    expect(first.items).toHaveLength(10);
    expect(
      first.pages
        .slice(0, -1)
        .every((page) => '$skiptoken' in Object.fromEntries(new URL(page['@odata.nextLink'] as string).searchParams)),
    ).toBe(true);
    expect(new URL(first.deltaLink).searchParams.has('$deltatoken')).toBe(true);

    // The series in UTC: 08:00Z before the change on 28 March 2027, 07:00Z after; the exception at 10:00 local.
    const occurrences = first.items.filter((item) => item.seriesMasterId === series.id);
    expect(occurrences.map((item) => [item.type, (item.start as { dateTime: string }).dateTime])).toEqual([
      ['occurrence', '2027-03-15T08:00:00.0000000'],
      ['occurrence', '2027-03-22T08:00:00.0000000'],
      ['exception', '2027-03-29T08:00:00.0000000'],
      ['occurrence', '2027-04-12T07:00:00.0000000'],
    ]);
    expect(occurrences.every((item) => (item.start as { timeZone: string }).timeZone === 'UTC')).toBe(true);

    const moved = sim.moveEvent(users.ada.id, singles[0]!.id, '2027-03-20T14:00:00', '2027-03-20T14:30:00');
    sim.cancelEvent(users.ada.id, singles[1]!.id);
    const added = sim.addEvent(users.ada.id, meeting('new review', '2027-03-25T16:00:00', '2027-03-25T17:00:00'));

    const next = await round(first.deltaLink, token, [UTC]);
    expect(next.items).toHaveLength(3);
    expect(next.items[0]).toMatchObject({ id: moved.id, start: { dateTime: '2027-03-20T14:00:00.0000000' } });
    expect(next.items[1]).toEqual({ '@removed': { reason: 'deleted' }, id: singles[1]!.id });
    expect(next.items[2]).toMatchObject({
      id: added.id,
      subject: 'new review',
      onlineMeeting: { joinUrl: expect.stringContaining('teams.microsoft.com') },
    });

    // Nothing changed since: the following round is empty.
    const quiet = await round(next.deltaLink, token, [UTC]);
    expect(quiet.items).toHaveLength(0);

    // A deleted occurrence of the series arrives as a removal of that occurrence's id alone.
    sim.cancelOccurrence(users.ada.id, series.id, '2027-04-12');
    const lastOccurrence = occurrences[3]!.id as string;
    expect((await round(quiet.deltaLink, token, [UTC])).items).toEqual([
      { '@removed': { reason: 'deleted' }, id: lastOccurrence },
    ]);
  });

  it('answers in UTC when the client names no zone, as Graph does', async () => {
    const token = await tokenFor(APP.clientId, APP.secret);
    const { items } = await round(deltaUrl(users.eve.id), token, []);
    expect(items.map((item) => item.start)).toEqual([
      { dateTime: '2027-03-10T10:00:00.0000000', timeZone: 'UTC' },
      { dateTime: '2027-03-11T10:00:00.0000000', timeZone: 'UTC' },
    ]);
  });

  it('answers in the zone the client asks for: a series keeps its wall time across the DST change (the 12 April occurrence is cancelled by then)', async () => {
    const token = await tokenFor(APP.clientId, APP.secret);
    const { items } = await round(deltaUrl(users.ada.id), token, ['outlook.timezone="W. Europe Standard Time"']);
    const starts = items
      .filter((item) => item.type === 'occurrence')
      .map((item) => item.start as { dateTime: string; timeZone: string });
    expect(starts).toEqual([
      { dateTime: '2027-03-15T09:00:00.0000000', timeZone: 'W. Europe Standard Time' },
      { dateTime: '2027-03-22T09:00:00.0000000', timeZone: 'W. Europe Standard Time' },
    ]);
  });

  it("an invitee's copy shares the iCalUId; a decline shows in both calendars; a cancelled copy stays marked", async () => {
    const token = await tokenFor(APP.clientId, APP.secret);
    const original = sim.addEvent(users.ada.id, meeting('design review', '2027-04-20T13:00:00', '2027-04-20T14:00:00'));
    const copy = sim.addInviteeCopy(users.bob.id, original);
    const bobFirst = await round(deltaUrl(users.bob.id), token, [UTC]);
    const adaFirst = await round(deltaUrl(users.ada.id), token, [UTC]);
    expect(bobFirst.items.map((item) => item.iCalUId)).toEqual([original.iCalUId]);
    expect(bobFirst.items[0]!.id).not.toBe(original.id);

    sim.respond(users.bob.id, copy.id, 'declined', { userId: users.ada.id, eventId: original.id });
    const bobNext = await round(bobFirst.deltaLink, token, [UTC]);
    expect(bobNext.items).toHaveLength(1);
    expect(bobNext.items[0]).toMatchObject({ responseStatus: { response: 'declined' } });
    const adaNext = await round(adaFirst.deltaLink, token, [UTC]);
    expect(adaNext.items).toHaveLength(1);
    expect(adaNext.items[0]).toMatchObject({ attendees: [{ status: { response: 'declined' } }] });

    sim.markCancelled(users.bob.id, copy.id);
    const bobLast = await round(bobNext.deltaLink, token, [UTC]);
    expect(bobLast.items).toHaveLength(1);
    expect(bobLast.items[0]).toMatchObject({ id: copy.id, isCancelled: true });
  });
});

describe('loopback only', () => {
  it('refuses a request addressed to another host name with 421', async () => {
    const status = await new Promise<number>((resolve, reject) => {
      const port = Number(new URL(base).port);
      httpRequest(
        {
          host: '127.0.0.1',
          port,
          path: `/${TENANT}/oauth2/v2.0/token`,
          method: 'POST',
          headers: { host: 'evil.example' },
        },
        (response) => {
          response.resume();
          resolve(response.statusCode ?? 0);
        },
      )
        .on('error', reject)
        .end();
    });
    expect(status).toBe(421);
  });
});

describe('recurring series as calendarView/delta lists them', () => {
  const person = (name: string) => ({
    id: `u-${name}`,
    userPrincipalName: `${name}@contoso.example`,
    displayName: name,
  });
  const eventUrl = (user: string, id: string) =>
    `${base}/v1.0/users/${encodeURIComponent(user)}/events/${encodeURIComponent(id)}`;

  it('lists a plain occurrence as a stub of exactly seven keys, an exception and the series master in full, the master after every instance', async () => {
    const sam = person('sam');
    sim.addUser(TENANT, sam);
    const token = await tokenFor(APP.clientId, APP.secret);
    const series = sim.addWeeklySeries(sam.id, meeting('stub review', '2027-03-08T09:00:00', '2027-03-08T09:30:00'), 3);
    sim.changeOccurrence(sam.id, series.id, '2027-03-15', { subject: 'stub review (moved)' });
    const { items } = await round(deltaUrl(sam.id), token, [UTC, 'odata.maxpagesize=2']);
    expect(items.map((item) => item.type)).toEqual(['occurrence', 'exception', 'occurrence', 'seriesMaster']);
    for (const stub of items.filter((item) => item.type === 'occurrence'))
      expect(Object.keys(stub).sort()).toEqual(
        ['@odata.type', '@odata.etag', 'id', 'seriesMasterId', 'type', 'start', 'end'].sort(),
      );
    expect(items[0]).toMatchObject({
      seriesMasterId: series.id,
      start: { dateTime: '2027-03-08T09:00:00.0000000', timeZone: 'UTC' },
    });
    expect(items[1]).toMatchObject({
      subject: 'stub review (moved)',
      seriesMasterId: series.id,
      originalStart: '2027-03-15T09:00:00Z',
      onlineMeeting: { joinUrl: expect.stringContaining('teams.microsoft.com') },
    });
    expect(items[3]).toMatchObject({
      id: series.id,
      iCalUId: series.iCalUId,
      subject: 'stub review',
      start: { dateTime: '2027-03-08T09:00:00.0000000' },
      organizer: { emailAddress: { address: users.ada.userPrincipalName } },
      attendees: [
        expect.objectContaining({ emailAddress: expect.objectContaining({ address: users.bob.userPrincipalName }) }),
      ],
      onlineMeeting: { joinUrl: expect.stringContaining('teams.microsoft.com') },
      recurrence: {
        pattern: expect.objectContaining({ type: 'weekly', interval: 1, daysOfWeek: ['monday'] }),
        range: expect.objectContaining({ type: 'numbered', startDate: '2027-03-08', numberOfOccurrences: 3 }),
      },
    });
    expect(items[3]).not.toHaveProperty('originalStart');
  });

  it('leaves out the master of a series begun before the window; lists a series changed but for its times by its master alone, a moved one with every instance', async () => {
    const tom = person('tom');
    sim.addUser(TENANT, tom);
    const token = await tokenFor(APP.clientId, APP.secret);
    const early = sim.addWeeklySeries(tom.id, meeting('early', '2027-02-22T09:00:00', '2027-02-22T09:30:00'), 3);
    const inWindow = sim.addWeeklySeries(tom.id, meeting('in window', '2027-03-09T09:00:00', '2027-03-09T09:30:00'), 2);
    const first = await round(deltaUrl(tom.id), token, [UTC]);
    expect(first.items.map((item) => [item.type, item.seriesMasterId ?? item.id])).toEqual([
      ['occurrence', early.id],
      ['occurrence', early.id],
      ['occurrence', inWindow.id],
      ['occurrence', inWindow.id],
      ['seriesMaster', inWindow.id],
    ]);
    sim.store.update(tom.id, early.id, (event) => {
      event.subject = 'early, renamed';
    });
    sim.store.update(tom.id, inWindow.id, (event) => {
      event.subject = 'in window, renamed';
    });
    // Only the masters, even the one begun before the window: a stub would show nothing of the change.
    const renamed = await round(first.deltaLink, token, [UTC]);
    expect(renamed.items.map((item) => [item.type, item.id, item.subject])).toEqual([
      ['seriesMaster', early.id, 'early, renamed'],
      ['seriesMaster', inWindow.id, 'in window, renamed'],
    ]);
    // Moved an hour: every instance again (as stubs), then its master.
    sim.moveEvent(tom.id, inWindow.id, '2027-03-09T10:00:00', '2027-03-09T10:30:00');
    const moved = await round(renamed.deltaLink, token, [UTC]);
    expect(moved.items.map((item) => [item.type, (item.start as { dateTime: string }).dateTime])).toEqual([
      ['occurrence', '2027-03-09T10:00:00.0000000'],
      ['occurrence', '2027-03-16T10:00:00.0000000'],
      ['seriesMaster', '2027-03-09T10:00:00.0000000'],
    ]);
    // A deleted series: every instance and its master removed.
    sim.cancelEvent(tom.id, inWindow.id);
    const gone = await round(moved.deltaLink, token, [UTC]);
    expect(gone.items).toEqual(
      [...moved.items.map((item) => item.id)].map((id) => ({ '@removed': { reason: 'deleted' }, id })),
    );
  });

  it('GET events/{id}: a master in full with its recurrence, an occurrence in full, 404 ErrorItemNotFound for an unknown or deleted id, 401 without a token', async () => {
    const uma = person('uma');
    sim.addUser(TENANT, uma);
    const token = await tokenFor(APP.clientId, APP.secret);
    const series = sim.addWeeklySeries(uma.id, meeting('got', '2027-03-10T09:00:00', '2027-03-10T09:30:00'), 2);
    const master = await get(eventUrl(uma.userPrincipalName, series.id), token);
    expect(master.status).toBe(200);
    expect(master.body).toMatchObject({
      id: series.id,
      type: 'seriesMaster',
      subject: 'got',
      iCalUId: series.iCalUId,
      start: { dateTime: '2027-03-10T09:00:00.0000000', timeZone: 'UTC' },
      recurrence: { range: expect.objectContaining({ numberOfOccurrences: 2 }) },
    });
    const { items } = await round(deltaUrl(uma.id), token, [UTC]);
    const occurrence = await get(eventUrl(uma.id, items[0]!.id as string), token);
    expect(occurrence.body).toMatchObject({ type: 'occurrence', subject: 'got', seriesMasterId: series.id });
    const unknown = await get(eventUrl(uma.id, 'AAMkAGnot-an-event='), token);
    expect([unknown.status, graphCode(unknown.body)]).toEqual([404, 'ErrorItemNotFound']);
    sim.cancelEvent(uma.id, series.id);
    const deleted = await get(eventUrl(uma.id, series.id), token);
    expect([deleted.status, graphCode(deleted.body)]).toEqual([404, 'ErrorItemNotFound']);
    const anonymous = await get(eventUrl(uma.id, series.id), undefined);
    expect([anonymous.status, graphCode(anonymous.body)]).toEqual([401, 'InvalidAuthenticationToken']);
  });

  it('answers every second page shorter than odata.maxpagesize: only the nextLink says more follows', async () => {
    const vic = person('vic');
    sim.addUser(TENANT, vic);
    const token = await tokenFor(APP.clientId, APP.secret);
    for (let day = 1; day <= 9; day += 1)
      sim.addEvent(vic.id, meeting(`day ${day}`, `2027-03-0${day}T09:00:00`, `2027-03-0${day}T09:30:00`));
    const { pages, items } = await round(deltaUrl(vic.id), token, [UTC, 'odata.maxpagesize=4']);
    expect(pages.map((page) => [page.value!.length, '@odata.nextLink' in page])).toEqual([
      [4, true],
      [2, true],
      [3, false],
    ]);
    expect(items).toHaveLength(9);
  });
});
