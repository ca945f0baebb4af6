/**
 * Whether a calendar occurrence gets a bot, and why: the first rule that skips it
 * is its reason; a joined meeting's reason says what let it through. The preview
 * shows these, so "why did the bot (not) join?" has an answer per occurrence.
 */
import type { CalendarRules } from './calendar-source';
import type { Occurrence } from './ics-occurrences';
import { findMeetingLink, type LinkSource, type MeetingKind } from './meeting-link';

export type Decision =
  | { decision: 'join'; meetingUrl: string; reason: string }
  | { decision: 'skip'; meetingUrl: string | null; reason: string };

const KIND_NAMES: Record<MeetingKind, string> = { zoom: 'Zoom', 'google-meet': 'Google Meet', teams: 'Teams' };
const SOURCE_NAMES: Record<LinkSource, string> = {
  conference: 'conference data',
  url: 'URL',
  location: 'location',
  description: 'description',
};

const domainOf = (email: string) => email.slice(email.lastIndexOf('@') + 1).toLowerCase();

export function decide(occurrence: Occurrence, rules: CalendarRules): Decision {
  const skip = (reason: string, meetingUrl: string | null = null): Decision => ({
    decision: 'skip',
    meetingUrl,
    reason,
  });
  if (occurrence.cancelled) return skip('cancelled in the calendar');
  if (occurrence.allDay) return skip('all-day event');
  const link = findMeetingLink(occurrence.links);
  if (!link.found) return skip(link.reason);
  const url = link.url;
  const owners = new Set(rules.owner_emails.map((email) => email.toLowerCase()));
  const title = occurrence.title.toLowerCase();

  if (rules.skip_declined) {
    const declined = occurrence.attendees.find((a) => owners.has(a.email) && a.partstat === 'DECLINED');
    if (declined !== undefined) return skip(`declined by ${declined.email}`, url);
  }
  const excluded = rules.title_exclude.find((word) => title.includes(word.toLowerCase()));
  if (excluded !== undefined) return skip(`title contains "${excluded}" (title_exclude)`, url);
  const included = rules.title_include.find((word) => title.includes(word.toLowerCase()));
  if (rules.title_include.length > 0 && included === undefined)
    return skip(`title contains none of ${rules.title_include.map((w) => `"${w}"`).join(', ')} (title_include)`, url);

  const people = new Set(occurrence.attendees.map((a) => a.email));
  if (occurrence.organizer !== undefined) people.add(occurrence.organizer);
  if (people.size < rules.min_attendees)
    return skip(`${people.size} attendee(s), fewer than min_attendees ${rules.min_attendees}`, url);

  const why = [`${KIND_NAMES[link.kind]} link in the ${SOURCE_NAMES[link.source]}`];
  if (rules.join === 'accepted') {
    if (owners.size === 0) return skip('join is "accepted" (the default) but rules.owner_emails is empty', url);
    const organized = occurrence.organizer !== undefined && owners.has(occurrence.organizer);
    const accepted = occurrence.attendees.find((a) => owners.has(a.email) && a.partstat === 'ACCEPTED');
    if (!organized && accepted === undefined)
      return skip('neither organized nor accepted by the owner (join: accepted)', url);
    why.push(organized ? `organized by ${occurrence.organizer}` : `accepted by ${accepted?.email}`);
  }
  if (rules.join === 'owner') {
    if (owners.size === 0) return skip('join is "owner" but rules.owner_emails is empty', url);
    if (occurrence.organizer === undefined || !owners.has(occurrence.organizer))
      return skip(`organized by ${occurrence.organizer ?? 'nobody named'}, not the owner (join: owner)`, url);
    why.push(`organized by ${occurrence.organizer}`);
  }
  if (rules.join === 'external') {
    const internal = new Set(
      (rules.internal_domains.length > 0 ? rules.internal_domains : [...owners].map(domainOf)).map((d) =>
        d.toLowerCase(),
      ),
    );
    if (internal.size === 0)
      return skip('join is "external" but neither internal_domains nor owner_emails is set', url);
    const external = [...people].filter((email) => !internal.has(domainOf(email)));
    if (external.length === 0) return skip('no attendee outside the internal domains (join: external)', url);
    why.push(`${external.length} external attendee(s), e.g. ${external[0]}`);
  }
  if (included !== undefined) why.push(`title contains "${included}"`);
  return { decision: 'join', meetingUrl: url, reason: why.join('; ') };
}
