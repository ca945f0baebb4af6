/**
 * The sample tenant of `npm run dev -- --calendar-simulators` holds what it says: each
 * user's calendar, listed over HTTP through each simulator with a token obtained as a
 * client would (a JWT bearer grant signed with the service account key from the local
 * secret; the Entra client-credentials grant with the app's secret), shows exactly the
 * planned instances, with the series crossing a DST change, its moved and cancelled
 * instances, one all-hands in five calendars, a decline, a meeting without a link and
 * one moved later.
 */
import { importPKCS8, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CompanyTenant, startCompanyTenant } from '../../local/company-tenant/company-tenant';
import { GOOGLE_SAMPLE_SCOPES } from '../../local/company-tenant/google-seed';
import { addLocalDays, zonedToUtc } from '../../local/simulator/google-calendar/zoned-time';

const DAY_MS = 86_400_000;
let tenant: CompanyTenant;
let now: number;

const windowEnd = () => now + tenant.plan.lookaheadDays * DAY_MS;
/** Far enough back to hold a series that started before the last DST change. */
const history = () => now - 200 * DAY_MS;

interface GoogleEvent {
  id: string;
  iCalUID?: string;
  summary?: string;
  status: string;
  start?: { dateTime?: string };
  originalStartTime?: { dateTime?: string };
  hangoutLink?: string;
  conferenceData?: unknown;
  location?: string;
  attendees?: { email: string; responseStatus: string }[];
}

async function googleToken(user: string, scope: string): Promise<{ status: number; token?: string; body: unknown }> {
  const key = JSON.parse(tenant.secrets.get(tenant.google.source.credentialsSecret)!) as {
    client_email: string;
    private_key: string;
    token_uri: string;
  };
  const assertion = await new SignJWT({ scope })
    .setProtectedHeader({ alg: 'RS256', typ: 'JWT' })
    .setIssuer(key.client_email)
    .setSubject(user)
    .setAudience(key.token_uri)
    .setIssuedAt(Math.floor(now / 1000))
    .setExpirationTime(Math.floor(now / 1000) + 3600)
    .sign(await importPKCS8(key.private_key, 'RS256'));
  const response = await fetch(tenant.endpoints.googleTokenUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion }),
  });
  const body = (await response.json()) as { access_token?: string };
  return { status: response.status, ...(body.access_token && { token: body.access_token }), body };
}

async function googleEvents(user: string, from = now, to = windowEnd()): Promise<GoogleEvent[]> {
  const { token } = await googleToken(user, 'https://www.googleapis.com/auth/calendar.readonly');
  const items: GoogleEvent[] = [];
  let pageToken: string | undefined;
  do {
    const query = new URLSearchParams({
      singleEvents: 'true',
      timeMin: new Date(from).toISOString(),
      timeMax: new Date(to).toISOString(),
      maxResults: '7',
      ...(pageToken && { pageToken }),
    });
    const response = await fetch(`${tenant.endpoints.googleCalendarApi}/calendars/primary/events?${query}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(response.status).toBe(200);
    const page = (await response.json()) as { items: GoogleEvent[]; nextPageToken?: string };
    items.push(...page.items);
    pageToken = page.nextPageToken;
  } while (pageToken !== undefined);
  return items;
}

interface GraphEvent {
  id: string;
  iCalUId: string;
  subject: string;
  type: string;
  seriesMasterId?: string;
  start: { dateTime: string };
  isCancelled: boolean;
  responseStatus: { response: string };
  onlineMeeting: { joinUrl: string } | null;
  '@removed'?: unknown;
}

async function graphToken(secret: string): Promise<{ status: number; token?: string }> {
  const { tenantId, clientId } = tenant.microsoft;
  const response = await fetch(`${tenant.endpoints.microsoftLogin}/${tenantId}/oauth2/v2.0/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: clientId,
      client_secret: secret,
      scope: 'https://graph.microsoft.com/.default',
    }),
  });
  const body = (await response.json()) as { access_token?: string };
  return { status: response.status, ...(body.access_token && { token: body.access_token }) };
}

async function graphEvents(user: string, from = now, to = windowEnd()): Promise<GraphEvent[]> {
  const { token } = await graphToken(tenant.secrets.get(tenant.microsoft.source.credentialsSecret)!);
  const query = new URLSearchParams({
    startDateTime: new Date(from).toISOString(),
    endDateTime: new Date(to).toISOString(),
  });
  let next: string | undefined =
    `${tenant.endpoints.microsoftGraph}/users/${encodeURIComponent(user)}/calendarView/delta?${query}`;
  const items: GraphEvent[] = [];
  while (next !== undefined) {
    const response = await fetch(next, {
      headers: { authorization: `Bearer ${token}`, prefer: 'outlook.timezone="UTC", odata.maxpagesize=7' },
    });
    expect(response.status).toBe(200);
    const page = (await response.json()) as { value: GraphEvent[]; '@odata.nextLink'?: string };
    items.push(...page.value);
    next = page['@odata.nextLink'];
  }
  return withSeriesFields(user, token!, items);
}

/**
 * The instances of a delta round as a client sees them once it has filled them: Graph lists a plain
 * occurrence as a stub, so each takes its master's subject, iCalUId, answer and link (the master from
 * the round, else by GET); the masters themselves are left out.
 */
async function withSeriesFields(user: string, token: string, items: GraphEvent[]): Promise<GraphEvent[]> {
  const masters = new Map(items.filter((e) => e.type === 'seriesMaster').map((e) => [e.id, e]));
  const filled: GraphEvent[] = [];
  for (const item of items) {
    if (item.type === 'seriesMaster') continue;
    if (item.type !== 'occurrence' || item.seriesMasterId === undefined) {
      filled.push(item);
      continue;
    }
    let master = masters.get(item.seriesMasterId);
    if (master === undefined) {
      const url = `${tenant.endpoints.microsoftGraph}/users/${encodeURIComponent(user)}/events/${item.seriesMasterId}`;
      const response = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
      expect(response.status).toBe(200);
      master = (await response.json()) as GraphEvent;
      masters.set(master.id, master);
    }
    const { id, type, start } = item;
    filled.push({ ...master, id, type, start });
  }
  return filled;
}

/** Google writes an offset; Graph (asked for UTC) writes a bare wall time with seven fraction digits. */
const instant = (dateTime: string) =>
  /(Z|[+-]\d\d:\d\d)$/.test(dateTime) ? Date.parse(dateTime) : Date.parse(`${dateTime.slice(0, 19)}Z`);

/** Instances of the series in [from, to) as the plan makes them: the cancelled one left out, the moved one at its new time. */
function plannedSeriesStarts(from: number, to: number): number[] {
  const { plan } = tenant;
  const series = plan.meetings.find((m) => m.weekly !== undefined)!;
  const { count, moved, cancelled } = series.weekly!;
  return Array.from({ length: count }, (_, i) => i)
    .filter((i) => i !== cancelled)
    .map((i) =>
      zonedToUtc(i === moved.index ? moved.startLocal : addLocalDays(series.startLocal, 7 * i), plan.zone.iana),
    )
    .filter((startMs) => startMs >= from && startMs < to);
}

/** The series crosses the DST change: a regular instance on each side keeps 10:00 on the wall clock, so its UTC hour shifts. */
function expectDstCrossing(regularStarts: number[]): void {
  const before = regularStarts.filter((ms) => ms < tenant.plan.dstChangeMs);
  const after = regularStarts.filter((ms) => ms > tenant.plan.dstChangeMs);
  expect(before.length).toBeGreaterThan(0);
  expect(after.length).toBeGreaterThanOrEqual(2);
  expect(new Date(before.at(-1)!).getUTCHours()).not.toBe(new Date(after[0]!).getUTCHours());
}

// One date with a DST change ahead within the lookahead, one with the last change behind (the series is history there).
describe.each([
  ['a DST change ahead', '2026-11-24T21:40:00Z'],
  ['the last DST change behind', '2026-05-01T08:15:00Z'],
])('the sample company tenant, %s', (_case, date) => {
  beforeAll(async () => {
    now = Date.parse(date);
    tenant = await startCompanyTenant({ now: () => now });
  });
  afterAll(async () => tenant?.stop());

  it('plans the series around a DST change, the lookahead covering what is ahead', () => {
    const { plan } = tenant;
    const series = plan.meetings.find((m) => m.weekly !== undefined)!.weekly!;
    expect(plan.lookaheadDays).toBeLessThanOrEqual(180);
    expect(series.cancelled).toBe(series.moved.index + 1);
    const ahead = plannedSeriesStarts(now, windowEnd()).length;
    expect(ahead).toBeGreaterThanOrEqual(3);
    expect(plan.instancesPerUser).toEqual([ahead + 1, ahead + 1, ahead + 2, 2, 2]);
  });

  it('Google: each user lists exactly the planned instances through the simulator', async () => {
    const perUser = await Promise.all(tenant.google.users.map((user) => googleEvents(user)));
    expect(perUser.map((events) => events.length)).toEqual(tenant.plan.instancesPerUser);
    const [ada, , cy, dee, eve] = perUser as [
      GoogleEvent[],
      GoogleEvent[],
      GoogleEvent[],
      GoogleEvent[],
      GoogleEvent[],
    ];
    expect(ada.filter((e) => e.summary === 'Weekly team sync').map((e) => instant(e.start!.dateTime!))).toEqual(
      plannedSeriesStarts(now, windowEnd()),
    );

    // One meeting in five calendars: the same iCalUID in each, each copy accepted by its owner.
    const allHands = perUser.map((events) => events.filter((e) => e.summary === 'All hands'));
    expect(allHands.map((copies) => copies.length)).toEqual([1, 1, 1, 1, 1]);
    expect(new Set(allHands.map(([e]) => e!.iCalUID)).size).toBe(1);
    expect(
      allHands.map(([e], i) => e!.attendees!.find((a) => a.email === tenant.google.users[i])!.responseStatus),
    ).toEqual(['accepted', 'accepted', 'accepted', 'accepted', 'accepted']);
    expect(allHands[0]![0]!.conferenceData).toBeDefined();

    const vendor = dee.find((e) => e.summary === 'Vendor pitch')!;
    expect(vendor.attendees!.find((a) => a.email === tenant.google.users[3])!.responseStatus).toBe('declined');
    const coffee = eve.find((e) => e.summary === 'Coffee chat')!;
    expect([coffee.hangoutLink, coffee.conferenceData, coffee.location]).toEqual([undefined, undefined, undefined]);
    const review = tenant.plan.meetings.find((m) => m.title === 'Design review')!;
    expect(instant(cy.find((e) => e.summary === 'Design review')!.start!.dateTime!)).toBe(
      zonedToUtc(review.movedToLocal!, tenant.plan.zone.iana),
    );
  });

  it('Google: the whole series crosses the DST change with one moved and one cancelled instance', async () => {
    const series = (await googleEvents(tenant.google.users[0]!, history())).filter(
      (e) => e.summary === 'Weekly team sync',
    );
    const { count } = tenant.plan.meetings.find((m) => m.weekly !== undefined)!.weekly!;
    expect(series).toHaveLength(count - 1);
    const moved = series.filter((e) => e.start!.dateTime !== e.originalStartTime!.dateTime);
    expect(moved).toHaveLength(1);
    expect(instant(moved[0]!.start!.dateTime!) - instant(moved[0]!.originalStartTime!.dateTime!)).toBe(3_600_000);
    expectDstCrossing(
      series.filter((e) => e.start!.dateTime === e.originalStartTime!.dateTime).map((e) => instant(e.start!.dateTime!)),
    );
  });

  it('Google: the delegation covers the directory scope too, and nothing else', async () => {
    const admin = tenant.google.users[0]!;
    expect((await googleToken(admin, GOOGLE_SAMPLE_SCOPES[2])).status).toBe(200);
    expect((await googleToken(admin, 'https://www.googleapis.com/auth/calendar')).status).toBe(401);
  });

  it('Microsoft: each user lists exactly the planned instances through the simulator', async () => {
    const perUser = await Promise.all(tenant.microsoft.users.map((user) => graphEvents(user)));
    expect(perUser.flat().filter((e) => e['@removed'] !== undefined)).toEqual([]);
    expect(perUser.map((events) => events.length)).toEqual(tenant.plan.instancesPerUser);
    const [ada, , cy, dee, eve] = perUser as [GraphEvent[], GraphEvent[], GraphEvent[], GraphEvent[], GraphEvent[]];
    expect(ada.filter((e) => e.subject === 'Weekly team sync').map((e) => instant(e.start.dateTime))).toEqual(
      plannedSeriesStarts(now, windowEnd()),
    );

    const allHands = perUser.map((events) => events.filter((e) => e.subject === 'All hands'));
    expect(allHands.map((copies) => copies.length)).toEqual([1, 1, 1, 1, 1]);
    expect(new Set(allHands.map(([e]) => e!.iCalUId)).size).toBe(1);
    expect(new Set(allHands.map(([e]) => e!.id)).size).toBe(5);
    expect(allHands.map(([e]) => e!.responseStatus.response)).toEqual([
      'organizer',
      'accepted',
      'accepted',
      'accepted',
      'accepted',
    ]);

    expect(dee.find((e) => e.subject === 'Vendor pitch')!.responseStatus.response).toBe('declined');
    expect(eve.find((e) => e.subject === 'Coffee chat')!.onlineMeeting).toBeNull();
    const review = tenant.plan.meetings.find((m) => m.title === 'Design review')!;
    expect(instant(cy.find((e) => e.subject === 'Design review')!.start.dateTime)).toBe(
      zonedToUtc(review.movedToLocal!, tenant.plan.zone.iana),
    );
  });

  it('Microsoft: the whole series crosses the DST change with one moved and one cancelled instance', async () => {
    const series = (await graphEvents(tenant.microsoft.users[0]!, history())).filter(
      (e) => e.subject === 'Weekly team sync',
    );
    const { count } = tenant.plan.meetings.find((m) => m.weekly !== undefined)!.weekly!;
    expect(series).toHaveLength(count - 1);
    expect(series.filter((e) => e.type === 'exception')).toHaveLength(1);
    expectDstCrossing(series.filter((e) => e.type === 'occurrence').map((e) => instant(e.start.dateTime)));
  });

  it('Microsoft: a wrong client secret gets no token', async () => {
    expect((await graphToken('not-the-secret')).status).toBe(401);
  });

  it('points every endpoint at the simulators on 127.0.0.1', () => {
    for (const url of Object.values(tenant.endpoints)) expect(new URL(url).hostname).toBe('127.0.0.1');
    expect(tenant.endpoints.googleCalendarApi).toMatch(/\/calendar\/v3$/);
    expect(tenant.endpoints.googleDirectoryApi).toMatch(/\/admin\/directory\/v1$/);
    expect(tenant.endpoints.microsoftGraph).toMatch(/\/v1\.0$/);
  });

  it('moves both simulators clocks with the wall clock: an assertion dated two hours on is taken, a token from then refused', async () => {
    const user = tenant.google.users[0]!;
    const { token: early } = await googleToken(user, 'https://www.googleapis.com/auth/calendar.readonly');
    const { token: graphEarly } = await graphToken(tenant.secrets.get(tenant.microsoft.source.credentialsSecret)!);
    // The last test of the group: the clocks stay two hours on.
    now += 2 * 3_600_000;
    tenant.followClock();
    // Issued two hours ago: both expired on the simulators' clocks.
    const google = await fetch(`${tenant.endpoints.googleCalendarApi}/calendars/primary/events`, {
      headers: { authorization: `Bearer ${early}` },
    });
    expect(google.status).toBe(401);
    const graph = await fetch(
      `${tenant.endpoints.microsoftGraph}/users/${encodeURIComponent(tenant.microsoft.users[0]!)}/calendarView/delta?startDateTime=${new Date(now).toISOString()}&endDateTime=${new Date(now + DAY_MS).toISOString()}`,
      { headers: { authorization: `Bearer ${graphEarly}` } },
    );
    expect(graph.status).toBe(401);
    // An assertion dated now (two hours after the start) is current for the simulator.
    expect((await googleToken(user, 'https://www.googleapis.com/auth/calendar.readonly')).status).toBe(200);
  });
});
