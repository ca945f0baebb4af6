/**
 * Scheduled bots: one record per calendar event (schedule id), each version with
 * its own launcher execution. The same request again changes nothing; a new time
 * or link stops the old execution and starts a new version; cancelling stops it.
 * Once launched, the bot waits at the service in state `scheduled` until the
 * service starts it: moving then patches the bot and cancelling deletes it; a
 * bot the service already started cannot be moved or deleted, and the answer
 * (409) says so, as it does for a launched schedule whose meeting was erased (its
 * bot's id went with it). The schedule API and calendar events both call these.
 *
 * A calendar event may carry its calendar's ordering (calendar-events.ts): an
 * event older than the last one applied is ignored, checked by a conditional
 * write, so a late redelivery neither revives a cancelled meeting nor undoes a
 * newer change. Requests without one (the schedule API, unordered events) apply
 * as they come and leave the stored ordering as it is.
 */
import { createHash } from 'node:crypto';
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { type ApiErrorBody, apiError } from '../api-error';
import { recordMeetingCancelled } from '../apply/meeting-outcome-item';
import { recordLaunchedMeeting } from '../apply/state-change';
import { emitFinalOutcome } from '../outcome/outcome-metric';
import { required } from '../required';
import { type TableAccess, writeIfCondition } from '../store/dynamo';
import { keys } from '../store/table-layout';
import type { Telemetry } from '../telemetry';
import { BadRequestError, NotFoundError, type UpstreamClient } from '../upstream/client';
import type { UpdateBotRequest } from '../upstream/rest-contract';
import { describeIssues } from '../validation';
import type { Executions, LaunchInput } from './executions';
import {
  launchJitterMs,
  launchMetadata,
  launchMetadataProblem,
  launchTime,
  SCHEDULE_ID,
  type ScheduleRequest,
  type ScheduleTiming,
  scheduleRequestSchema,
} from './schedule-request';

export type ScheduleStatus = 'scheduled' | 'launching' | 'launched' | 'failed' | 'cancelled';

/** A move or cancel asked for while the launch was in flight; the launcher applies it once the bot exists. */
export type PendingChange = { kind: 'cancel' } | { kind: 'move'; request: ScheduleRequest; requestHash: string };

export interface Schedule {
  scheduleId: string;
  version: number;
  status: ScheduleStatus;
  meetingUrl: string;
  joinAt: string;
  launchAt: string;
  botName: string;
  metadata: Record<string, unknown>;
  requestHash: string;
  executionName: string;
  executionArn?: string;
  botId?: string;
  failureReason?: string;
  pendingChange?: PendingChange;
  /** Why a change asked for during the launch could not be made to the bot. */
  changeRefused?: string;
  /** The calendar ordering of the last calendar event applied (calendarEventOrder); kept when cancelled. */
  calendarOrder?: string;
}

/** A calendar cancellation seen before any upsert of its schedule: only its ordering is kept. */
interface CancellationOnly {
  scheduleId: string;
  version: 0;
  status: 'cancelled';
  calendarOrder: string;
}
type StoredSchedule = Schedule | CancellationOnly;

const isSchedule = (stored: StoredSchedule | undefined): stored is Schedule =>
  stored !== undefined && stored.version > 0;

/** The ordering of a calendar event (calendarEventOrder), or undefined: the schedule API and unordered events. */
type EventOrder = string | undefined;

/** The answer to a calendar event older than the last one applied to its schedule. */
export const OLDER_EVENT = 'older-event';
/** The answer to moving or cancelling a launched schedule whose meeting (and so its bot's id) was erased. */
export const BOT_ERASED = 'bot-erased';
/** The answer when other writers kept changing the schedule through every attempt: worth trying again later. */
export const CONCURRENT_UPDATE = 'concurrent-update';
/** A launched schedule's bot no longer exists at the service. */
export const BOT_GONE = 'bot-gone';

export interface ScheduleDependencies {
  table: TableAccess;
  executions: Executions;
  /** Moving or cancelling a launched bot goes to the service. */
  upstream: Pick<UpstreamClient, 'getBot' | 'updateBot' | 'deleteBot'>;
  timing: ScheduleTiming;
  telemetry: Telemetry;
  now(): number;
}

/** What moving or cancelling a launched bot needs. */
type ChangeDependencies = Pick<ScheduleDependencies, 'table' | 'upstream' | 'telemetry' | 'now'>;

export type ScheduleResult =
  | { status: 200 | 201 | 202; schedule: Schedule; message?: string }
  | { status: 400 | 404 | 409; error: ApiErrorBody['error'] };

const fail = (
  status: 400 | 404 | 409,
  code: string,
  message: string,
  extra?: { issues?: string[] },
): ScheduleResult => ({
  status,
  ...apiError(code, message, extra),
});

/** Step Functions names: 1–80 of [A-Za-z0-9-_]; calendar ids are not, so the id is hashed. */
export function executionName(scheduleId: string, version: number): string {
  return `schedule-${createHash('sha256').update(scheduleId).digest('hex').slice(0, 40)}-v${version}`;
}

async function readSchedule(scheduleId: string, deps: { table: TableAccess }): Promise<StoredSchedule | undefined> {
  const { Item } = await deps.table.db.send(
    new GetCommand({ TableName: deps.table.tableName, Key: keys.schedule(scheduleId), ConsistentRead: true }),
  );
  return Item as StoredSchedule | undefined;
}

export async function getSchedule(scheduleId: string, deps: { table: TableAccess }): Promise<Schedule | undefined> {
  const stored = await readSchedule(scheduleId, deps);
  return isSchedule(stored) ? stored : undefined;
}

/**
 * Takes this event's place in the calendar's order before anything else changes
 * (the service included); false when a newer event was applied first.
 */
async function claimOrder(scheduleId: string, order: string, deps: { table: TableAccess }): Promise<boolean> {
  return writeIfCondition(() =>
    deps.table.db.send(
      new UpdateCommand({
        TableName: deps.table.tableName,
        Key: keys.schedule(scheduleId),
        UpdateExpression: 'SET calendarOrder = :order',
        ConditionExpression:
          'attribute_exists(pk) AND (attribute_not_exists(calendarOrder) OR calendarOrder <= :order)',
        ExpressionAttributeValues: { ':order': order },
      }),
    ),
  );
}

/** A condition to add to a write after the claim: it holds while no newer calendar event was applied meanwhile. */
function orderGuard(order: EventOrder): { condition: string; values: Record<string, string> } {
  return order === undefined
    ? { condition: '', values: {} }
    : {
        condition: ' AND (attribute_not_exists(calendarOrder) OR calendarOrder <= :order)',
        values: { ':order': order },
      };
}

const olderEvent = (scheduleId: string): ScheduleResult =>
  fail(409, OLDER_EVENT, `A newer calendar event for schedule ${scheduleId} was applied already; this one is ignored.`);

/** Conflicting writers (a calendar event and an API call at once) are retried this many times in all. */
const CONCURRENT_UPDATE_ATTEMPTS = 3;

export async function upsertSchedule(
  scheduleId: string,
  body: unknown,
  deps: ScheduleDependencies,
  order?: EventOrder,
): Promise<ScheduleResult> {
  for (let attempt = 1; ; attempt++) {
    const result = await upsertOnce(scheduleId, body, deps, order);
    if (!('error' in result) || result.error.code !== CONCURRENT_UPDATE || attempt >= CONCURRENT_UPDATE_ATTEMPTS)
      return result;
  }
}

async function upsertOnce(
  scheduleId: string,
  body: unknown,
  deps: ScheduleDependencies,
  order: EventOrder,
): Promise<ScheduleResult> {
  if (!SCHEDULE_ID.test(scheduleId))
    return fail(
      400,
      'invalid-schedule-id',
      'The schedule id must be 1–200 characters without spaces, slashes or control characters.',
    );
  const parsed = scheduleRequestSchema.safeParse(body);
  if (!parsed.success) {
    const issues = describeIssues(parsed.error, '(body)');
    return fail(400, 'invalid-schedule', issues.join('; '), { issues });
  }
  const request = parsed.data;
  const joinAt = new Date(request.join_at).toISOString();
  const timing = launchTime(
    Date.parse(joinAt),
    deps.now(),
    deps.timing,
    launchJitterMs(scheduleId, deps.timing.jitterMs),
  );
  if (!timing.ok) return fail(400, 'invalid-join-time', timing.message);
  const requestHash = createHash('sha256')
    .update(JSON.stringify([request.meeting_url, joinAt, request.bot_name, request.metadata]))
    .digest('hex');

  const stored = await readSchedule(scheduleId, deps);
  if (order !== undefined && stored !== undefined && !(await claimOrder(scheduleId, order, deps)))
    return olderEvent(scheduleId);
  const existing = isSchedule(stored) ? stored : undefined;
  if (existing?.status === 'launching') {
    if (existing.requestHash === requestHash && existing.pendingChange === undefined)
      return { status: 200, schedule: existing };
    const change: PendingChange = { kind: 'move', request: { ...request, join_at: joinAt }, requestHash };
    return recordPendingChange(existing, change, deps, order);
  }
  if (existing?.status === 'launched') {
    if (existing.requestHash === requestHash) return { status: 200, schedule: existing };
    return moveLaunchedBot(existing, { ...request, join_at: joinAt }, requestHash, deps, order);
  }
  if (existing?.status === 'scheduled' && existing.requestHash === requestHash) {
    // The same request again: nothing changes, but make sure its execution runs (a start may have failed).
    return { status: 200, schedule: await ensureStarted(existing, deps) };
  }

  const version = (stored?.version ?? 0) + 1;
  const calendarOrder = order ?? stored?.calendarOrder;
  const tooLong = launchMetadataProblem(launchMetadata(request.metadata, scheduleId, version));
  if (tooLong !== undefined) return fail(400, 'invalid-schedule', tooLong);
  const schedule: Schedule = {
    scheduleId,
    version,
    status: 'scheduled',
    meetingUrl: request.meeting_url,
    joinAt,
    // Step Functions' TimestampPath takes RFC 3339 with a Z; whole seconds keep it plain.
    launchAt: new Date(Math.ceil(timing.launchAtMs / 1000) * 1000).toISOString().replace('.000Z', 'Z'),
    botName: request.bot_name,
    metadata: request.metadata,
    requestHash,
    executionName: executionName(scheduleId, version),
    ...(calendarOrder !== undefined && { calendarOrder }),
  };
  const guard = orderGuard(order);
  const written = await writeIfCondition(() =>
    deps.table.db.send(
      new PutCommand({
        TableName: deps.table.tableName,
        Item: { ...keys.schedule(scheduleId), ...schedule },
        // Not over a launch that began meanwhile: that one takes the change as pending (a retry sees it).
        ConditionExpression:
          stored === undefined
            ? 'attribute_not_exists(pk)'
            : `version = :previous AND #status <> :launching AND #status <> :launched${guard.condition}`,
        ...(stored !== undefined && {
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':previous': stored.version,
            ':launching': 'launching',
            ':launched': 'launched',
            ...guard.values,
          },
        }),
      }),
    ),
  );
  if (!written) return fail(409, CONCURRENT_UPDATE, 'The schedule changed while this request ran; send it again.');
  // Stopped only once the new version is written: a write that lost leaves the old one running, and an
  // old execution that is not stopped launches nothing (its version is no longer the schedule's).
  if (existing?.status === 'scheduled' && existing.executionArn !== undefined)
    await deps.executions.stop(existing.executionArn);
  deps.telemetry.log.info('schedule saved', { schedule_id: scheduleId, version, launch_at: schedule.launchAt });
  return { status: existing === undefined ? 201 : 200, schedule: await ensureStarted(schedule, deps) };
}

/** What the launcher execution of this schedule version is started with. */
export function launchInputOf(schedule: Schedule): LaunchInput {
  return {
    scheduleId: schedule.scheduleId,
    version: schedule.version,
    launchAt: schedule.launchAt,
    joinAt: schedule.joinAt,
  };
}

async function ensureStarted(schedule: Schedule, deps: ScheduleDependencies): Promise<Schedule> {
  const { executionArn } = await deps.executions.start(schedule.executionName, launchInputOf(schedule));
  if (schedule.executionArn === executionArn) return schedule;
  await writeIfCondition(() =>
    deps.table.db.send(
      new UpdateCommand({
        TableName: deps.table.tableName,
        Key: keys.schedule(schedule.scheduleId),
        UpdateExpression: 'SET executionArn = :arn',
        ConditionExpression: 'version = :version',
        ExpressionAttributeValues: { ':arn': executionArn, ':version': schedule.version },
      }),
    ),
  );
  return { ...schedule, executionArn };
}

export async function cancelSchedule(
  scheduleId: string,
  deps: ScheduleDependencies,
  order?: EventOrder,
): Promise<ScheduleResult> {
  const stored = await readSchedule(scheduleId, deps);
  if (stored === undefined && order !== undefined) return keepCancellation(scheduleId, order, deps);
  if (order !== undefined && stored !== undefined && !(await claimOrder(scheduleId, order, deps)))
    return olderEvent(scheduleId);
  if (!isSchedule(stored)) return fail(404, 'not-found', `No schedule ${scheduleId}.`);
  const existing = stored;
  if (existing.status === 'launched') return cancelLaunchedBot(existing, deps, order);
  if (existing.status === 'launching') return recordPendingChange(existing, { kind: 'cancel' }, deps, order);
  if (existing.status === 'cancelled') return { status: 200, schedule: existing };
  const guard = orderGuard(order);
  const cancelled = await writeIfCondition(() =>
    deps.table.db.send(
      new UpdateCommand({
        TableName: deps.table.tableName,
        Key: keys.schedule(scheduleId),
        UpdateExpression: 'SET #status = :cancelled',
        ConditionExpression: `version = :version AND #status <> :launched AND #status <> :launching${guard.condition}`,
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':cancelled': 'cancelled',
          ':version': existing.version,
          ':launched': 'launched',
          ':launching': 'launching',
          ...guard.values,
        },
      }),
    ),
  );
  // It launched, moved or got a newer calendar event meanwhile: answer from the new state.
  if (!cancelled) return cancelSchedule(scheduleId, deps, order);
  // Stopped once cancelled: an execution left running by a crash here launches nothing for a cancelled schedule.
  if (existing.executionArn !== undefined) await deps.executions.stop(existing.executionArn);
  deps.telemetry.log.info('schedule cancelled', { schedule_id: scheduleId, version: existing.version });
  return { status: 200, schedule: { ...existing, status: 'cancelled' } };
}

/** A calendar cancellation before any upsert of its schedule: kept, so an older upsert delivered later stays out. */
async function keepCancellation(
  scheduleId: string,
  order: string,
  deps: ScheduleDependencies,
): Promise<ScheduleResult> {
  const cancellation: CancellationOnly = { scheduleId, version: 0, status: 'cancelled', calendarOrder: order };
  const kept = await writeIfCondition(() =>
    deps.table.db.send(
      new PutCommand({
        TableName: deps.table.tableName,
        Item: { ...keys.schedule(scheduleId), ...cancellation },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    ),
  );
  if (!kept) return cancelSchedule(scheduleId, deps, order); // created meanwhile: cancel that
  deps.telemetry.log.info('cancellation kept for a schedule not seen yet', { schedule_id: scheduleId });
  return fail(404, 'not-found', `No schedule ${scheduleId}; its cancellation is kept against older upserts.`);
}

/**
 * A launch is in flight: the change waits on the schedule and the launcher makes
 * it once the bot exists. If the launch finished meanwhile, answer from there.
 */
async function recordPendingChange(
  existing: Schedule,
  change: PendingChange,
  deps: ScheduleDependencies,
  order: EventOrder,
): Promise<ScheduleResult> {
  const guard = orderGuard(order);
  const recorded = await writeIfCondition(() =>
    deps.table.db.send(
      new UpdateCommand({
        TableName: deps.table.tableName,
        Key: keys.schedule(existing.scheduleId),
        UpdateExpression: 'SET pendingChange = :change',
        ConditionExpression: `version = :version AND #status = :launching${guard.condition}`,
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':change': change,
          ':version': existing.version,
          ':launching': 'launching',
          ...guard.values,
        },
      }),
    ),
  );
  if (!recorded) {
    return change.kind === 'cancel'
      ? cancelSchedule(existing.scheduleId, deps, order)
      : upsertOnce(existing.scheduleId, change.request, deps, order);
  }
  deps.telemetry.log.info('change waits for the launch in flight', {
    schedule_id: existing.scheduleId,
    change: change.kind,
  });
  return {
    status: 202,
    schedule: { ...existing, pendingChange: change },
    message: `A bot is being launched for this schedule; it will be ${change.kind === 'cancel' ? 'deleted' : 'updated'} as soon as it exists (see the schedule's status).`,
  };
}

/** The launcher's part: make the change asked for during its launch, or record why it could not. */
/**
 * Makes the change asked for while the launch ran, on the launched bot. The change stays on the
 * schedule until the write that records its outcome (the move, the cancel, or why it was refused)
 * removes it, so a launch that fails midway finds it again on its retry.
 */
export async function applyPendingChange(
  launched: Schedule,
  change: PendingChange,
  deps: ChangeDependencies,
): Promise<void> {
  const result =
    change.kind === 'cancel'
      ? await cancelLaunchedBot(launched, deps)
      : await moveLaunchedBot(launched, change.request, change.requestHash, deps);
  if (!('error' in result)) return;
  deps.telemetry.log.warn('change asked for during the launch not made', {
    schedule_id: launched.scheduleId,
    change: change.kind,
    reason: result.error.message,
  });
  await deps.table.db.send(
    new UpdateCommand({
      TableName: deps.table.tableName,
      Key: keys.schedule(launched.scheduleId),
      UpdateExpression: 'SET changeRefused = :reason REMOVE pendingChange',
      ExpressionAttributeValues: { ':reason': result.error.message },
    }),
  );
}

/**
 * The launched bot is gone at the service. A cancel that ran meanwhile deleted it (found by the
 * schedule interleaving test): the request is answered as any that lost a race, and sent again it
 * sees the cancelled schedule. Otherwise it was deleted at the service, and no change can reach it.
 */
async function botGoneProblem(existing: Schedule, deps: ChangeDependencies): Promise<ScheduleResult> {
  const now = await readSchedule(existing.scheduleId, deps);
  if (!isSchedule(now) || now.version !== existing.version || now.status !== existing.status)
    return fail(409, CONCURRENT_UPDATE, 'The schedule changed while this request ran; send it again.');
  return fail(
    409,
    BOT_GONE,
    `Bot ${existing.botId} of schedule ${existing.scheduleId} no longer exists at the service (deleted there), so it cannot be moved; use a new schedule id for a new bot.`,
  );
}

/** Why a launched bot cannot change any more, or undefined while the service still holds it as `scheduled`. */
async function startedBotProblem(schedule: Schedule, deps: ChangeDependencies): Promise<ScheduleResult | undefined> {
  const botId = schedule.botId;
  // Erasure removes a launched schedule's link to its bot and keeps the schedule (it is the caller's).
  if (botId === undefined)
    return fail(
      409,
      BOT_ERASED,
      `The meeting of schedule ${schedule.scheduleId} was erased, and with it the id of the bot it launched, so that bot can be neither moved nor deleted from here; if it still waits at the service, delete it there, and use a new schedule id for a new bot.`,
    );
  let state: string | undefined;
  try {
    state = (await deps.upstream.getBot(botId)).state;
  } catch (error) {
    if (error instanceof NotFoundError) return undefined; // gone already: nothing to protect
    throw error;
  }
  if (state === 'scheduled') return undefined;
  return fail(
    409,
    'bot-started',
    `Bot ${botId} is already ${state ?? 'started'} at the service, which changes or deletes only scheduled bots; ask it to leave the meeting with the service if it must, and use a new schedule id for a new bot.`,
  );
}

/** A launched schedule changed: patch its bot while the service still holds it as scheduled. */
async function moveLaunchedBot(
  existing: Schedule,
  request: ScheduleRequest,
  requestHash: string,
  deps: ChangeDependencies,
  order?: EventOrder,
): Promise<ScheduleResult> {
  const refused = await startedBotProblem(existing, deps);
  if (refused !== undefined) return refused;
  const metadata = launchMetadata(request.metadata, existing.scheduleId, existing.version);
  const tooLong = launchMetadataProblem(metadata);
  if (tooLong !== undefined) return fail(400, 'invalid-schedule', tooLong);
  const changes: UpdateBotRequest = { metadata };
  if (request.join_at !== existing.joinAt) {
    // The service refuses a join_at in the past; a bot due now would have to be started instead.
    if (Date.parse(request.join_at) <= deps.now())
      return fail(
        409,
        'join-time-past',
        `Bot ${existing.botId} waits at the service for ${existing.joinAt}; it cannot be moved to a time already past.`,
      );
    changes.join_at = request.join_at;
  }
  if (request.meeting_url !== existing.meetingUrl) changes.meeting_url = request.meeting_url;
  if (request.bot_name !== existing.botName) changes.bot_name = request.bot_name;
  try {
    await deps.upstream.updateBot(required(existing.botId, `schedule ${existing.scheduleId} bot id`), changes);
  } catch (error) {
    // Started between our look and the patch: report it like any started bot.
    const started = error instanceof BadRequestError ? await startedBotProblem(existing, deps) : undefined;
    if (started !== undefined) return started;
    if (error instanceof NotFoundError) return botGoneProblem(existing, deps);
    throw error;
  }
  const moved: Schedule = {
    ...existing,
    joinAt: request.join_at,
    meetingUrl: request.meeting_url,
    botName: request.bot_name,
    metadata: request.metadata,
    requestHash,
  };
  const guard = orderGuard(order);
  await writeIfCondition(() =>
    deps.table.db.send(
      new UpdateCommand({
        TableName: deps.table.tableName,
        Key: keys.schedule(existing.scheduleId),
        UpdateExpression:
          'SET joinAt = :joinAt, meetingUrl = :url, botName = :name, metadata = :metadata, requestHash = :hash REMOVE pendingChange',
        ConditionExpression: `version = :version AND #status = :launched${guard.condition}`,
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':joinAt': moved.joinAt,
          ':url': moved.meetingUrl,
          ':name': moved.botName,
          ':metadata': moved.metadata,
          ':hash': requestHash,
          ':version': existing.version,
          ':launched': 'launched',
          ...guard.values,
        },
      }),
    ),
  );
  // The meeting follows: its join time (and link), and so when the reconciler first looks at it if it stays silent.
  await recordLaunchedMeeting(deps.table, {
    botId: required(existing.botId, `schedule ${existing.scheduleId} bot id`),
    scheduleId: existing.scheduleId,
    joinAt: moved.joinAt,
    meetingUrl: moved.meetingUrl,
    state: 'scheduled', // what startedBotProblem found: only a scheduled bot is moved
  });
  deps.telemetry.log.info('launched bot moved', {
    schedule_id: existing.scheduleId,
    bot_id: existing.botId,
    changed: Object.keys(changes),
  });
  return { status: 200, schedule: moved, message: `Bot ${existing.botId} was updated at the service.` };
}

/** A launched schedule cancelled: delete its bot while the service still holds it as scheduled. */
async function cancelLaunchedBot(
  existing: Schedule,
  deps: ChangeDependencies,
  order?: EventOrder,
): Promise<ScheduleResult> {
  const refused = await startedBotProblem(existing, deps);
  if (refused !== undefined) return refused;
  const botId = required(existing.botId, `schedule ${existing.scheduleId} bot id`);
  try {
    await deps.upstream.deleteBot(botId);
  } catch (error) {
    const started = error instanceof BadRequestError ? await startedBotProblem(existing, deps) : undefined;
    if (started !== undefined) return started;
    if (!(error instanceof NotFoundError)) throw error;
  }
  // Before the schedule's write: a cancel retried after a crash here finds the schedule still launched.
  const refreshed = await recordMeetingCancelled(deps.table, botId, new Date(deps.now()).toISOString());
  if (refreshed?.becameFinal === true) emitFinalOutcome(deps.telemetry.metrics, refreshed.outcome);
  const guard = orderGuard(order);
  await writeIfCondition(() =>
    deps.table.db.send(
      new UpdateCommand({
        TableName: deps.table.tableName,
        Key: keys.schedule(existing.scheduleId),
        UpdateExpression: 'SET #status = :cancelled REMOVE pendingChange',
        ConditionExpression: `version = :version${guard.condition}`,
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':cancelled': 'cancelled', ':version': existing.version, ...guard.values },
      }),
    ),
  );
  deps.telemetry.log.info('launched bot deleted', { schedule_id: existing.scheduleId, bot_id: existing.botId });
  return {
    status: 200,
    schedule: { ...existing, status: 'cancelled' },
    message: `Bot ${existing.botId} was deleted at the service before it started.`,
  };
}
