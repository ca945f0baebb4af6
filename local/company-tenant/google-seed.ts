/**
 * The sample Google Workspace tenant: a service account (a fresh RSA key pair; the
 * simulator holds its public key), domain-wide delegation granted for reading
 * calendars and group members, five users, and the sample plan's meetings written
 * into their calendars as Google keeps them (an invitee's copy has the organizer's
 * id and iCalUID; each copy carries its own answers and instance changes).
 */
import { generateKeyPairSync, randomInt } from 'node:crypto';
import type { CompanySourceConfig } from '../../lambdas/core/calendar/company/provider-contract';
import type { EventTiming, ResponseStatus } from '../simulator/google-calendar/calendar-store';
import type { GoogleCalendarSimulator } from '../simulator/google-calendar/server';
import { linkCode, type PlannedMeeting, type SamplePlan } from './sample-plan';

export type GoogleSourceConfig = Extract<CompanySourceConfig, { provider: 'google' }>;

/** What the delegation grant covers: reading calendars (the sync) and group members (a `group` source). */
export const GOOGLE_SAMPLE_SCOPES = [
  'https://www.googleapis.com/auth/calendar.readonly',
  'https://www.googleapis.com/auth/calendar.events.readonly',
  'https://www.googleapis.com/auth/admin.directory.group.member.readonly',
] as const;

export const GOOGLE_SAMPLE_DOMAIN = 'acme.example';
export const GOOGLE_SAMPLE_SECRET = 'meeting-pipeline/calendars/sample-google';
const NAMES = ['ada', 'bo', 'cy', 'dee', 'eve'];

export interface GoogleSample {
  users: string[];
  source: GoogleSourceConfig;
  /** The secret's value: the service account key JSON, as the Cloud console downloads it. */
  credentials: string;
}

export function seedGoogleTenant(simulator: GoogleCalendarSimulator, plan: SamplePlan): GoogleSample {
  const { control } = simulator;
  const users = NAMES.map((name) => `${name}@${GOOGLE_SAMPLE_DOMAIN}`);
  for (const user of users) control.addUser(user);

  const keys = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  const clientEmail = 'meeting-pipeline@acme-sample.iam.gserviceaccount.com';
  const clientId = String(randomInt(100_000_000, 999_999_999)).padEnd(21, '0');
  control.registerServiceAccount({ clientEmail, clientId, publicKeyPem: keys.publicKey });
  control.grantDelegation(clientId, [...GOOGLE_SAMPLE_SCOPES]);

  for (const meeting of plan.meetings) seedMeeting(simulator, plan, users, meeting);

  const credentials = JSON.stringify({
    type: 'service_account',
    project_id: 'acme-sample',
    private_key_id: clientId.slice(0, 12),
    private_key: keys.privateKey,
    client_email: clientEmail,
    client_id: clientId,
    token_uri: simulator.tokenUrl,
  });
  return { users, source: { provider: 'google', credentialsSecret: GOOGLE_SAMPLE_SECRET, users }, credentials };
}

const ANSWER: Record<PlannedMeeting['holders'][number]['response'], ResponseStatus> = {
  accepted: 'accepted',
  declined: 'declined',
  needsAction: 'needsAction',
};

function seedMeeting(simulator: GoogleCalendarSimulator, plan: SamplePlan, users: string[], meeting: PlannedMeeting) {
  const { control } = simulator;
  const timing = (startLocal: string): EventTiming => ({
    kind: 'timed',
    startLocal,
    timeZone: plan.zone.iana,
    durationMinutes: meeting.durationMinutes,
  });
  const address = (user: number) => {
    const found = users[user];
    if (found === undefined) throw new Error(`the sample plan names user ${user} of ${users.length}`);
    return found;
  };
  const organizer = typeof meeting.organizer === 'number' ? address(meeting.organizer) : meeting.organizer;
  const holders = meeting.holders.map((h) => ({ email: address(h.user), response: ANSWER[h.response] }));
  const attendees = [
    ...(holders.some((h) => h.email === organizer) ? [] : [{ email: organizer, responseStatus: 'accepted' as const }]),
    ...holders.map((h) => ({ email: h.email })),
  ];
  const code = linkCode(meeting.title, 'google');
  const link = `https://meet.google.com/${code.slice(0, 3)}-${code.slice(3, 7)}-${code.slice(7)}`;
  const first = address(meeting.holders[0]?.user ?? -1);
  const id = control.addEvent(first, {
    summary: meeting.title,
    timing: timing(meeting.startLocal),
    organizer,
    attendees,
    // The all-hands carries its link as conference data, the others as a Meet link.
    ...(meeting.link && (meeting.holders.length === users.length ? { videoUri: link } : { hangoutLink: link })),
    ...(meeting.weekly !== undefined && { weeklyCount: meeting.weekly.count }),
  });
  for (const holder of holders.slice(1)) control.addInviteeCopy(first, id, holder.email);
  for (const holder of holders) {
    control.respond(holder.email, id, holder.email, holder.response);
    if (meeting.movedToLocal !== undefined) control.moveEvent(holder.email, id, timing(meeting.movedToLocal));
    if (meeting.weekly !== undefined) {
      control.moveInstance(holder.email, id, meeting.weekly.moved.index, timing(meeting.weekly.moved.startLocal));
      control.cancelInstance(holder.email, id, meeting.weekly.cancelled);
    }
  }
}
