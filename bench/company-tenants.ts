/**
 * The bench plan (company-plan.ts) written into both provider simulators as each
 * provider keeps it: a Google service account with domain-wide delegation and the
 * plan's meetings (an invitee's copy has the organizer's id), and an Entra app with
 * a client secret and the meetings in each mailbox (an invitee's copy has its own
 * id). Each tenant can move a user's first one-off (the incremental sync's change)
 * and add the hostile user's flood of strangers' invitations.
 */
import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import type { CompanySourceConfig } from '../lambdas/core/calendar/company/provider-contract';
import { GOOGLE_SAMPLE_SCOPES } from '../local/company-tenant/google-seed';
import { MICROSOFT_SAMPLE_ROLES } from '../local/company-tenant/microsoft-seed';
import type { EventTiming } from '../local/simulator/google-calendar/calendar-store';
import type { GoogleCalendarSimulator } from '../local/simulator/google-calendar/server';
import type { MicrosoftGraphSimulator } from '../local/simulator/microsoft-graph/simulator';
import { type BenchMeeting, type BenchPlan, meetingCode, utcWall } from './company-plan';

export interface BenchTenant {
  users: string[];
  source: CompanySourceConfig;
  credentialsSecret: string;
  credentials: string;
  /** Moves `user`'s first one-off an hour later (a change the incremental sync must find). */
  moveFirstOneOff(user: number): void;
  /**
   * A new user of the tenant (outside the plan) whose calendar holds `count` invitations from strangers,
   * `everyMs` apart from `fromMs`, each with a link; answers the user's address.
   */
  floodedUser(count: number, fromMs: number, everyMs: number): string;
}

const HOUR = 3_600_000;

const googleLink = (n: number) => {
  const code = meetingCode(n);
  return `https://meet.google.com/${code.slice(0, 3)}-${code.slice(3, 7)}-${code.slice(7, 10)}`;
};
const teamsLink = (n: number) => `https://teams.microsoft.com/meet/${String(1e11 + n)}?p=${meetingCode(n)}`;

export function seedGoogleBench(simulator: GoogleCalendarSimulator, plan: BenchPlan, domain: string): BenchTenant {
  const { control } = simulator;
  const users = Array.from({ length: plan.users }, (_, i) => `user${i}@${domain}`);
  for (const user of users) control.addUser(user);
  const keys = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  const clientEmail = `bench@${domain.split('.')[0]}.iam.gserviceaccount.com`;
  const clientId = String(100_000_000_000_000_000_000n + BigInt(Date.now()));
  control.registerServiceAccount({ clientEmail, clientId, publicKeyPem: keys.publicKey });
  control.grantDelegation(clientId, [...GOOGLE_SAMPLE_SCOPES]);
  const timing = (startMs: number, minutes: number): EventTiming => ({
    kind: 'timed',
    startLocal: utcWall(startMs),
    timeZone: 'UTC',
    durationMinutes: minutes,
  });
  const address = (user: number) => users[user] as string;
  const firstOneOffs = new Map<number, { id: string; meeting: BenchMeeting }>();
  plan.meetings.forEach((meeting, n) => {
    const organizer = address(meeting.organizer);
    const id = control.addEvent(organizer, {
      summary: meeting.key,
      timing: timing(meeting.startMs, meeting.durationMinutes),
      organizer,
      attendees: meeting.holders.map((h) => ({ email: address(h.user) })),
      hangoutLink: googleLink(n),
      ...(meeting.weeklyCount !== undefined && { weeklyCount: meeting.weeklyCount }),
    });
    for (const holder of meeting.holders) {
      if (holder.user !== meeting.organizer) control.addInviteeCopy(organizer, id, address(holder.user));
      control.respond(
        address(holder.user),
        id,
        address(holder.user),
        holder.response === 'declined' ? 'declined' : 'accepted',
      );
    }
    if (meeting.key.endsWith('-0') && meeting.key.startsWith('one-off-'))
      firstOneOffs.set(meeting.organizer, { id, meeting });
  });
  const credentialsSecret = `bench/${domain}`;
  const credentials = JSON.stringify({
    type: 'service_account',
    project_id: 'bench',
    private_key_id: clientId.slice(0, 12),
    private_key: keys.privateKey,
    client_email: clientEmail,
    client_id: clientId,
    token_uri: simulator.tokenUrl,
  });
  let strangers = 0;
  return {
    users,
    source: { provider: 'google', credentialsSecret, users },
    credentialsSecret,
    credentials,
    moveFirstOneOff(user) {
      const first = firstOneOffs.get(user);
      if (first === undefined) throw new Error(`user ${user} has no one-off`);
      control.moveEvent(address(user), first.id, timing(first.meeting.startMs + HOUR, first.meeting.durationMinutes));
    },
    floodedUser(count, fromMs, everyMs) {
      const target = `flooded${strangers}@${domain}`;
      control.addUser(target);
      for (let i = 0; i < count; i++, strangers++)
        control.addEvent(target, {
          summary: `Quick sync ${strangers}`,
          timing: timing(fromMs + i * everyMs, 30),
          organizer: `stranger${strangers}@elsewhere.example`,
          attendees: [{ email: target }],
          hangoutLink: googleLink(10_000_000 + strangers),
        });
      return target;
    },
  };
}

export function seedMicrosoftBench(simulator: MicrosoftGraphSimulator, plan: BenchPlan, domain: string): BenchTenant {
  const tenantId = randomUUID();
  const clientId = randomUUID();
  const credentials = `sim~${randomBytes(24).toString('base64url')}`;
  simulator.addApp(tenantId, { clientId, secret: credentials, roles: [...MICROSOFT_SAMPLE_ROLES] });
  const people = Array.from({ length: plan.users }, (_, i) => ({
    id: randomUUID(),
    userPrincipalName: `user${i}@${domain}`,
    displayName: `User ${i}`,
  }));
  for (const person of people) simulator.addUser(tenantId, person);
  const person = (user: number) => people[user] as (typeof people)[number];
  const firstOneOffs = new Map<number, { eventId: string; meeting: BenchMeeting }>();
  plan.meetings.forEach((meeting, n) => {
    const organizer = person(meeting.organizer);
    const fields = {
      subject: meeting.key,
      start: utcWall(meeting.startMs),
      end: utcWall(meeting.startMs + meeting.durationMinutes * 60_000),
      timeZone: 'UTC',
      organizer: { address: organizer.userPrincipalName, name: organizer.displayName },
      attendees: meeting.holders
        .filter((h) => h.user !== meeting.organizer)
        .map((h) => ({
          address: person(h.user).userPrincipalName,
          name: person(h.user).displayName,
          response: 'none' as const,
        })),
      joinUrl: teamsLink(n),
    };
    const original =
      meeting.weeklyCount === undefined
        ? simulator.addEvent(organizer.id, fields)
        : simulator.addWeeklySeries(organizer.id, fields, meeting.weeklyCount);
    for (const holder of meeting.holders) {
      if (holder.user === meeting.organizer) continue;
      const copy = simulator.addInviteeCopy(person(holder.user).id, original);
      simulator.respond(person(holder.user).id, copy.id, holder.response === 'declined' ? 'declined' : 'accepted', {
        userId: organizer.id,
        eventId: original.id,
      });
    }
    if (meeting.key.endsWith('-0') && meeting.key.startsWith('one-off-'))
      firstOneOffs.set(meeting.organizer, { eventId: original.id, meeting });
  });
  const users = people.map((p) => p.userPrincipalName);
  const credentialsSecret = `bench/${domain}`;
  let strangers = 0;
  return {
    users,
    source: { provider: 'microsoft', tenantId, clientId, credentialsSecret, users },
    credentialsSecret,
    credentials,
    moveFirstOneOff(user) {
      const first = firstOneOffs.get(user);
      if (first === undefined) throw new Error(`user ${user} has no one-off`);
      const start = first.meeting.startMs + HOUR;
      simulator.moveEvent(
        person(user).id,
        first.eventId,
        utcWall(start),
        utcWall(start + first.meeting.durationMinutes * 60_000),
      );
    },
    floodedUser(count, fromMs, everyMs) {
      const target = { id: randomUUID(), userPrincipalName: `flooded${strangers}@${domain}`, displayName: 'Flooded' };
      simulator.addUser(tenantId, target);
      for (let i = 0; i < count; i++, strangers++) {
        const stranger = `stranger${strangers}@elsewhere.example`;
        simulator.store.add(
          target.id,
          {
            subject: `Quick sync ${strangers}`,
            start: utcWall(fromMs + i * everyMs),
            end: utcWall(fromMs + i * everyMs + 30 * 60_000),
            timeZone: 'UTC',
            organizer: { address: stranger, name: stranger },
            attendees: [{ address: target.userPrincipalName, name: target.displayName, response: 'none' }],
            joinUrl: teamsLink(10_000_000 + strangers),
          },
          { responseStatus: 'notResponded' },
        );
      }
      return target.userPrincipalName;
    },
  };
}
