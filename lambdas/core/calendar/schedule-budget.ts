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
          limit: 'schedules-per-day',
          reason: `${heldByDay} new meeting(s) wait for tomorrow (UTC): a calendar gets at most ${limits.perDay} new schedules a day`,
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
