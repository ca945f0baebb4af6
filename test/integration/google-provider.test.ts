/**
 * The Google provider against the real Google simulator over HTTP: a service
 * account with a real RSA key, the JWT bearer grant signed by jose, full and
 * incremental listings, the refusals each mapped to its contract error, group
 * resolution through the Directory API, and the listing's bounds.
 */
import { generateKeyPairSync } from 'node:crypto';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createGoogleProvider,
  type GoogleSourceConfig,
} from '../../lambdas/core/calendar/company/google/google-provider';
import {
  AccessRevokedError,
  type CalendarProvider,
  type ChangeSet,
  CursorVoidError,
  DEFAULT_PROVIDER_ENDPOINTS,
  PROVIDER_LIMITS,
  type ProviderOptions,
  ProviderUnavailableError,
  ThrottledError,
} from '../../lambdas/core/calendar/company/provider-contract';
import { GoogleCalendarSimulator } from '../../local/simulator/google-calendar/server';

const READONLY = 'https://www.googleapis.com/auth/calendar.readonly';
const MEMBERS = 'https://www.googleapis.com/auth/admin.directory.group.member.readonly';
const SA = 'pipeline@acme-project.iam.gserviceaccount.com';
const SA_CLIENT_ID = '104200000000000000001';
const OTHER_SA = 'other@acme-project.iam.gserviceaccount.com';
const OTHER_CLIENT_ID = '104200000000000000002';
const ADMIN = 'admin@acme.example';
const BERLIN = 'Europe/Berlin';
const WINDOW = { from: '2026-03-10T00:00:00.000Z', to: '2026-05-10T00:00:00.000Z' };

const sim = new GoogleCalendarSimulator(Date.parse('2026-03-10T08:00:00Z'));
const keys = generateKeyPairSync('rsa', { modulusLength: 2048 });
const privateKeyPem = keys.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();

function keyJson(clientEmail: string): string {
  return JSON.stringify({
    type: 'service_account',
    project_id: 'acme-project',
    private_key_id: 'k1',
    private_key: privateKeyPem,
    client_email: clientEmail,
    client_id: SA_CLIENT_ID,
  });
}

let options: ProviderOptions;
const config: GoogleSourceConfig = {
  provider: 'google',
  credentialsSecret: 'google/acme',
  group: 'eng@acme.example',
  adminEmail: ADMIN,
};
let provider: CalendarProvider;

function timed(startLocal: string, durationMinutes = 30) {
  return { kind: 'timed' as const, startLocal, timeZone: BERLIN, durationMinutes };
}

function user(name: string): string {
  const email = `${name}@acme.example`;
  sim.control.addUser(email);
  return email;
}

const ids = (changes: ChangeSet) => changes.items.map((item) => item.id).sort();

async function refusal(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a refusal');
}

beforeAll(async () => {
  await sim.start();
  sim.control.addUser(ADMIN);
  const publicKeyPem = keys.publicKey.export({ type: 'spki', format: 'pem' }).toString();
  sim.control.registerServiceAccount({ clientEmail: SA, clientId: SA_CLIENT_ID, publicKeyPem });
  sim.control.registerServiceAccount({ clientEmail: OTHER_SA, clientId: OTHER_CLIENT_ID, publicKeyPem });
  sim.control.grantDelegation(SA_CLIENT_ID, [READONLY, MEMBERS]);
  sim.control.grantDelegation(OTHER_CLIENT_ID, [READONLY]);
  options = {
    endpoints: {
      ...DEFAULT_PROVIDER_ENDPOINTS,
      googleCalendarApi: sim.apiBase,
      googleDirectoryApi: sim.directoryBase,
      googleTokenUrl: sim.tokenUrl,
    },
    now: () => sim.clock.now(),
  };
  provider = createGoogleProvider(config, keyJson(SA), options);
});
afterAll(() => sim.stop());

describe('listing', () => {
  it('lists a calendar in full across pages with exact counts, one token and one request per page', async () => {
    const ada = user('ada');
    for (let i = 0; i < 300; i++)
      sim.control.addEvent(ada, {
        summary: `one-to-one ${i}`,
        timing: timed(
          `2026-03-${String(11 + (i % 18)).padStart(2, '0')}T${String(8 + (i % 9)).padStart(2, '0')}:00:00`,
        ),
      });
    sim.control.addEvent(ada, { summary: 'outside the window', timing: timed('2026-06-01T09:00:00') });
    const cancelled = sim.control.addEvent(ada, { summary: 'called off', timing: timed('2026-03-12T09:00:00') });
    sim.control.cancelEvent(ada, cancelled);
    const changes = await provider.listChanges(ada, undefined, WINDOW);
    expect(changes).toMatchObject({ full: true, removed: [], truncated: false, calls: 3 });
    expect(changes.items).toHaveLength(300);
    expect(changes.cursor).toEqual(expect.any(String));
    expect(new Set(changes.items.map((item) => item.occurrence.title)).size).toBe(300);
  });

  it('lists a move, a cancel and a new event incrementally: exactly those, the cancel as a removal', async () => {
    const bob = user('bob');
    const moved = sim.control.addEvent(bob, { summary: 'standup', timing: timed('2026-03-11T09:00:00') });
    const dropped = sim.control.addEvent(bob, { summary: 'retro', timing: timed('2026-03-12T15:00:00') });
    sim.control.addEvent(bob, { summary: 'untouched', timing: timed('2026-03-13T10:00:00') });
    const first = await provider.listChanges(bob, undefined, WINDOW);
    expect(first.items).toHaveLength(3);

    sim.control.moveEvent(bob, moved, timed('2026-03-11T10:00:00'));
    sim.control.cancelEvent(bob, dropped);
    const added = sim.control.addEvent(bob, {
      summary: 'planning',
      timing: timed('2026-03-16T11:00:00'),
      hangoutLink: 'https://meet.google.com/abc-defg-hij',
    });
    const next = await provider.listChanges(bob, first.cursor, WINDOW);
    expect(next).toMatchObject({ full: false, removed: [dropped], truncated: false, calls: 1 });
    expect(ids(next)).toEqual([added, moved].sort());
    expect(next.items.find((item) => item.id === moved)?.occurrence.start).toBe('2026-03-11T09:00:00.000Z');
    expect(next.items.find((item) => item.id === added)?.occurrence.links.conference).toEqual([
      'https://meet.google.com/abc-defg-hij',
    ]);

    const quiet = await provider.listChanges(bob, next.cursor, WINDOW);
    expect(quiet).toMatchObject({ items: [], removed: [], calls: 1 });
  });

  it('keeps the original start of a moved instance of a weekly series across the DST change', async () => {
    const cy = user('cy');
    const series = sim.control.addEvent(cy, {
      summary: 'weekly sync',
      timing: timed('2026-03-16T09:00:00'),
      weeklyCount: 6,
    });
    const first = await provider.listChanges(cy, undefined, WINDOW);
    const starts = first.items.map((item) => item.occurrence.start).sort();
    // 09:00 in Berlin: 08:00 UTC before the change on 29 March, 07:00 UTC after.
    expect(starts).toEqual([
      '2026-03-16T08:00:00.000Z',
      '2026-03-23T08:00:00.000Z',
      '2026-03-30T07:00:00.000Z',
      '2026-04-06T07:00:00.000Z',
      '2026-04-13T07:00:00.000Z',
      '2026-04-20T07:00:00.000Z',
    ]);
    expect(new Set(first.items.map((item) => item.occurrence.uid))).toEqual(new Set([`${series}@google.com`]));

    sim.control.moveInstance(cy, series, 2, timed('2026-03-30T11:00:00'));
    const next = await provider.listChanges(cy, first.cursor, WINDOW);
    expect(next.items).toHaveLength(1);
    expect(next.items[0]?.occurrence).toMatchObject({
      uid: `${series}@google.com`,
      originalStart: '2026-03-30T07:00:00.000Z',
      start: '2026-03-30T09:00:00.000Z',
    });
    expect(next.items[0]?.id).toBe(
      first.items.find((item) => item.occurrence.originalStart === '2026-03-30T07:00:00.000Z')?.id,
    );

    sim.control.cancelInstance(cy, series, 3);
    const cancel = await provider.listChanges(cy, next.cursor, WINDOW);
    expect(cancel).toMatchObject({ items: [], removed: [`${series}_20260406T070000Z`] });
  });

  it("gives an invitee's copy the organizer's uid, with the invitee's own answer", async () => {
    const dan = user('dan');
    const dee = user('dee');
    const meeting = sim.control.addEvent(dan, {
      summary: 'customer call',
      timing: timed('2026-03-18T14:00:00'),
      attendees: [{ email: dee }, { email: 'client@else.example', responseStatus: 'accepted' }],
    });
    sim.control.addInviteeCopy(dan, meeting, dee);
    sim.control.respond(dee, meeting, dee, 'declined');
    const [organizer, invitee] = await Promise.all([
      provider.listChanges(dan, undefined, WINDOW),
      provider.listChanges(dee, undefined, WINDOW),
    ]);
    expect(invitee.items[0]?.occurrence.uid).toBe(organizer.items[0]?.occurrence.uid);
    expect(invitee.items[0]?.occurrence.organizer).toBe(dan);
    expect(invitee.items[0]?.occurrence.attendees[0]).toEqual({ email: dee, partstat: 'DECLINED' });
    expect(organizer.items[0]?.occurrence.attendees.find((a) => a.email === dee)?.partstat).toBe('NEEDS-ACTION');
  });

  it('reads every page however short: 600 events in pages of at most 250, every second one short, none lost', async () => {
    const quin = user('quin');
    for (let i = 0; i < 600; i++)
      sim.control.addEvent(quin, {
        summary: `check-in ${i}`,
        timing: timed(`2026-04-${String(1 + (i % 28)).padStart(2, '0')}T${String(8 + (i % 9)).padStart(2, '0')}:00:00`),
      });
    const pages: number[] = [];
    const recording: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      if (!String(input).includes('/events?')) return response;
      const body = (await response.clone().json()) as { items?: unknown[] };
      pages.push(body.items?.length ?? 0);
      return response;
    };
    const changes = await createGoogleProvider(config, keyJson(SA), { ...options, fetch: recording }).listChanges(
      quin,
      undefined,
      WINDOW,
    );
    expect(pages).toEqual([250, 125, 225]);
    expect(new Set(changes.items.map((item) => item.occurrence.title)).size).toBe(600);
    expect(changes).toMatchObject({ truncated: false, calls: 4 });
  });
});

describe('refusals', () => {
  it('answers a voided sync token with CursorVoidError', async () => {
    const eve = user('eve');
    sim.control.addEvent(eve, { summary: 'x', timing: timed('2026-03-11T09:00:00') });
    const first = await provider.listChanges(eve, undefined, WINDOW);
    sim.control.voidSyncTokens(eve);
    expect(await refusal(provider.listChanges(eve, first.cursor, WINDOW))).toBeInstanceOf(CursorVoidError);
  });

  it("refuses the whole source when the admin revoked the service account's delegation", async () => {
    const fay = user('fay');
    sim.control.revokeDelegation(OTHER_CLIENT_ID);
    const revoked = createGoogleProvider(config, keyJson(OTHER_SA), options);
    const error = await refusal(revoked.listChanges(fay, undefined, WINDOW));
    expect(error).toBeInstanceOf(AccessRevokedError);
    expect((error as AccessRevokedError).scope).toBe('source');
    expect((error as AccessRevokedError).reason).toContain('unauthorized_client');
    sim.control.grantDelegation(OTHER_CLIENT_ID, [READONLY]);
  });

  it('refuses the whole source when Google rejects the key itself (invalid_grant about the signature)', async () => {
    const stranger = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const wrongKey = JSON.stringify({
      client_email: SA,
      private_key: stranger.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    });
    const error = await refusal(
      createGoogleProvider(config, wrongKey, options).listChanges(user('ray'), undefined, WINDOW),
    );
    expect(error).toBeInstanceOf(AccessRevokedError);
    expect([(error as AccessRevokedError).scope, (error as AccessRevokedError).reason]).toEqual([
      'source',
      expect.stringContaining('invalid_grant'),
    ]);
  });

  it('refuses only the user for an address outside the tenant', async () => {
    const error = await refusal(provider.listChanges('stranger@else.example', undefined, WINDOW));
    expect(error).toBeInstanceOf(AccessRevokedError);
    expect((error as AccessRevokedError).scope).toBe('user');
    expect((error as AccessRevokedError).reason).toContain('invalid_grant');
  });

  it('refuses a malformed key for the whole source without quoting it', () => {
    const broken = JSON.stringify({ client_email: SA, private_key: 'not-a-key-but-secret-words' });
    const error = (() => {
      try {
        createGoogleProvider(config, broken, options);
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(AccessRevokedError);
    expect((error as AccessRevokedError).scope).toBe('source');
    expect((error as AccessRevokedError).reason).toContain('private_key');
    expect((error as AccessRevokedError).reason).not.toContain('secret-words');
    expect(() => createGoogleProvider(config, 'not json', options)).toThrow(AccessRevokedError);
  });

  it('refuses a key whose private_key is shaped right but is no RSA key, at the first token', async () => {
    const fake = `-----BEGIN PRIVATE KEY-----\n${'A'.repeat(200)}\n-----END PRIVATE KEY-----\n`;
    const fakeKey = createGoogleProvider(config, JSON.stringify({ client_email: SA, private_key: fake }), options);
    const error = await refusal(fakeKey.listChanges(user('nia'), undefined, WINDOW));
    expect(error).toBeInstanceOf(AccessRevokedError);
    expect((error as AccessRevokedError).scope).toBe('source');
    expect((error as AccessRevokedError).reason).not.toContain('AAAA');
  });

  it("throttles with Google's Retry-After when sent, else a doubling default", async () => {
    const gus = user('gus');
    sim.quotas.limits.set(gus, { requests: 0, windowMs: 60_000, refusal: '429', retryAfterSeconds: 7 });
    const told = await refusal(provider.listChanges(gus, undefined, WINDOW));
    expect(told).toBeInstanceOf(ThrottledError);
    expect((told as ThrottledError).retryAfterMs).toBe(7_000);

    const hal = user('hal');
    sim.quotas.limits.set(hal, { requests: 0, windowMs: 60_000, refusal: '403 userRateLimitExceeded' });
    const waits: number[] = [];
    for (let i = 0; i < 2; i++)
      waits.push(((await refusal(provider.listChanges(hal, undefined, WINDOW))) as ThrottledError).retryAfterMs);
    expect(waits).toEqual([30_000, 60_000]);
    sim.quotas.limits.delete(hal);
    await provider.listChanges(hal, undefined, WINDOW);
    sim.quotas.limits.set(hal, { requests: 0, windowMs: 60_000, refusal: '403 rateLimitExceeded' });
    expect(((await refusal(provider.listChanges(hal, undefined, WINDOW))) as ThrottledError).retryAfterMs).toBe(30_000);
  });

  it('recovers from a cached token Google ended early with one new token', async () => {
    const ivy = user('ivy');
    sim.control.addEvent(ivy, { summary: 'x', timing: timed('2026-03-11T09:00:00') });
    await provider.listChanges(ivy, undefined, WINDOW);
    sim.control.expireAccessTokens(ivy);
    const again = await provider.listChanges(ivy, undefined, WINDOW);
    // The refused page, the new token, the page again.
    expect(again).toMatchObject({ calls: 3 });
    expect(again.items).toHaveLength(1);
  });

  it('hands out the cached calendar token for push, one the Calendar API takes', async () => {
    const jon = user('jon');
    await provider.listChanges(jon, undefined, WINDOW);
    const token = await provider.accessToken(jon);
    const tokensBefore = sim.tenant.accessTokens.size;
    expect(await provider.accessToken(jon)).toBe(token);
    expect(sim.tenant.accessTokens.size).toBe(tokensBefore);
    const response = await fetch(`${sim.apiBase}/calendars/primary/events`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(response.status).toBe(200);
  });
});

describe('tokens', () => {
  it('asks with an RS256 assertion as Google requires it: iss, sub, aud, scope, kid, at most an hour', async () => {
    const oli = user('oli');
    const assertions: string[] = [];
    const watched = createGoogleProvider(config, keyJson(SA), {
      ...options,
      fetch: (input, init) => {
        if (String(input) === sim.tokenUrl)
          assertions.push(new URLSearchParams(String(init?.body)).get('assertion') ?? '');
        return fetch(input, init);
      },
    });
    await watched.listChanges(oli, undefined, WINDOW);
    expect(assertions).toHaveLength(1);
    const claims = decodeJwt(assertions[0]!);
    expect(decodeProtectedHeader(assertions[0]!)).toMatchObject({ alg: 'RS256', kid: 'k1' });
    expect(claims).toMatchObject({ iss: SA, sub: oli, aud: sim.tokenUrl, scope: READONLY });
    expect(claims.exp! - claims.iat!).toBeGreaterThan(0);
    expect(claims.exp! - claims.iat!).toBeLessThanOrEqual(3600);
  });

  it("keeps a user's token until shortly before it lapses, then asks for a new one", async () => {
    const pia = user('pia');
    const first = await provider.listChanges(pia, undefined, WINDOW);
    expect(first.calls).toBe(2);
    sim.control.advanceClock(50 * 60_000);
    expect((await provider.listChanges(pia, first.cursor, WINDOW)).calls).toBe(1);
    // Google's token lives 3599 s; it is renewed five minutes before that.
    sim.control.advanceClock(6 * 60_000);
    expect((await provider.listChanges(pia, first.cursor, WINDOW)).calls).toBe(2);
  });
});

describe('groups', () => {
  it("resolves a group's active users, nested groups included, suspended ones left out", async () => {
    for (const name of ['kai', 'lea', 'max', 'ned']) user(name);
    sim.control.makeAdmin(ADMIN);
    sim.control.defineGroup('eng@acme.example', ['kai@acme.example', 'lea@acme.example', 'platform@acme.example']);
    sim.control.defineGroup('platform@acme.example', ['max@acme.example', 'ned@acme.example', 'kai@acme.example']);
    sim.control.suspendUser('max@acme.example');
    expect((await provider.resolveGroup('eng@acme.example')).sort()).toEqual([
      'kai@acme.example',
      'lea@acme.example',
      'ned@acme.example',
    ]);
  });

  it('refuses the source for an unknown group and without an admin to ask as', async () => {
    const unknown = await refusal(provider.resolveGroup('nobody@acme.example'));
    expect([(unknown as AccessRevokedError).scope, (unknown as AccessRevokedError).reason]).toEqual([
      'source',
      expect.stringContaining('404'),
    ]);
    const { adminEmail: _, ...noAdmin } = config;
    const error = await refusal(createGoogleProvider(noAdmin, keyJson(SA), options).resolveGroup('eng@acme.example'));
    expect((error as AccessRevokedError).scope).toBe('source');
  });
});

describe('bounds', () => {
  it('keeps at most itemsPerUser items, marks the listing truncated and still hands out the cursor', async () => {
    const kim = user('kim');
    const total = PROVIDER_LIMITS.itemsPerUser + 100;
    for (let i = 0; i < total; i++)
      sim.control.addEvent(kim, {
        summary: `slot ${i}`,
        timing: timed(`2026-04-${String(1 + (i % 28)).padStart(2, '0')}T09:00:00`),
      });
    const changes = await provider.listChanges(kim, undefined, WINDOW);
    expect(changes.items).toHaveLength(PROVIDER_LIMITS.itemsPerUser);
    // The token, then 2,100 items in pages of 250 and (every second one short) 125: eleven pages.
    expect(changes).toMatchObject({ truncated: true, calls: 12 });
    expect(changes.cursor).toEqual(expect.any(String));
  });

  it('gives up a page over responseBytes as unavailable', async () => {
    const liv = user('liv');
    const description = 'y'.repeat(Math.ceil(PROVIDER_LIMITS.responseBytes / PROVIDER_LIMITS.pageSize) + 1_000);
    for (let i = 0; i < PROVIDER_LIMITS.pageSize; i++)
      sim.control.addEvent(liv, { summary: 'big', description, timing: timed('2026-03-20T09:00:00') });
    expect(await refusal(provider.listChanges(liv, undefined, WINDOW))).toBeInstanceOf(ProviderUnavailableError);
  });

  it('stops a listing at pagesPerListing: a full one keeps what it read, cut and without a cursor; an incremental one lists the window in full instead', async () => {
    const mia = user('mia');
    let pages = 0;
    // The fault: a calendar API that answers every page with one more page token.
    const endless = createGoogleProvider(config, keyJson(SA), {
      ...options,
      fetch: async (input, init) => {
        if (!String(input).includes('/events?')) return fetch(input, init);
        pages++;
        return Response.json({ kind: 'calendar#events', items: [], nextPageToken: `page-${pages}` });
      },
    });
    expect(await endless.listChanges(mia, undefined, WINDOW)).toMatchObject({
      full: true,
      truncated: true,
      cursor: '',
    });
    expect(pages).toBe(PROVIDER_LIMITS.pagesPerListing);
    pages = 0;
    expect(await refusal(endless.listChanges(mia, 'a-sync-token', WINDOW))).toBeInstanceOf(CursorVoidError);
    expect(pages).toBe(PROVIDER_LIMITS.pagesPerListing);
  });
});
