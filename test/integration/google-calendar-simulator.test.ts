/**
 * The Google Calendar simulator refuses what Google refuses (one test per refusal of
 * the token endpoint and of events.list) and serves full and incremental sync as
 * Google's sync guide describes: paging by maxResults with the sync token on the last
 * page only, an incremental list holding exactly what changed (cancelled events
 * included), and a weekly series expanded across the Europe/Berlin DST change.
 */
import { generateKeyPairSync, type KeyObject, sign } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventResource } from '../../local/simulator/google-calendar/event-instances';
import { GoogleCalendarSimulator } from '../../local/simulator/google-calendar/server';
import { JWT_BEARER_GRANT } from '../../local/simulator/google-calendar/token-endpoint';

const READONLY = 'https://www.googleapis.com/auth/calendar.readonly';
const EVENTS_READONLY = 'https://www.googleapis.com/auth/calendar.events.readonly';
const SA = 'pipeline@acme-project.iam.gserviceaccount.com';
const SA_CLIENT_ID = '104200000000000000001';
const NARROW_SA = 'narrow@acme-project.iam.gserviceaccount.com';
const NARROW_CLIENT_ID = '104200000000000000002';
const ADA = 'ada@acme.example';
const BOB = 'bob@acme.example';
const CY = 'cy@acme.example';
const DEE = 'dee@acme.example';
const BERLIN = 'Europe/Berlin';
const HOUR = 3_600_000;

const sim = new GoogleCalendarSimulator(Date.parse('2026-03-10T08:00:00Z'));
const keys = generateKeyPairSync('rsa', { modulusLength: 2048 });
const strangerKeys = generateKeyPairSync('rsa', { modulusLength: 2048 });

interface ListBody {
  items: EventResource[];
  nextPageToken?: string;
  nextSyncToken?: string;
}

function assertion(claims: Record<string, unknown>, key: KeyObject = keys.privateKey): string {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const signed = `${part({ alg: 'RS256', typ: 'JWT' })}.${part(claims)}`;
  return `${signed}.${sign('sha256', Buffer.from(signed), key).toString('base64url')}`;
}

function claimsFor(sub: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const iat = Math.floor(sim.clock.now() / 1000);
  return { iss: SA, aud: sim.tokenUrl, scope: READONLY, iat, exp: iat + 3600, sub, ...overrides };
}

async function requestToken(jwt: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(sim.tokenUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: JWT_BEARER_GRANT, assertion: jwt }).toString(),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

async function accessTokenFor(user: string): Promise<string> {
  const { status, body } = await requestToken(assertion(claimsFor(user)));
  expect(status).toBe(200);
  return body.access_token as string;
}

async function listEvents(
  token: string | undefined,
  params: Record<string, string>,
  calendarId = 'primary',
): Promise<{
  status: number;
  body: ListBody & { error?: { code: number; status: string; errors: { reason: string; location?: string }[] } };
  headers: Headers;
}> {
  const response = await fetch(
    `${sim.apiBase}/calendars/${encodeURIComponent(calendarId)}/events?${new URLSearchParams(params)}`,
    token === undefined ? {} : { headers: { authorization: `Bearer ${token}` } },
  );
  return { status: response.status, body: (await response.json()) as never, headers: response.headers };
}

function timed(startLocal: string, durationMinutes = 30) {
  return { kind: 'timed' as const, startLocal, timeZone: BERLIN, durationMinutes };
}

beforeAll(async () => {
  await sim.start();
  for (const user of [ADA, BOB, CY, DEE]) sim.control.addUser(user);
  const publicKeyPem = keys.publicKey.export({ type: 'spki', format: 'pem' }).toString();
  sim.control.registerServiceAccount({ clientEmail: SA, clientId: SA_CLIENT_ID, publicKeyPem });
  sim.control.registerServiceAccount({ clientEmail: NARROW_SA, clientId: NARROW_CLIENT_ID, publicKeyPem });
  sim.control.grantDelegation(SA_CLIENT_ID, [READONLY, EVENTS_READONLY]);
  sim.control.grantDelegation(NARROW_CLIENT_ID, [EVENTS_READONLY]);
});
afterAll(() => sim.stop());

describe('token endpoint refusals', () => {
  it('answers a valid assertion with a one-hour Bearer token', async () => {
    const { status, body } = await requestToken(assertion(claimsFor(ADA)));
    expect(status).toBe(200);
    expect(body).toMatchObject({ expires_in: 3599, token_type: 'Bearer' });
    expect(typeof body.access_token).toBe('string');
  });

  it('refuses an assertion signed by another key: 400 invalid_grant', async () => {
    const { status, body } = await requestToken(assertion(claimsFor(ADA), strangerKeys.privateKey));
    expect(status).toBe(400);
    expect(body.error).toBe('invalid_grant');
  });

  it('refuses a wrong audience: 400 invalid_grant', async () => {
    const { status, body } = await requestToken(
      assertion(claimsFor(ADA, { aud: 'https://oauth2.googleapis.com/token' })),
    );
    expect(status).toBe(400);
    expect(body.error).toBe('invalid_grant');
  });

  it('refuses an expired assertion and one living over an hour: 400 invalid_grant', async () => {
    const old = claimsFor(ADA);
    sim.control.advanceClock(2 * HOUR);
    const expired = await requestToken(assertion(old));
    expect([expired.status, expired.body.error]).toEqual([400, 'invalid_grant']);
    const iat = Math.floor(sim.clock.now() / 1000);
    const tooLong = await requestToken(assertion(claimsFor(ADA, { iat, exp: iat + 7200 })));
    expect([tooLong.status, tooLong.body.error]).toEqual([400, 'invalid_grant']);
  });

  it('refuses a scope the delegation grant does not cover: 401 unauthorized_client', async () => {
    const { status, body } = await requestToken(assertion(claimsFor(ADA, { iss: NARROW_SA, scope: READONLY })));
    expect(status).toBe(401);
    expect(body.error).toBe('unauthorized_client');
    const covered = await requestToken(assertion(claimsFor(ADA, { iss: NARROW_SA, scope: EVENTS_READONLY })));
    expect(covered.status).toBe(200);
  });

  it('refuses a client whose delegation grant was revoked: 401 unauthorized_client', async () => {
    sim.control.revokeDelegation(NARROW_CLIENT_ID);
    const { status, body } = await requestToken(assertion(claimsFor(ADA, { iss: NARROW_SA, scope: EVENTS_READONLY })));
    expect(status).toBe(401);
    expect(body.error).toBe('unauthorized_client');
  });

  it('refuses a sub outside the tenant: 400 invalid_grant', async () => {
    const { status, body } = await requestToken(assertion(claimsFor('eve@elsewhere.example')));
    expect(status).toBe(400);
    expect(body.error).toBe('invalid_grant');
  });
});

describe('events.list refusals', () => {
  it('answers 401 UNAUTHENTICATED without a token, with an unknown one and with an expired one', async () => {
    const token = await accessTokenFor(ADA);
    expect((await listEvents(token, {})).status).toBe(200);
    for (const bad of [undefined, 'ya29.not-issued']) {
      const { status, body } = await listEvents(bad, {});
      expect(status).toBe(401);
      expect(body.error).toMatchObject({ code: 401, status: 'UNAUTHENTICATED', errors: [{ reason: 'authError' }] });
    }
    sim.control.advanceClock(HOUR);
    const expired = await listEvents(token, {});
    expect(expired.status).toBe(401);
    expect(expired.body.error?.status).toBe('UNAUTHENTICATED');
  });

  it("answers 403 for another user's calendar unless it is shared", async () => {
    const token = await accessTokenFor(CY);
    const refused = await listEvents(token, {}, DEE);
    expect(refused.status).toBe(403);
    expect(refused.body.error?.status).toBe('PERMISSION_DENIED');
    sim.control.shareCalendar(DEE, CY);
    expect((await listEvents(token, {}, DEE)).status).toBe(200);
  });

  it('answers 400 for a syncToken combined with timeMin', async () => {
    const token = await accessTokenFor(DEE);
    const full = await listEvents(token, {});
    const { status, body } = await listEvents(token, {
      syncToken: full.body.nextSyncToken!,
      timeMin: '2026-03-01T00:00:00Z',
    });
    expect(status).toBe(400);
    expect(body.error?.errors[0]).toMatchObject({ reason: 'invalid', location: 'timeMin' });
  });

  it('answers 400 for a pageToken issued by another query', async () => {
    sim.control.addEvent(DEE, { summary: 'one', timing: timed('2026-03-20T09:00:00') });
    sim.control.addEvent(DEE, { summary: 'two', timing: timed('2026-03-21T09:00:00') });
    const token = await accessTokenFor(DEE);
    const first = await listEvents(token, { maxResults: '1', singleEvents: 'true' });
    expect(first.body.nextPageToken).toBeDefined();
    const same = await listEvents(token, {
      maxResults: '1',
      singleEvents: 'true',
      pageToken: first.body.nextPageToken!,
    });
    expect(same.status).toBe(200);
    const other = await listEvents(token, {
      maxResults: '1',
      showDeleted: 'true',
      pageToken: first.body.nextPageToken!,
    });
    expect(other.status).toBe(400);
    expect(other.body.error?.errors[0]).toMatchObject({ reason: 'invalid', location: 'pageToken' });
  });

  it('answers 410 fullSyncRequired for a voided sync token', async () => {
    const token = await accessTokenFor(DEE);
    const full = await listEvents(token, { singleEvents: 'true' });
    expect((await listEvents(token, { singleEvents: 'true', syncToken: full.body.nextSyncToken! })).status).toBe(200);
    sim.control.voidSyncTokens(DEE);
    const { status, body } = await listEvents(token, { singleEvents: 'true', syncToken: full.body.nextSyncToken! });
    expect(status).toBe(410);
    expect(body.error?.errors[0]?.reason).toBe('fullSyncRequired');
  });

  it('throttles a user over quota with 403 rateLimitExceeded, 403 userRateLimitExceeded or 429', async () => {
    const token = await accessTokenFor(CY);
    const cases = [
      ['403 rateLimitExceeded', 403, 'rateLimitExceeded'],
      ['403 userRateLimitExceeded', 403, 'userRateLimitExceeded'],
      ['429', 429, 'rateLimitExceeded'],
    ] as const;
    for (const [refusal, code, reason] of cases) {
      sim.quotas.limits.set(CY, {
        requests: 2,
        windowMs: 60_000,
        refusal,
        ...(code === 429 ? { retryAfterSeconds: 7 } : {}),
      });
      sim.control.advanceClock(61_000);
      expect((await listEvents(token, {})).status).toBe(200);
      expect((await listEvents(token, {})).status).toBe(200);
      const { status, body, headers } = await listEvents(token, {});
      expect(status).toBe(code);
      expect(body.error?.errors[0]?.reason).toBe(reason);
      expect(body.error?.status).toBe(code === 429 ? 'RESOURCE_EXHAUSTED' : 'PERMISSION_DENIED');
      expect(headers.get('retry-after')).toBe(code === 429 ? '7' : null);
    }
    sim.control.advanceClock(61_000);
    expect((await listEvents(token, {})).status).toBe(200);
    sim.quotas.limits.delete(CY);
  });
});

describe('full and incremental sync', () => {
  const window = { timeMin: '2026-03-01T00:00:00Z', timeMax: '2026-05-01T00:00:00Z', singleEvents: 'true' };
  let syncToken = '';
  const singles: string[] = [];

  it('pages a full sync by maxResults, every second page short, the sync token on the last page only, the series expanded across DST', async () => {
    for (let day = 16; day <= 20; day += 1) {
      singles.push(
        sim.control.addEvent(ADA, {
          summary: `standup ${day}`,
          timing: timed(`2026-03-${day}T14:00:00`),
          attendees: [{ email: ADA, responseStatus: 'accepted' }, { email: BOB }],
          ...(day === 16 ? { hangoutLink: 'https://meet.google.com/abc-defg-hij' } : {}),
          ...(day === 17 ? { videoUri: 'https://meet.google.com/klm-nopq-rst' } : {}),
        }),
      );
    }
    const series = sim.control.addEvent(ADA, {
      id: 'weekly',
      summary: 'weekly review',
      timing: timed('2026-03-16T10:00:00', 60),
      weeklyCount: 4,
    });
    sim.control.moveInstance(ADA, series, 1, timed('2026-03-23T11:00:00', 60));
    sim.control.cancelInstance(ADA, series, 3);

    const token = await accessTokenFor(ADA);
    const pages: ListBody[] = [];
    let pageToken: string | undefined;
    do {
      const { status, body } = await listEvents(token, {
        ...window,
        maxResults: '3',
        ...(pageToken ? { pageToken } : {}),
      });
      expect(status).toBe(200);
      pages.push(body);
      pageToken = body.nextPageToken;
    } while (pageToken);
    // Every second page is short (maxResults is an upper bound): 8 items in four pages, not three.
    expect(pages.map((p) => p.items.length)).toEqual([3, 1, 3, 1]);
    expect(pages.map((p) => p.nextSyncToken !== undefined)).toEqual([false, false, false, true]);
    syncToken = pages[3]!.nextSyncToken!;

    const items = pages.flatMap((p) => p.items);
    const byId = new Map(items.map((item) => [item.id, item]));
    expect(byId.get('weekly_20260316T090000Z')?.start).toEqual({
      dateTime: '2026-03-16T10:00:00+01:00',
      timeZone: BERLIN,
    });
    expect(byId.get('weekly_20260323T090000Z')).toMatchObject({
      recurringEventId: 'weekly',
      start: { dateTime: '2026-03-23T11:00:00+01:00' },
      originalStartTime: { dateTime: '2026-03-23T10:00:00+01:00', timeZone: BERLIN },
    });
    // After the change to summer time (29 March) the same wall time is an hour earlier in UTC.
    expect(byId.get('weekly_20260330T080000Z')?.start?.dateTime).toBe('2026-03-30T10:00:00+02:00');
    expect(byId.has('weekly_20260406T080000Z')).toBe(false);
    expect(byId.get(singles[0]!)).toMatchObject({ hangoutLink: 'https://meet.google.com/abc-defg-hij' });
    expect(byId.get(singles[1]!)?.conferenceData?.entryPoints).toEqual([
      { entryPointType: 'video', uri: 'https://meet.google.com/klm-nopq-rst' },
    ]);

    const withDeleted = await listEvents(token, { ...window, showDeleted: 'true' });
    const cancelled = withDeleted.body.items.filter((item) => item.status === 'cancelled');
    expect(cancelled).toEqual([
      expect.objectContaining({
        id: 'weekly_20260406T080000Z',
        recurringEventId: 'weekly',
        originalStartTime: { dateTime: '2026-04-06T10:00:00+02:00', timeZone: BERLIN },
      }),
    ]);
  });

  it('lists exactly a move, a cancel and a new event incrementally, then nothing', async () => {
    sim.control.moveEvent(ADA, singles[2]!, timed('2026-03-18T16:00:00'));
    sim.control.cancelEvent(ADA, singles[3]!);
    const added = sim.control.addEvent(ADA, { summary: 'new', timing: timed('2026-03-25T09:00:00') });
    const token = await accessTokenFor(ADA);
    const { status, body } = await listEvents(token, { singleEvents: 'true', syncToken });
    expect(status).toBe(200);
    expect(body.items).toHaveLength(3);
    const byId = new Map(body.items.map((item) => [item.id, item]));
    expect(byId.get(singles[2]!)?.start?.dateTime).toBe('2026-03-18T16:00:00+01:00');
    expect(byId.get(singles[3]!)?.status).toBe('cancelled');
    expect(byId.get(added)?.status).toBe('confirmed');
    expect(body.nextPageToken).toBeUndefined();
    const again = await listEvents(token, { singleEvents: 'true', syncToken: body.nextSyncToken! });
    expect(again.body.items).toHaveLength(0);
    syncToken = again.body.nextSyncToken!;
  });

  it('lists a cancelled instance of a series incrementally with its series and original start', async () => {
    sim.control.cancelInstance(ADA, 'weekly', 2);
    const token = await accessTokenFor(ADA);
    const { body } = await listEvents(token, { singleEvents: 'true', syncToken });
    expect(body.items).toEqual([
      expect.objectContaining({
        id: 'weekly_20260330T080000Z',
        status: 'cancelled',
        recurringEventId: 'weekly',
        originalStartTime: { dateTime: '2026-03-30T10:00:00+02:00', timeZone: BERLIN },
      }),
    ]);
  });

  it("gives an invitee's copy the same iCalUID and shows the invitee's decline in their calendar", async () => {
    sim.control.addInviteeCopy(ADA, singles[4]!, BOB);
    sim.control.respond(BOB, singles[4]!, BOB, 'declined');
    const bobs = await listEvents(await accessTokenFor(BOB), window);
    const adas = await listEvents(await accessTokenFor(ADA), window);
    const bobCopy = bobs.body.items.find((item) => item.id === singles[4]);
    const adaCopy = adas.body.items.find((item) => item.id === singles[4]);
    expect(bobs.body.items).toHaveLength(1);
    expect(bobCopy?.iCalUID).toBe(adaCopy?.iCalUID);
    expect(bobCopy?.attendees?.find((a) => a.email === BOB)?.responseStatus).toBe('declined');
    expect(adaCopy?.attendees?.find((a) => a.email === BOB)?.responseStatus).toBe('needsAction');
  });
});
