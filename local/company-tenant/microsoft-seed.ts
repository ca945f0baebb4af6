/**
 * The sample Microsoft 365 tenant: an Entra app with a client secret and the
 * application permissions `Calendars.Read` and `GroupMember.Read.All`, an
 * application access policy limiting it to the sample group's members, five
 * users, and the sample plan's meetings written into their mailboxes as Outlook
 * keeps them (an invitee's copy has its own id and the organizer's iCalUId).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { CompanySourceConfig } from '../../lambdas/core/calendar/company/provider-contract';
import type { Attendee, EventFields, ResponseStatus } from '../simulator/microsoft-graph/calendar-store';
import type { MicrosoftGraphSimulator } from '../simulator/microsoft-graph/simulator';
import { addLocalMinutes, linkCode, type PlannedMeeting, type SamplePlan } from './sample-plan';

export type MicrosoftSourceConfig = Extract<CompanySourceConfig, { provider: 'microsoft' }>;

export const MICROSOFT_SAMPLE_ROLES = ['Calendars.Read', 'GroupMember.Read.All'] as const;
export const MICROSOFT_SAMPLE_DOMAIN = 'fabrikam.example';
export const MICROSOFT_SAMPLE_SECRET = 'meeting-pipeline/calendars/sample-microsoft';
const NAMES = ['ada', 'bo', 'cy', 'dee', 'eve'];

export interface MicrosoftSample {
  tenantId: string;
  clientId: string;
  /** The group the application access policy covers: the five users. */
  groupId: string;
  /** userPrincipalName of each user (Graph takes it in place of the object id). */
  users: string[];
  /** Object id of each user, in the order of `users`. */
  userIds: string[];
  source: MicrosoftSourceConfig;
  /** The secret's value: the app's client secret. */
  credentials: string;
}

export function seedMicrosoftTenant(simulator: MicrosoftGraphSimulator, plan: SamplePlan): MicrosoftSample {
  const tenantId = randomUUID();
  const clientId = randomUUID();
  const groupId = randomUUID();
  const credentials = `sim~${randomBytes(24).toString('base64url')}`;
  simulator.addApp(tenantId, { clientId, secret: credentials, roles: [...MICROSOFT_SAMPLE_ROLES] });
  const people = NAMES.map((name) => ({
    id: randomUUID(),
    userPrincipalName: `${name}@${MICROSOFT_SAMPLE_DOMAIN}`,
    displayName: name.charAt(0).toUpperCase() + name.slice(1),
  }));
  for (const person of people) simulator.addUser(tenantId, person);
  const person = (user: number) => {
    const found = people[user];
    if (found === undefined) throw new Error(`the sample plan names user ${user} of ${people.length}`);
    return found;
  };
  // The admin's policy names a mail-enabled security group; the simulator holds it as that group's members.
  simulator.setAccessPolicy(
    tenantId,
    clientId,
    people.map((p) => p.id),
  );

  const attendeeOf = (user: number): Attendee => ({
    address: person(user).userPrincipalName,
    name: person(user).displayName,
    response: 'none',
  });
  for (const meeting of plan.meetings) {
    const organizer =
      typeof meeting.organizer === 'number'
        ? { address: person(meeting.organizer).userPrincipalName, name: person(meeting.organizer).displayName }
        : { address: meeting.organizer, name: meeting.organizer };
    const code = linkCode(meeting.title, 'microsoft');
    const fields: EventFields = {
      subject: meeting.title,
      start: meeting.startLocal,
      end: addLocalMinutes(meeting.startLocal, meeting.durationMinutes),
      timeZone: plan.zone.windows,
      organizer,
      attendees: meeting.holders.map((h) => attendeeOf(h.user)),
      ...(meeting.link && {
        joinUrl: `https://teams.microsoft.com/meet/${[...code].map((c) => c.charCodeAt(0) % 10).join('')}?p=${code}`,
      }),
    };
    seedMeeting(simulator, person, meeting, fields);
  }

  const users = people.map((p) => p.userPrincipalName);
  return {
    tenantId,
    clientId,
    groupId,
    users,
    userIds: people.map((p) => p.id),
    source: { provider: 'microsoft', tenantId, clientId, credentialsSecret: MICROSOFT_SAMPLE_SECRET, users },
    credentials,
  };
}

const ANSWER: Record<PlannedMeeting['holders'][number]['response'], ResponseStatus> = {
  accepted: 'accepted',
  declined: 'declined',
  needsAction: 'notResponded',
};

function seedMeeting(
  simulator: MicrosoftGraphSimulator,
  person: (user: number) => { id: string },
  meeting: PlannedMeeting,
  fields: EventFields,
): void {
  const [first, ...others] = meeting.holders;
  if (first === undefined) throw new Error(`${meeting.title} is in nobody's calendar`);
  const ownerId = person(first.user).id;
  const original = meeting.weekly
    ? simulator.addWeeklySeries(ownerId, fields, meeting.weekly.count)
    : simulator.addEvent(ownerId, fields);
  const copies = [
    { holder: first, eventId: original.id },
    ...others.map((holder) => ({
      holder,
      eventId: simulator.addInviteeCopy(person(holder.user).id, original).id,
    })),
  ];
  const organizedByFirst = meeting.organizer === first.user;
  for (const { holder, eventId } of copies) {
    const userId = person(holder.user).id;
    if (!(organizedByFirst && holder === first))
      simulator.respond(userId, eventId, ANSWER[holder.response], { userId: ownerId, eventId: original.id });
    if (meeting.movedToLocal !== undefined)
      simulator.moveEvent(
        userId,
        eventId,
        meeting.movedToLocal,
        addLocalMinutes(meeting.movedToLocal, meeting.durationMinutes),
      );
    if (meeting.weekly !== undefined) {
      const { moved, cancelled } = meeting.weekly;
      simulator.changeOccurrence(userId, eventId, originalDate(fields.start, moved.index), {
        start: moved.startLocal,
        end: addLocalMinutes(moved.startLocal, meeting.durationMinutes),
      });
      simulator.cancelOccurrence(userId, eventId, originalDate(fields.start, cancelled));
    }
  }
}

/** The local date of a weekly series' instance `index` (Outlook names an occurrence by its original date). */
function originalDate(firstStart: string, index: number): string {
  return addLocalMinutes(firstStart, index * 7 * 24 * 60).slice(0, 10);
}
