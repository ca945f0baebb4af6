/**
 * The sample tenant's meetings, provider-neutral, dated from `now` in a zone that
 * observes daylight saving time: each seeder (google-seed.ts, microsoft-seed.ts)
 * writes the same plan into its simulator, so both sources show the same decisions.
 *
 * Five users; user 0 organizes most meetings:
 * - a weekly series (users 0–2) across a DST change of the zone (seriesAnchor), its
 *   last instance before the change moved an hour later and the next one (the first
 *   after the change) cancelled;
 * - an all-hands every user holds a copy of (same meeting: one bot expected);
 * - a meeting user 3 declined; a meeting with no link (user 4);
 * - a meeting (user 2) moved from the morning to later that day.
 */
import { createHash } from 'node:crypto';
import { addLocalDays, formatZoned, zonedToUtc } from '../simulator/google-calendar/zoned-time';

/** Zones both simulators know, with the name Outlook gives each (Graph events carry Windows zone names). */
export const DST_ZONES = [
  { iana: 'Europe/Berlin', windows: 'W. Europe Standard Time' },
  { iana: 'America/New_York', windows: 'Eastern Standard Time' },
] as const;

export type SampleZone = (typeof DST_ZONES)[number];

export type Response = 'accepted' | 'declined' | 'needsAction';

export interface PlannedMeeting {
  title: string;
  /** Index of the organizing user, or an outside address. */
  organizer: number | string;
  /** Users holding a copy in their calendar (the organizer's own copy included), each with their answer. */
  holders: ReadonlyArray<{ user: number; response: Response }>;
  /** Wall time in the plan's zone, `YYYY-MM-DDTHH:mm:ss`. */
  startLocal: string;
  durationMinutes: number;
  /** The meeting link (kind-neutral: each seeder picks its provider's link form). */
  link: boolean;
  /** Moved to this wall time after being created (a later change in the calendar's history). */
  movedToLocal?: string;
  /** A weekly series of `count` instances: instance `moved.index` shifted to `moved.startLocal`, instance `cancelled` cancelled. */
  weekly?: { count: number; moved: { index: number; startLocal: string }; cancelled: number };
}

export interface SamplePlan {
  zone: SampleZone;
  /** The instant of the zone's DST change the series crosses: ahead when one comes within 150 days, else the last one. */
  dstChangeMs: number;
  meetings: PlannedMeeting[];
  /** Days from `now` that cover every planned instance: the lookahead the sample calendars are registered with. */
  lookaheadDays: number;
  /** Instances each user's calendar shows in [now, now + lookaheadDays] (cancelled ones excluded). */
  instancesPerUser: number[];
}

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
/** How far ahead a DST change may be for the series to cross it inside the lookahead (at most 180 days). */
const AHEAD_DAYS = 150;
const USERS = 5;
/** The calendar API's longest lookahead. */
const MAX_LOOKAHEAD_DAYS = 180;

/** The zone's UTC offset at an instant, in minutes (from its RFC 3339 rendering). */
function offsetMinutes(instantMs: number, iana: string): number {
  const match = /([+-])(\d{2}):(\d{2})$/.exec(formatZoned(instantMs, iana));
  if (match === null) return 0;
  const minutes = Number(match[2]) * 60 + Number(match[3]);
  return match[1] === '-' ? -minutes : minutes;
}

/**
 * The first instant (to the hour) at which the zone's offset differs from its offset at `fromMs`,
 * looking forward (`step` 1) or back (`step` -1) up to a year; undefined for a zone without changes.
 */
export function offsetChange(fromMs: number, iana: string, step: 1 | -1): number | undefined {
  const start = offsetMinutes(fromMs, iana);
  let day = Math.floor(fromMs / HOUR_MS) * HOUR_MS;
  for (let i = 0; i < 366; i += 1, day += step * DAY_MS) {
    if (offsetMinutes(day + step * DAY_MS, iana) === start) continue;
    let hour = day;
    while (offsetMinutes(hour + step * HOUR_MS, iana) === start) hour += step * HOUR_MS;
    // Forward: the first hour on the new offset; back: the first hour on the current one.
    return step === 1 ? hour + HOUR_MS : hour;
  }
  return undefined;
}

/** Local date (`YYYY-MM-DD`) in the zone at an instant. */
const localDate = (instantMs: number, iana: string) => formatZoned(instantMs, iana).slice(0, 10);

/**
 * The DST change the series crosses: the next one of either zone when it comes within
 * AHEAD_DAYS (the series then runs from tomorrow past it, all within the lookahead),
 * otherwise the last one (the series then started weeks before it, and its moved and
 * cancelled instances are history; what is ahead are its regular instances).
 */
function seriesAnchor(now: number): { zone: SampleZone; change: number; firstLocal: string; tomorrowLocal: string } {
  const options = DST_ZONES.map((zone) => {
    const tomorrowLocal = addLocalDays(`${localDate(now, zone.iana)}T10:00:00`, 1);
    const next = offsetChange(zonedToUtc(tomorrowLocal, zone.iana), zone.iana, 1) ?? Number.POSITIVE_INFINITY;
    const last = offsetChange(now, zone.iana, -1) ?? Number.NEGATIVE_INFINITY;
    return { zone, tomorrowLocal, next, last };
  });
  const ahead = options.filter((o) => o.next - now <= AHEAD_DAYS * DAY_MS).sort((a, b) => a.next - b.next)[0];
  if (ahead !== undefined) return { ...ahead, change: ahead.next, firstLocal: ahead.tomorrowLocal };
  const [behind] = options.sort((a, b) => b.last - a.last);
  if (behind === undefined) throw new Error('no zone to plan the series in');
  // Two weekly instances before the change (the second is the one moved), the rest after it up to tomorrow.
  let firstLocal = behind.tomorrowLocal;
  while (zonedToUtc(addLocalDays(firstLocal, 7), behind.zone.iana) >= behind.last)
    firstLocal = addLocalDays(firstLocal, -7);
  return { ...behind, change: behind.last, firstLocal };
}

export function samplePlan(now: number): SamplePlan {
  const { zone, change, firstLocal, tomorrowLocal } = seriesAnchor(now);
  const at = (day: number, time: string) => addLocalDays(`${localDate(now, zone.iana)}T${time}`, day);

  const instance = (index: number) => addLocalDays(firstLocal, 7 * index);
  let lastBefore = 0;
  while (zonedToUtc(instance(lastBefore + 1), zone.iana) < change) lastBefore += 1;
  // The moved instance is the last before the change, the cancelled one the next; when the change comes
  // before the second instance, both go after it, so one regular instance stays on each side.
  const moved = lastBefore >= 1 ? lastBefore : lastBefore + 1;
  const cancelled = moved + 1;
  const tomorrowIndex = Math.round((Date.parse(`${tomorrowLocal}Z`) - Date.parse(`${firstLocal}Z`)) / (7 * DAY_MS));
  // Two regular instances after the cancelled one, and at least three regular ones from tomorrow on.
  let count = cancelled + 3;
  const regularAhead = () =>
    Array.from({ length: count }, (_, i) => i).filter((i) => i >= tomorrowIndex && i !== moved && i !== cancelled)
      .length;
  while (regularAhead() < 3) count += 1;
  const movedLocal = instance(moved).replace('T10:00:00', 'T11:00:00');

  const everyone = Array.from({ length: USERS }, (_, user) => ({ user, response: 'accepted' as const }));
  const meetings: PlannedMeeting[] = [
    {
      title: 'Weekly team sync',
      organizer: 0,
      holders: [0, 1, 2].map((user) => ({ user, response: 'accepted' as const })),
      startLocal: firstLocal,
      durationMinutes: 30,
      link: true,
      weekly: {
        count,
        moved: { index: moved, startLocal: movedLocal },
        cancelled,
      },
    },
    {
      title: 'All hands',
      organizer: 0,
      holders: everyone,
      startLocal: at(2, '15:00:00'),
      durationMinutes: 45,
      link: true,
    },
    {
      title: 'Vendor pitch',
      organizer: 'sales@vendor.example',
      holders: [{ user: 3, response: 'declined' }],
      startLocal: at(1, '14:00:00'),
      durationMinutes: 30,
      link: true,
    },
    {
      title: 'Coffee chat',
      organizer: 4,
      holders: [{ user: 4, response: 'accepted' }],
      startLocal: at(1, '09:00:00'),
      durationMinutes: 15,
      link: false,
    },
    {
      title: 'Design review',
      organizer: 2,
      holders: [{ user: 2, response: 'accepted' }],
      startLocal: at(2, '10:00:00'),
      durationMinutes: 60,
      link: true,
      movedToLocal: at(2, '16:30:00'),
    },
  ];

  const lastEnd = zonedToUtc(instance(count - 1), zone.iana) + 30 * 60_000;
  const lookaheadDays = Math.min(MAX_LOOKAHEAD_DAYS, Math.ceil((lastEnd - now) / DAY_MS) + 1);
  const windowEnd = now + lookaheadDays * DAY_MS;
  const seriesAhead = Array.from({ length: count }, (_, i) => i)
    .filter((i) => i !== cancelled)
    .map((i) => zonedToUtc(i === moved ? movedLocal : instance(i), zone.iana))
    .filter((startMs) => startMs >= now && startMs < windowEnd).length;
  const instancesPerUser = Array.from({ length: USERS }, (_, user) =>
    meetings
      .filter((m) => m.holders.some((h) => h.user === user))
      .reduce((sum, m) => sum + (m.weekly === undefined ? 1 : seriesAhead), 0),
  );
  return { zone, dstChangeMs: change, meetings, lookaheadDays, instancesPerUser };
}

/** Ten letters naming a meeting's link, the same for the same title and provider: each seeder makes its link form from them. */
export function linkCode(title: string, provider: string): string {
  return Array.from(createHash('sha256').update(`${provider}|${title}`).digest().subarray(0, 10), (byte) =>
    String.fromCharCode(97 + (byte % 26)),
  ).join('');
}

/** A wall time moved by minutes (no zone: the seeders keep wall times). */
export function addLocalMinutes(local: string, minutes: number): string {
  return new Date(Date.parse(`${local}Z`) + minutes * 60_000).toISOString().slice(0, 19);
}
