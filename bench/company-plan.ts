/**
 * The company calendars the scale bench syncs: `users` people, each with 20
 * instances in the lookahead, laid out the same on both providers: 4 one-off
 * meetings of their own, a weekly series of their own (2 instances), 10 meetings
 * shared with four colleagues (five attendees, all accepted: one bot each), and 4
 * invitations they declined (a copy of a colleague's one-off). Every meeting has
 * a link of its own, so what one bot per meeting means is exact: the schedules a
 * first sync makes are `expectedSchedules`.
 */

export interface PlannedHolder {
  user: number;
  response: 'organizer' | 'accepted' | 'declined';
}

export interface BenchMeeting {
  /** Unique in the plan. */
  key: string;
  organizer: number;
  /** Whose calendars hold it: the organizer first. */
  holders: PlannedHolder[];
  startMs: number;
  durationMinutes: number;
  /** A weekly series with this many instances. */
  weeklyCount?: number;
}

export interface BenchPlan {
  users: number;
  meetings: BenchMeeting[];
  /** One bot per meeting instance the default rules (`join: accepted`) take. */
  expectedSchedules: number;
  /** Instances in each user's calendar. */
  instancesPerUser: number;
}

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
export const ONE_OFFS = 4;
const SHARED_PER_GROUP = 10;
const GROUP = 5;
const DECLINED = 4;

/** The plan for `users` people (a multiple of five), every meeting between `t0` and 13 days after it. */
export function benchPlan(users: number, t0: number): BenchPlan {
  if (users % GROUP !== 0 || users < GROUP) throw new RangeError(`users must be a multiple of ${GROUP}`);
  const meetings: BenchMeeting[] = [];
  // Spread over 13 days and the working hours, so no two of one person's meetings share a slot.
  const slot = (user: number, n: number) => t0 + ((user + n) % 13) * DAY + (n % 10) * HOUR + (user % 4) * 15 * 60_000;
  for (let user = 0; user < users; user++) {
    const decliner = (user + users - 1) % users;
    for (let k = 0; k < ONE_OFFS; k++)
      meetings.push({
        key: `one-off-${user}-${k}`,
        organizer: user,
        holders: [
          { user, response: 'organizer' },
          { user: decliner, response: 'declined' },
        ],
        startMs: slot(user, k),
        durationMinutes: 30,
      });
    meetings.push({
      key: `weekly-${user}`,
      organizer: user,
      holders: [{ user, response: 'organizer' }],
      startMs: t0 + (user % 6) * DAY + 4 * HOUR + 30 * 60_000,
      durationMinutes: 30,
      weeklyCount: 2,
    });
  }
  for (let group = 0; group < users / GROUP; group++)
    for (let k = 0; k < SHARED_PER_GROUP; k++) {
      const members = Array.from({ length: GROUP }, (_, i) => group * GROUP + i);
      const organizer = members[k % GROUP] as number;
      meetings.push({
        key: `shared-${group}-${k}`,
        organizer,
        holders: [organizer, ...members.filter((m) => m !== organizer)].map((m) => ({
          user: m,
          response: m === organizer ? 'organizer' : 'accepted',
        })),
        startMs: t0 + (k % 13) * DAY + 11 * HOUR + (k % 3) * 2 * HOUR + (group % 2) * 30 * 60_000,
        durationMinutes: 45,
      });
    }
  const instancesPerUser = ONE_OFFS + 2 + SHARED_PER_GROUP + DECLINED;
  const expectedSchedules = users * (ONE_OFFS + 2) + (users / GROUP) * SHARED_PER_GROUP;
  return { users, meetings, expectedSchedules, instancesPerUser };
}

/** Ten letters naming meeting `n` of the plan: distinct for distinct `n`, the same in every copy. */
export function meetingCode(n: number): string {
  let code = '';
  let value = n;
  for (let i = 0; i < 10; i++) {
    code = String.fromCharCode(97 + (value % 26)) + code;
    value = Math.floor(value / 26);
  }
  return code;
}

/** UTC wall time `YYYY-MM-DDTHH:mm:ss`, as both simulators take it with the zone `UTC`. */
export const utcWall = (ms: number): string => new Date(ms).toISOString().slice(0, 19);
