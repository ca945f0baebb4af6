/**
 * The Microsoft 365 provider against the Graph simulator over real HTTP: the
 * client-credentials token (secret and certificate), full and incremental
 * calendarView/delta listings with exact items and removals, a weekly series
 * across the DST change, a decline, every refusal as the contract's error, a
 * nextLink to a foreign origin refused, group resolution, and the limits.
 * Faults the simulator has no switch for (a 5xx, an oversized page, a foreign
 * link) are injected by wrapping fetch.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createMicrosoftProvider,
  type MicrosoftSourceConfig,
} from '../../lambdas/core/calendar/company/microsoft/microsoft-provider';
import {
  AccessRevokedError,
  type CalendarProvider,
  CursorVoidError,
  DEFAULT_PROVIDER_ENDPOINTS,
  PROVIDER_LIMITS,
  type ProviderOptions,
  ProviderUnavailableError,
  ThrottledError,
} from '../../lambdas/core/calendar/company/provider-contract';
import type { EventFields } from '../../local/simulator/microsoft-graph/calendar-store';
import { MicrosoftGraphSimulator } from '../../local/simulator/microsoft-graph/simulator';
import { APP_CERTIFICATE, APP_PRIVATE_KEY, OTHER_CERTIFICATE, OTHER_PRIVATE_KEY } from '../fixtures/entra-certificates';

const TENANT = '3a7e2b10-0000-4000-8000-0000000f00d5';
const SECRET = 'correct-horse-battery-staple-secret';
const WINDOW = { from: '2027-03-01T00:00:00Z', to: '2027-06-01T00:00:00Z' };
const JOIN =
  'https://teams.microsoft.com/l/meetup-join/19%3ameeting_x%40thread.v2/0?context=%7b%22Tid%22%3a%22t%22%2c%22Oid%22%3a%22o%22%7d';

const person = (name: string) => ({
  id: `u-${name}`,
  userPrincipalName: `${name}@contoso.example`,
  displayName: name,
});
const ada = person('ada');
const bob = person('bob');
const eve = person('eve');
const pat = person('pat');
const big = person('big');
const few = person('few');
/** Asked only by the throttling test, so the mailbox's request window starts there. */
const tia = person('tia');

let sim: MicrosoftGraphSimulator;
let base: string;

function meeting(subject: string, start: string, end: string, extra: Partial<EventFields> = {}): EventFields {
  return {
    subject,
    start,
    end,
    timeZone: 'UTC',
    organizer: { address: ada.userPrincipalName, name: 'Ada' },
    attendees: [{ address: bob.userPrincipalName, name: 'Bob', response: 'none' }],
    joinUrl: JOIN,
    ...extra,
  };
}

function config(clientId: string, extra: Partial<MicrosoftSourceConfig> = {}): MicrosoftSourceConfig {
  return { provider: 'microsoft', tenantId: TENANT, clientId, credentialsSecret: 'calendars/msft', ...extra };
}

function options(fetchFn?: typeof fetch): ProviderOptions {
  return {
    endpoints: { ...DEFAULT_PROVIDER_ENDPOINTS, microsoftGraph: `${base}/v1.0`, microsoftLogin: base },
    now: () => sim.directory.now(),
    ...(fetchFn === undefined ? {} : { fetch: fetchFn }),
  };
}

function provider(clientId = 'app', credentials = SECRET, fetchFn?: typeof fetch): CalendarProvider {
  return createMicrosoftProvider(config(clientId), credentials, options(fetchFn));
}

async function refusal(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a refusal');
}

/** A fetch that rewrites each Graph JSON answer with `edit`, and records every URL asked for. */
function editingFetch(edit: (json: Record<string, unknown>) => Record<string, unknown>, asked: string[] = []) {
  return async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = String(input);
    asked.push(url);
    const response = await fetch(input, init);
    if (!url.includes('/v1.0/') || response.status !== 200) return response;
    const json = edit((await response.json()) as Record<string, unknown>);
    return new Response(JSON.stringify(json), { status: 200, headers: { 'content-type': 'application/json' } });
  };
}

const count = (n: number, each: (i: number) => void) => {
  for (let i = 0; i < n; i += 1) each(i);
};
const at = (day: number, minute: number) => {
  const when = new Date(Date.parse('2027-03-02T08:00:00Z') + day * 86_400_000 + minute * 60_000);
  return when.toISOString().slice(0, 19);
};

beforeAll(async () => {
  sim = new MicrosoftGraphSimulator({ now: Date.parse('2027-03-01T06:00:00Z') });
  base = await sim.start();
  sim.addApp(TENANT, { clientId: 'app', secret: SECRET, roles: ['Calendars.Read', 'GroupMember.Read.All'] });
  sim.addApp(TENANT, { clientId: 'app-no-calendars', secret: SECRET, roles: ['User.Read.All'] });
  sim.addApp(TENANT, { clientId: 'app-policy', secret: SECRET, roles: ['Calendars.Read'] });
  sim.setAccessPolicy(TENANT, 'app-policy', [ada.id]);
  sim.addApp(TENANT, { clientId: 'app-certificate', roles: ['Calendars.Read'] });
  sim.addCertificate(TENANT, 'app-certificate', APP_CERTIFICATE);
  for (const user of [ada, bob, eve, pat, big, few, tia]) sim.addUser(TENANT, user);
  count(260, (i) => sim.addEvent(pat.id, meeting(`pat ${i}`, at(i % 80, 30 + (i % 7)), at(i % 80, 60))));
  count(PROVIDER_LIMITS.itemsPerUser + 10, (i) =>
    sim.addEvent(big.id, meeting(`big ${i}`, at(i % 85, 0), at(i % 85, 30))),
  );
  count(PROVIDER_LIMITS.pagesPerListing + 1, (i) => sim.addEvent(few.id, meeting(`few ${i}`, at(i, 0), at(i, 30))));
  sim.addEvent(eve.id, meeting('eve one', '2027-03-10T10:00:00', '2027-03-10T10:30:00'));
});

afterAll(async () => {
  await sim.stop();
});

describe('full listing', () => {
  it('follows nextLinks to the deltaLink: exact items across pages, calls counted (token included)', async () => {
    const changes = await provider().listChanges(pat.userPrincipalName, undefined, WINDOW);
    expect(changes).toMatchObject({ full: true, removed: [], truncated: false, calls: 3 });
    expect(changes.items).toHaveLength(260);
    expect(new Set(changes.items.map((item) => item.occurrence.title)).size).toBe(260);
    expect(new URL(changes.cursor).searchParams.has('$deltatoken')).toBe(true);
  });
});

describe('incremental listing', () => {
  it('returns exactly a move, a cancel (removed) and a new event; a series across DST keeps its slots', async () => {
    const singles = [0, 1, 2].map((n) => sim.addEvent(ada.id, meeting(`single ${n}`, at(n, 0), at(n, 30))));
    const series = sim.addWeeklySeries(
      ada.id,
      meeting('weekly sync', '2027-03-15T09:00:00', '2027-03-15T09:30:00', { timeZone: 'W. Europe Standard Time' }),
      5,
    );
    // After the change to summer time on 28 March: one occurrence moved to 10:00 local, one cancelled.
    sim.changeOccurrence(ada.id, series.id, '2027-03-29', { start: '2027-03-29T10:00:00', end: '2027-03-29T10:30:00' });
    sim.cancelOccurrence(ada.id, series.id, '2027-04-05');
    const ms = provider();
    const first = await ms.listChanges(ada.userPrincipalName, undefined, WINDOW);
    expect(first.items).toHaveLength(7);
    const weekly = first.items.filter((item) => item.occurrence.series === series.id).map((item) => item.occurrence);
    expect(weekly.map((o) => [o.originalStart, o.start])).toEqual([
      ['2027-03-15T08:00:00.000Z', '2027-03-15T08:00:00.000Z'],
      ['2027-03-22T08:00:00.000Z', '2027-03-22T08:00:00.000Z'],
      ['2027-03-29T07:00:00.000Z', '2027-03-29T08:00:00.000Z'],
      ['2027-04-12T07:00:00.000Z', '2027-04-12T07:00:00.000Z'],
    ]);
    expect(first.items.find((item) => item.id === singles[0]!.id)!.occurrence.links.conference).toEqual([JOIN]);

    const moved = sim.moveEvent(ada.id, singles[0]!.id, '2027-03-20T14:00:00', '2027-03-20T14:30:00');
    sim.cancelEvent(ada.id, singles[1]!.id);
    const added = sim.addEvent(ada.id, meeting('new review', '2027-03-25T16:00:00', '2027-03-25T17:00:00'));
    const next = await ms.listChanges(ada.userPrincipalName, first.cursor, WINDOW);
    expect(next).toMatchObject({ full: false, removed: [singles[1]!.id], truncated: false, calls: 1 });
    expect(next.items.map((item) => [item.id, item.occurrence.start, item.occurrence.title])).toEqual([
      [moved.id, '2027-03-20T14:00:00.000Z', 'single 0'],
      [added.id, '2027-03-25T16:00:00.000Z', 'new review'],
    ]);
    const quiet = await ms.listChanges(ada.userPrincipalName, next.cursor, WINDOW);
    expect(quiet).toMatchObject({ items: [], removed: [] });
  });

  it("shows a decline in the invitee's copy: the invitee's attendee entry DECLINED", async () => {
    const original = sim.addEvent(ada.id, meeting('planning', '2027-04-20T13:00:00', '2027-04-20T14:00:00'));
    const copy = sim.addInviteeCopy(bob.id, original);
    const ms = provider();
    const first = await ms.listChanges(bob.userPrincipalName, undefined, WINDOW);
    expect(first.items.map((item) => item.occurrence.uid)).toEqual([original.iCalUId]);
    sim.respond(bob.id, copy.id, 'declined', { userId: ada.id, eventId: original.id });
    const next = await ms.listChanges(bob.userPrincipalName, first.cursor, WINDOW);
    expect(next.items).toHaveLength(1);
    expect(next.items[0]!.occurrence.attendees).toEqual([{ email: bob.userPrincipalName, partstat: 'DECLINED' }]);
    sim.markCancelled(bob.id, copy.id);
    const cancelled = await ms.listChanges(bob.userPrincipalName, next.cursor, WINDOW);
    expect(cancelled.items.map((item) => [item.id, item.occurrence.cancelled])).toEqual([[copy.id, true]]);
  });

  it('throws CursorVoidError when Graph voided the delta state (410), and a full listing recovers', async () => {
    const ms = provider();
    const first = await ms.listChanges(eve.id, undefined, WINDOW);
    sim.voidDeltaTokens(eve.id);
    const error = await refusal(ms.listChanges(eve.id, first.cursor, WINDOW));
    expect(error).toBeInstanceOf(CursorVoidError);
    expect(error.message).toMatch(/syncStateNotFound/);
    expect((await ms.listChanges(eve.id, undefined, WINDOW)).items).toHaveLength(1);
  });
});

describe('refusals', () => {
  it("names Entra's AADSTS code for a wrong secret, an unknown app and an unknown tenant, never the secret", async () => {
    const wrong = await refusal(provider('app', 'not-the-secret-at-all').listChanges(ada.id, undefined, WINDOW));
    expect(wrong).toBeInstanceOf(AccessRevokedError);
    expect(wrong).toMatchObject({ scope: 'source', reason: expect.stringMatching(/AADSTS7000215/) });
    expect(wrong.message).not.toContain('not-the-secret-at-all');
    const unknownApp = await refusal(provider('never-registered').listChanges(ada.id, undefined, WINDOW));
    expect(unknownApp).toMatchObject({ scope: 'source', reason: expect.stringMatching(/AADSTS700016/) });
    const otherTenant = createMicrosoftProvider(config('app', { tenantId: 'no-such-tenant' }), SECRET, options());
    expect(await refusal(otherTenant.listChanges(ada.id, undefined, WINDOW))).toMatchObject({
      scope: 'source',
      reason: expect.stringMatching(/AADSTS90002/),
    });
  });

  it("decides 403 ErrorAccessDenied by Graph's words: outside the access policy is the user, no Calendars.Read the source", async () => {
    const policy = provider('app-policy');
    expect((await policy.listChanges(ada.userPrincipalName, undefined, WINDOW)).full).toBe(true);
    const outside = await refusal(policy.listChanges(bob.userPrincipalName, undefined, WINDOW));
    expect(outside).toBeInstanceOf(AccessRevokedError);
    expect(outside).toMatchObject({ scope: 'user', reason: expect.stringMatching(/access policy.*ErrorAccessDenied/) });
    const noPermission = await refusal(provider('app-no-calendars').listChanges(ada.id, undefined, WINDOW));
    expect(noPermission).toMatchObject({ scope: 'source', reason: expect.stringMatching(/Calendars\.Read/) });
  });

  it('marks an unknown mailbox (404 ErrorInvalidUser) as that user revoked', async () => {
    const error = await refusal(provider().listChanges('gone@contoso.example', undefined, WINDOW));
    expect(error).toMatchObject({
      name: 'AccessRevokedError',
      scope: 'user',
      reason: expect.stringMatching(/ErrorInvalidUser/),
    });
  });

  it('throws ThrottledError with the Retry-After of a 429', async () => {
    sim.setThrottle({ requests: 1, windowSeconds: 90 });
    try {
      const ms = provider();
      await ms.listChanges(tia.id, undefined, WINDOW);
      const error = await refusal(ms.listChanges(tia.id, undefined, WINDOW));
      expect(error).toBeInstanceOf(ThrottledError);
      expect((error as ThrottledError).retryAfterMs).toBe(90_000);
    } finally {
      sim.setThrottle({ requests: 10_000, windowSeconds: 600 });
      sim.advanceClock(90_000);
    }
  });

  it('asks for a fresh token once after a 401, and calls the grant revoked after a second one', async () => {
    const ms = provider();
    const first = await ms.listChanges(eve.id, undefined, WINDOW);
    sim.directory.tokens.clear(); // the token is no longer honoured
    const next = await ms.listChanges(eve.id, first.cursor, WINDOW);
    expect(next.calls).toBe(3); // the refused GET, a new token, the GET again
    const always401 = async (input: string | URL | Request, init?: RequestInit) =>
      String(input).includes('/v1.0/')
        ? new Response(JSON.stringify({ error: { code: 'InvalidAuthenticationToken', message: 'no' } }), {
            status: 401,
          })
        : fetch(input, init);
    const error = await refusal(provider('app', SECRET, always401).listChanges(eve.id, undefined, WINDOW));
    expect(error).toMatchObject({
      name: 'AccessRevokedError',
      scope: 'source',
      reason: expect.stringMatching(/InvalidAuthenticationToken/),
    });
  });

  it('throws ProviderUnavailableError for a 5xx, a 503 without Retry-After, and a network failure', async () => {
    const failing =
      (status: number, headers: Record<string, string> = {}) =>
      async (input: string | URL | Request, init?: RequestInit) =>
        String(input).includes('/v1.0/') ? new Response('{}', { status, headers }) : fetch(input, init);
    expect(await refusal(provider('app', SECRET, failing(502)).listChanges(eve.id, undefined, WINDOW))).toBeInstanceOf(
      ProviderUnavailableError,
    );
    expect(await refusal(provider('app', SECRET, failing(503)).listChanges(eve.id, undefined, WINDOW))).toBeInstanceOf(
      ProviderUnavailableError,
    );
    const throttled = await refusal(
      provider('app', SECRET, failing(503, { 'retry-after': '7' })).listChanges(eve.id, undefined, WINDOW),
    );
    expect(throttled).toMatchObject({ name: 'ThrottledError', retryAfterMs: 7_000 });
    const down = createMicrosoftProvider(config('app'), SECRET, {
      ...options(),
      endpoints: {
        ...DEFAULT_PROVIDER_ENDPOINTS,
        microsoftGraph: 'http://127.0.0.1:9/v1.0',
        microsoftLogin: 'http://127.0.0.1:9',
      },
    });
    expect(await refusal(down.listChanges(eve.id, undefined, WINDOW))).toBeInstanceOf(ProviderUnavailableError);
  });

  it('refuses to follow a nextLink or deltaLink on another origin, and to use a kept cursor from one', async () => {
    const asked: string[] = [];
    const foreign = editingFetch((json) => {
      for (const key of ['@odata.nextLink', '@odata.deltaLink'])
        if (typeof json[key] === 'string') json[key] = (json[key] as string).replace(base, 'http://attacker.example');
      return json;
    }, asked);
    const error = await refusal(provider('app', SECRET, foreign).listChanges(pat.id, undefined, WINDOW));
    expect(error).toBeInstanceOf(ProviderUnavailableError);
    expect(error.message).toMatch(/nextLink points at http:\/\/attacker\.example.*not followed/);
    expect(asked.filter((url) => !url.startsWith(base))).toEqual([]);
    const deltaError = await refusal(provider('app', SECRET, foreign).listChanges(eve.id, undefined, WINDOW));
    expect(deltaError.message).toMatch(/deltaLink points at http:\/\/attacker\.example/);
    const kept = await refusal(
      provider().listChanges(
        eve.id,
        'http://attacker.example/v1.0/users/u-eve/calendarView/delta?$deltatoken=x',
        WINDOW,
      ),
    );
    expect(kept).toBeInstanceOf(CursorVoidError);
  });

  it('refuses a malformed credentials secret as the source, without echoing it', async () => {
    const error = await refusal(
      provider('app', '{"private_key": "hunter2-not-a-pem", "certificate": "nope"}').listChanges(
        ada.id,
        undefined,
        WINDOW,
      ),
    );
    expect(error).toMatchObject({ name: 'AccessRevokedError', scope: 'source' });
    expect(error.message).not.toContain('hunter2');
  });
});

describe('certificate credentials', () => {
  it('gets a token with a client assertion signed by the registered certificate, and lists', async () => {
    const credentials = JSON.stringify({ private_key: APP_PRIVATE_KEY, certificate: APP_CERTIFICATE });
    const changes = await provider('app-certificate', credentials).listChanges(eve.id, undefined, WINDOW);
    expect(changes.items).toHaveLength(1);
  });

  it('names AADSTS700027 for a certificate the app registration does not hold', async () => {
    const credentials = JSON.stringify({ private_key: OTHER_PRIVATE_KEY, certificate: OTHER_CERTIFICATE });
    const error = await refusal(provider('app-certificate', credentials).listChanges(eve.id, undefined, WINDOW));
    expect(error).toMatchObject({ scope: 'source', reason: expect.stringMatching(/AADSTS700027/) });
    expect(error.message).not.toContain('PRIVATE KEY');
  });

  it('refuses a private key that does not belong to the certificate before asking Entra', async () => {
    const credentials = JSON.stringify({ private_key: OTHER_PRIVATE_KEY, certificate: APP_CERTIFICATE });
    const error = await refusal(provider('app-certificate', credentials).listChanges(eve.id, undefined, WINDOW));
    expect(error).toMatchObject({ scope: 'source', reason: expect.stringMatching(/does not belong/) });
  });

  it('takes the client secret as JSON too', async () => {
    const changes = await provider('app', JSON.stringify({ client_secret: SECRET })).listChanges(
      eve.id,
      undefined,
      WINDOW,
    );
    expect(changes.items).toHaveLength(1);
  });
});

describe('accessToken', () => {
  it("answers the app's token, cached until shortly before it expires", async () => {
    const asked: string[] = [];
    const ms = provider(
      'app',
      SECRET,
      editingFetch((json) => json, asked),
    );
    const token = await ms.accessToken(ada.userPrincipalName);
    expect(await ms.accessToken(bob.userPrincipalName)).toBe(token);
    expect(asked).toHaveLength(1);
    sim.advanceClock(3599_000 - 4 * 60_000); // within five minutes of its expiry
    expect(await ms.accessToken(ada.userPrincipalName)).not.toBe(token);
    expect(asked).toHaveLength(2);
  });
});

describe('national clouds', () => {
  it("asks Entra for the configured Graph endpoint's own resource", async () => {
    const scopes: string[] = [];
    const recording = async (input: string | URL | Request, init?: RequestInit) => {
      if (String(input).endsWith('/oauth2/v2.0/token'))
        scopes.push(new URLSearchParams(String(init?.body)).get('scope') ?? '');
      return fetch(input, init);
    };
    const usGov = createMicrosoftProvider(config('app'), SECRET, {
      ...options(recording),
      endpoints: {
        ...DEFAULT_PROVIDER_ENDPOINTS,
        microsoftGraph: 'https://graph.microsoft.us/v1.0',
        microsoftLogin: base,
      },
    });
    await usGov.accessToken(ada.userPrincipalName);
    await provider('app', SECRET, recording).accessToken(ada.userPrincipalName);
    expect(scopes).toEqual(['https://graph.microsoft.us/.default', `${base}/.default`]);
  });
});

describe('resolveGroup', () => {
  beforeAll(() => {
    sim.addGroup(TENANT, { id: 'g-team', displayName: 'Team', members: [eve.id, bob.id] });
    sim.addGroup(TENANT, { id: 'g-all', displayName: 'All', members: [ada.id, 'g-team', pat.id] });
    sim.disableUser(TENANT, pat.id);
  });

  it('flattens nested groups and leaves out a disabled account', async () => {
    expect(await provider().resolveGroup('g-all')).toEqual([
      ada.userPrincipalName,
      eve.userPrincipalName,
      bob.userPrincipalName,
    ]);
  });

  it('refuses without GroupMember.Read.All, and for an unknown group, as the source', async () => {
    const noRole = await refusal(provider('app-policy').resolveGroup('g-all'));
    expect(noRole).toMatchObject({
      scope: 'source',
      reason: expect.stringMatching(/GroupMember\.Read\.All.*Authorization_RequestDenied/),
    });
    const unknown = await refusal(provider().resolveGroup('g-none'));
    expect(unknown).toMatchObject({ scope: 'source', reason: expect.stringMatching(/Request_ResourceNotFound/) });
  });
});

describe('limits', () => {
  it(`keeps ${PROVIDER_LIMITS.itemsPerUser} items, marks the listing truncated, and its cursor still works`, async () => {
    const ms = provider();
    const changes = await ms.listChanges(big.id, undefined, WINDOW);
    expect(changes.items).toHaveLength(PROVIDER_LIMITS.itemsPerUser);
    expect(changes).toMatchObject({ truncated: true, full: true });
    expect(await ms.listChanges(big.id, changes.cursor, WINDOW)).toMatchObject({ items: [], truncated: false });
  });

  it(`stops after ${PROVIDER_LIMITS.pagesPerListing} pages when Graph sends small pages`, async () => {
    const onePerPage = async (input: string | URL | Request, init?: RequestInit) => {
      const headers = new Headers(init?.headers);
      if (headers.has('prefer')) headers.set('prefer', 'outlook.timezone="UTC", odata.maxpagesize=1');
      return fetch(input, { ...init, headers });
    };
    const error = await refusal(provider('app', SECRET, onePerPage).listChanges(few.id, undefined, WINDOW));
    expect(error).toBeInstanceOf(ProviderUnavailableError);
    expect(error.message).toMatch(/more than 50 pages/);
  });

  it('stops a listing whose pages keep it past its deadline', async () => {
    // Each page takes 30 s of the provider's clock: the fifth request would start past two minutes.
    const slow = async (input: string | URL | Request, init?: RequestInit) => {
      const headers = new Headers(init?.headers);
      if (headers.has('prefer')) {
        headers.set('prefer', 'outlook.timezone="UTC", odata.maxpagesize=1');
        sim.advanceClock(30_000);
      }
      return fetch(input, { ...init, headers });
    };
    const error = await refusal(provider('app', SECRET, slow).listChanges(few.id, undefined, WINDOW));
    expect(error).toBeInstanceOf(ProviderUnavailableError);
    expect(error.message).toMatch(/took longer than 120 s/);
  });

  it(`refuses a page over ${PROVIDER_LIMITS.responseBytes} bytes`, async () => {
    const huge = editingFetch((json) => ({ ...json, padding: 'x'.repeat(PROVIDER_LIMITS.responseBytes) }));
    const error = await refusal(provider('app', SECRET, huge).listChanges(eve.id, undefined, WINDOW));
    expect(error).toBeInstanceOf(ProviderUnavailableError);
    expect(error.message).toMatch(/byte limit/);
  });
});

describe('series: occurrences listed as stubs', () => {
  /** A fetch that records the number of items of each calendar view page, and every URL asked for. */
  function pageRecorder() {
    const pages: number[] = [];
    const asked: string[] = [];
    const recording = editingFetch((json) => {
      if (Array.isArray(json.value) && '@odata.context' in json) pages.push(json.value.length);
      return json;
    }, asked);
    return { pages, asked, recording };
  }
  const masterGets = (asked: string[]) => asked.filter((url) => /\/users\/[^/]+\/events\/[^/?]+$/.test(url));

  it("fills each plain occurrence from its master (title, link, organizer, attendees, the series' iCalUId); the master is no item; an exception keeps its own fields", async () => {
    const ser = person('ser');
    sim.addUser(TENANT, ser);
    const series = sim.addWeeklySeries(
      ser.id,
      meeting('series review', '2027-03-08T09:00:00', '2027-03-08T09:30:00'),
      3,
    );
    sim.changeOccurrence(ser.id, series.id, '2027-03-15', {
      subject: 'series review (moved)',
      start: '2027-03-15T11:00:00',
      end: '2027-03-15T11:30:00',
    });
    const { asked, recording } = pageRecorder();
    const changes = await provider('app', SECRET, recording).listChanges(ser.id, undefined, WINDOW);
    expect(changes.items.map((item) => item.id)).not.toContain(series.id);
    expect(
      changes.items.map(({ occurrence: o }) => [
        o.title,
        o.start,
        o.originalStart,
        o.uid,
        o.series,
        o.links.conference,
      ]),
    ).toEqual([
      ['series review', '2027-03-08T09:00:00.000Z', '2027-03-08T09:00:00.000Z', series.iCalUId, series.id, [JOIN]],
      [
        'series review (moved)',
        '2027-03-15T11:00:00.000Z',
        '2027-03-15T09:00:00.000Z',
        series.iCalUId,
        series.id,
        [JOIN],
      ],
      ['series review', '2027-03-22T09:00:00.000Z', '2027-03-22T09:00:00.000Z', series.iCalUId, series.id, [JOIN]],
    ]);
    // The mailbox's own series (the master's isOrganizer): the organizer is the mailbox as the source names it.
    expect(changes.items[0]!.occurrence).toMatchObject({
      organizer: ser.id,
      attendees: [{ email: bob.userPrincipalName, partstat: 'NEEDS-ACTION' }],
    });
    // The master was in the round: nothing fetched.
    expect(masterGets(asked)).toEqual([]);
  });

  it(`fetches at most ${PROVIDER_LIMITS.seriesMastersPerListing} masters a listing: 1,000 series begun before the window cost ${PROVIDER_LIMITS.seriesMastersPerListing} GETs, the soonest series filled, the rest named as a limit`, async () => {
    const many = person('many');
    sim.addUser(TENANT, many);
    // Each series began a week before the window: its master is not listed, its second occurrence is in the window.
    count(1_000, (i) => {
      const first = new Date(Date.parse('2027-02-22T00:00:00Z') + i * 10 * 60_000);
      const end = new Date(first.getTime() + 5 * 60_000);
      sim.addWeeklySeries(
        many.id,
        meeting(`series ${i}`, first.toISOString().slice(0, 19), end.toISOString().slice(0, 19)),
        2,
      );
    });
    const { asked, recording } = pageRecorder();
    const changes = await provider('app', SECRET, recording).listChanges(many.id, undefined, WINDOW);
    expect(masterGets(asked)).toHaveLength(PROVIDER_LIMITS.seriesMastersPerListing);
    expect(new Set(masterGets(asked)).size).toBe(PROVIDER_LIMITS.seriesMastersPerListing);
    expect(changes.items.map((item) => item.occurrence.title)).toEqual(
      Array.from({ length: PROVIDER_LIMITS.seriesMastersPerListing }, (_, i) => `series ${i}`),
    );
    expect(changes.limits).toEqual([
      expect.objectContaining({ limit: 'series-masters-per-listing', reason: expect.stringMatching(/800 series/) }),
    ]);
    expect(changes).toMatchObject({ removed: [], truncated: false });
  });

  it('answers a 404 for a master as the series gone: its occurrences removed with a reason, the listing goes on', async () => {
    const gon = person('gon');
    sim.addUser(TENANT, gon);
    const series = sim.addWeeklySeries(gon.id, meeting('gone series', '2027-02-22T09:00:00', '2027-02-22T09:30:00'), 3);
    sim.addEvent(gon.id, meeting('one-off', '2027-03-10T10:00:00', '2027-03-10T10:30:00'));
    const stubIds: string[] = [];
    // The series is deleted between the round and the GET of its master.
    const deleting = editingFetch((json) => {
      for (const item of (json.value as Array<{ id: string; type?: string }> | undefined) ?? [])
        if (item.type === 'occurrence') stubIds.push(item.id);
      if (Array.isArray(json.value)) sim.store.calendar(gon.id).events.delete(series.id);
      return json;
    });
    const changes = await provider('app', SECRET, deleting).listChanges(gon.id, undefined, WINDOW);
    expect(changes.items.map((item) => item.occurrence.title)).toEqual(['one-off']);
    expect(changes.removed.sort()).toEqual(stubIds.sort());
    expect(stubIds).toHaveLength(2);
    expect(changes.problems).toEqual([expect.stringMatching(/^2 instance\(s\) of 1 series Graph no longer holds/)]);
  });

  it('reads every page however short: 600 events in pages of at most 250, every second one short, none lost', async () => {
    const pag = person('pag');
    sim.addUser(TENANT, pag);
    count(600, (i) => sim.addEvent(pag.id, meeting(`pag ${i}`, at(i % 80, i % 30), at(i % 80, 40))));
    const { pages, recording } = pageRecorder();
    const changes = await provider('app', SECRET, recording).listChanges(pag.id, undefined, WINDOW);
    expect(pages).toEqual([250, 125, 225]);
    expect(new Set(changes.items.map((item) => item.occurrence.title)).size).toBe(600);
    expect(changes).toMatchObject({ truncated: false, calls: 4 });
  });
});
