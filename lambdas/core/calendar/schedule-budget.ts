/**
 * How many new schedules a calendar may make: at most `perSync` in one sync and
 * `perDay` in a UTC day. Every new schedule is a launcher execution and a bot the
 * service bills, and anyone can put events into a calendar, so a flood of
 * invites waits (soonest first, the rest at later syncs) instead of becoming
 * bots. The day's count is a conditional counter item in the calendar's own key
 * space, so concurrent syncs (the schedule and an on-demand one) share it.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { type TableAccess, writeIfCondition } from '../store/dynamo';
import { keys, TTL_ATTRIBUTE } from '../store/table-layout';
import type { LimitReached } from './calendar-limits';
import type { Occurrence } from './ics-occurrences';

export interface ScheduleLimits {
  /** New schedules one sync makes at most (`calendarMaxNewSchedulesPerSync`). */
  perSync: number;
  /** New schedules one calendar makes in a UTC day at most (`calendarMaxNewSchedulesPerDay`). */
  perDay: number;
}

/** The defaults of lib/config.ts, for wiring without a deployment (local mode, tests). */
export const DEFAULT_SCHEDULE_LIMITS: ScheduleLimits = { perSync: 50, perDay: 200 };

/**
 * New schedules all the users of one company calendar make in a UTC day together
 * (`calendarMaxNewSchedulesPerSourceDay`): each user's own budget above holds one
 * calendar, this holds the source, so an invite flood sent to every employee waits
 * instead of becoming users × perSync bots. Sized for 1,000 users: a first sync of
 * 20 meetings each, shared by a few attendees, fits in a day or two.
 */
export const DEFAULT_SOURCE_SCHEDULES_PER_DAY = 5_000;

/** The day counter's limit and whose it is, as a reached limit names them. */
interface DayCounter {
  limit: 'schedules-per-day' | 'schedules-per-source-day';
  /** "a calendar", "a company calendar's users together". */
  holder: string;
}
const CALENDAR_DAY: DayCounter = { limit: 'schedules-per-day', holder: 'a calendar gets' };

/** A day's counter outlives its day by this much, then the table's TTL removes it. */
const COUNTER_KEPT_MS = 2 * 86_400_000;

export interface ScheduleBudget {
  /**
   * Whether one more new schedule may be made for this occurrence; counts it when so. Asked only
   * when a schedule is about to be made (the meeting's claim won, no schedule yet), so an occurrence
   * another calendar covers, or one unchanged, never spends it.
   */
  admit(occurrence: Occurrence): Promise<boolean>;
  /** Gives back what admit counted when the schedule could not be made after all (retried next sync). */
  refund(): Promise<void>;
  /** The limits reached so far, with how many occurrences each held back. */
  limits(): LimitReached[];
  /** Occurrences held back for a later sync. */
  deferred(): number;
}

export function scheduleBudget(
  calendarId: string,
  limits: ScheduleLimits,
  table: TableAccess,
  nowMs: number,
  counter: DayCounter = CALENDAR_DAY,
): ScheduleBudget {
  const day = new Date(nowMs).toISOString().slice(0, 10);
  let admitted = 0;
  let heldBySync = 0;
  let heldByDay = 0;
  let dayFull = false;
  const takeFromDay = () =>
    writeIfCondition(() =>
      table.db.send(
        new UpdateCommand({
          TableName: table.tableName,
          Key: keys.calendarNewSchedules(calendarId, day),
          UpdateExpression: 'ADD made :one SET #ttl = if_not_exists(#ttl, :expires)',
          ConditionExpression: 'attribute_not_exists(made) OR made < :max',
          ExpressionAttributeNames: { '#ttl': TTL_ATTRIBUTE },
          ExpressionAttributeValues: {
            ':one': 1,
            ':max': limits.perDay,
            ':expires': Math.floor((nowMs + COUNTER_KEPT_MS) / 1000),
          },
        }),
      ),
    );
  return {
    async admit() {
      if (admitted >= limits.perSync) {
        heldBySync++;
        return false;
      }
      if (dayFull || !(await takeFromDay())) {
        dayFull = true;
        heldByDay++;
        return false;
      }
      admitted++;
      return true;
    },
    limits() {
      const reached: LimitReached[] = [];
      if (heldBySync > 0)
        reached.push({
          limit: 'schedules-per-sync',
          reason: `${heldBySync} new meeting(s) wait for a later sync: a sync makes at most ${limits.perSync} new schedules (soonest first)`,
        });
      if (heldByDay > 0)
        reached.push({
          limit: counter.limit,
          reason: `${heldByDay} new meeting(s) wait for tomorrow (UTC): ${counter.holder} at most ${limits.perDay} new schedules a day`,
        });
      return reached;
    },
    async refund() {
      admitted--;
      await table.db
        .send(
          new UpdateCommand({
            TableName: table.tableName,
            Key: keys.calendarNewSchedules(calendarId, day),
            UpdateExpression: 'ADD made :minusOne',
            ConditionExpression: 'made > :zero',
            ExpressionAttributeValues: { ':minusOne': -1, ':zero': 0 },
          }),
        )
        .catch(() => undefined);
    },
    deferred: () => heldBySync + heldByDay,
  };
}

/**
 * The budget of one company user's sync: the user's own (per sync, per day, under
 * the user's scope) and the source's day counter (under the calendar id), which
 * every user of the source shares. A schedule is made only when both admit it.
 */
export function companyUserBudget(
  scopeId: string,
  calendarId: string,
  limits: ScheduleLimits,
  sourcePerDay: number,
  table: TableAccess,
  nowMs: number,
): ScheduleBudget {
  const user = scheduleBudget(scopeId, limits, table, nowMs);
  const source = scheduleBudget(calendarId, { perSync: Number.POSITIVE_INFINITY, perDay: sourcePerDay }, table, nowMs, {
    limit: 'schedules-per-source-day',
    holder: "a company calendar's users get together",
  });
  return {
    async admit(occurrence) {
      if (!(await user.admit(occurrence))) return false;
      if (await source.admit(occurrence)) return true;
      await user.refund();
      return false;
    },
    async refund() {
      await Promise.all([user.refund(), source.refund()]);
    },
    limits: () => [...user.limits(), ...source.limits()],
    deferred: () => user.deferred() + source.deferred(),
  };
}
