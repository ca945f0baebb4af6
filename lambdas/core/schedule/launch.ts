/**
 * The launcher's task: at launch time, create the bot with a deduplication key
 * per schedule version, and record its id on the schedule and on the meeting,
 * so the bot's webhooks join up with it. A stale execution (the schedule moved
 * or was cancelled) does nothing.
 *
 * The bot is created ahead of time with `join_at` and the service starts it
 * itself; a join time already (nearly) past is launched without one, as the
 * service refuses a `join_at` in the past. A reused deduplication key is a 400
 * from the service, not the old bot, so after an answer we may have lost (a
 * timeout, a 5xx) or that 400, the bot is looked up by its key and adopted.
 *
 * The launch takes the schedule first (`launching`, for its version), so a move
 * or cancel arriving meanwhile is recorded as a pending change instead of racing
 * it, and applied here once the bot exists (PATCH or DELETE, or why not). The bot
 * id is recorded before anything else can fail; a retried launch finds the
 * schedule launching (or launched) and adopts the same bot by its key.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { recordLaunchedMeeting } from '../apply/state-change';
import { type DomainEvent, domainEvents } from '../domain-events/catalogue';
import type { DomainEventPublisher } from '../domain-events/publisher';
import { required } from '../required';
import { type TableAccess, writeIfCondition } from '../store/dynamo';
import { keys } from '../store/table-layout';
import { METRICS, type Telemetry } from '../telemetry';
import {
  BadRequestError,
  ConcurrencyLimitError,
  RateLimitedError,
  type UpstreamClient,
  UpstreamError,
} from '../upstream/client';
import { type Bot, type CreateBotRequest, DEDUPLICATION_CONFLICT } from '../upstream/rest-contract';
import type { LaunchInput } from './executions';
import { launchMetadata } from './schedule-request';
import { applyPendingChange, getSchedule, type PendingChange, type Schedule } from './schedules';

export interface LaunchDependencies {
  table: TableAccess;
  upstream: Pick<UpstreamClient, 'createBot' | 'findBotByDeduplicationKey' | 'getBot' | 'updateBot' | 'deleteBot'>;
  /** `schedule.launched` and `schedule.failed` go here. */
  events: DomainEventPublisher;
  telemetry: Telemetry;
  now?: () => number;
  /** A join time less than this far ahead is launched without `join_at` (it could be past when the POST lands). */
  joinAtMarginMs?: number;
}

/** Covers the client's own retries of one POST (timeouts and backoff). */
export const DEFAULT_JOIN_AT_MARGIN_MS = 90_000;

export type LaunchResult = { status: 'launched'; botId: string } | { status: 'skipped'; reason: string };

export async function launchScheduledBot(input: LaunchInput, deps: LaunchDependencies): Promise<LaunchResult> {
  const now = deps.now?.() ?? Date.now();
  let taken: Schedule | undefined;
  await writeIfCondition(async () => {
    const { Attributes } = await deps.table.db.send(
      new UpdateCommand({
        TableName: deps.table.tableName,
        Key: keys.schedule(input.scheduleId),
        UpdateExpression: 'SET #status = :launching, launchingSince = :now',
        // A retry of this version's launch finds it launching already, and goes on.
        ConditionExpression: 'version = :version AND (#status = :scheduled OR #status = :launching)',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':launching': 'launching',
          ':scheduled': 'scheduled',
          ':version': input.version,
          ':now': new Date(now).toISOString(),
        },
        ReturnValues: 'ALL_NEW', // the link, name and metadata: not in the execution's input (executions.ts)
      }),
    );
    taken = Attributes as Schedule;
  });
  if (taken === undefined) {
    const schedule = await getSchedule(input.scheduleId, deps);
    // Launched by an earlier attempt of this very launch (it failed after recording the bot).
    if (schedule?.status === 'launched' && schedule.version === input.version && schedule.botId !== undefined) {
      // It may have failed before recording the meeting; recording it again changes nothing.
      const { botId } = schedule;
      await recordLaunchedMeeting(deps.table, { botId, ...meetingOf(input, schedule), state: undefined });
      // The attempt that recorded it may have failed before publishing (the same event id)…
      await deps.events.publish([launchedEvent(input, botId)]);
      // …or before making the change asked for during the launch.
      if (schedule.pendingChange !== undefined)
        await applyPendingChange(schedule, schedule.pendingChange, { ...deps, now: () => deps.now?.() ?? Date.now() });
      return { status: 'launched', botId };
    }
    return {
      status: 'skipped',
      reason: `schedule ${input.scheduleId} v${input.version} is no longer due (${schedule?.status ?? 'gone'}, v${schedule?.version ?? '-'})`,
    };
  }
  const request: CreateBotRequest = {
    meeting_url: taken.meetingUrl,
    bot_name: taken.botName,
    metadata: launchMetadata(taken.metadata, input.scheduleId, input.version),
    deduplication_key: `${input.scheduleId}:v${input.version}`,
  };
  if (Date.parse(input.joinAt) - now > (deps.joinAtMarginMs ?? DEFAULT_JOIN_AT_MARGIN_MS))
    request.join_at = input.joinAt;
  const bot = await createOrAdopt(request, deps);
  // First thing after the POST: the bot id, taking any change asked for during the launch.
  const { Attributes: before } = await deps.table.db.send(
    new UpdateCommand({
      TableName: deps.table.tableName,
      Key: keys.schedule(input.scheduleId),
      // A pending change stays until it is made (applyPendingChange): a retry after a failure finds it.
      UpdateExpression: 'SET #status = :launched, botId = :bot',
      ConditionExpression: 'version = :version',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':launched': 'launched', ':bot': bot.id, ':version': input.version },
      ReturnValues: 'ALL_OLD',
    }),
  );
  await recordLaunchedMeeting(deps.table, { botId: bot.id, ...meetingOf(input, taken), state: bot.state });
  deps.telemetry.log.info('bot launched', { schedule_id: input.scheduleId, version: input.version, bot_id: bot.id });
  deps.telemetry.metrics.emit(METRICS.botLaunched, 1);
  // A failed publish fails the task after the pending change is made (the retry finds the schedule
  // launched and publishes, but holds no pending change any more).
  const publishError = await deps.events.publish([launchedEvent(input, bot.id)]).then(
    () => undefined,
    (error: unknown) => error ?? new Error('publishing schedule.launched failed'),
  );
  const pending = before?.pendingChange as PendingChange | undefined;
  if (pending !== undefined) {
    const launched = { ...(before as Schedule), status: 'launched' as const, botId: bot.id };
    await applyPendingChange(launched, pending, { ...deps, now: () => deps.now?.() ?? Date.now() });
  }
  if (publishError !== undefined) throw publishError;
  return { status: 'launched', botId: bot.id };
}

const launchedEvent = (input: LaunchInput, botId: string): DomainEvent =>
  domainEvents.scheduleLaunched({
    schedule_id: input.scheduleId,
    schedule_version: input.version,
    bot_id: botId,
    join_at: input.joinAt,
  });

const meetingOf = ({ scheduleId, joinAt }: LaunchInput, { meetingUrl }: Schedule) => ({
  scheduleId,
  joinAt,
  meetingUrl,
});

async function createOrAdopt(request: CreateBotRequest, deps: LaunchDependencies): Promise<Bot> {
  const key = required(request.deduplication_key, 'the launch request deduplication_key');
  try {
    return await deps.upstream.createBot(request);
  } catch (error) {
    const conflict = error instanceof BadRequestError && error.message.includes(DEDUPLICATION_CONFLICT);
    const unknownOutcome =
      error instanceof UpstreamError &&
      !(error instanceof RateLimitedError) &&
      (error.status === undefined || error.status >= 500);
    if (error instanceof ConcurrencyLimitError)
      deps.telemetry.log.warn('the service has as many bots in meetings as it allows; the launcher retries later', {
        deduplication_key: key,
      });
    if (!conflict && !unknownOutcome) throw error;
    const existing = await deps.upstream.findBotByDeduplicationKey(key);
    if (existing !== undefined) {
      deps.telemetry.log.info('bot adopted', { deduplication_key: key, bot_id: existing.id, after: error.message });
      return existing;
    }
    // The key's holder finished meanwhile: a new POST can succeed, so the launcher retries.
    if (conflict) throw new UpstreamError(`${error.message}; yet no live bot holds ${key}`, 400);
    throw error;
  }
}

/** The launcher's catch: the launch failed for good; say why on the schedule. */
export async function recordLaunchFailure(
  input: LaunchInput,
  error: { Error?: string; Cause?: string },
  deps: LaunchDependencies,
): Promise<void> {
  const reason = `${error.Error ?? 'Error'}: ${causeMessage(error.Cause)}`;
  const recorded = await writeIfCondition(() =>
    deps.table.db.send(
      new UpdateCommand({
        TableName: deps.table.tableName,
        Key: keys.schedule(input.scheduleId),
        UpdateExpression: 'SET #status = :failed, failureReason = :reason',
        // A recorded bot means the launch happened: a later error does not undo it.
        ConditionExpression:
          'version = :version AND (#status = :scheduled OR #status = :launching) AND attribute_not_exists(botId)',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':failed': 'failed',
          ':reason': reason,
          ':version': input.version,
          ':scheduled': 'scheduled',
          ':launching': 'launching',
        },
      }),
    ),
  );
  deps.telemetry.log.error('bot launch failed', { schedule_id: input.scheduleId, version: input.version, reason });
  deps.telemetry.metrics.emit(METRICS.launchFailed, 1);
  // A retried task finds the failure recorded: it publishes again, with the reason first recorded.
  const schedule = recorded ? undefined : await getSchedule(input.scheduleId, deps);
  const failedReason = recorded
    ? reason
    : schedule?.status === 'failed' && schedule.version === input.version
      ? schedule.failureReason
      : undefined;
  if (failedReason === undefined) return;
  await deps.events.publish([
    domainEvents.scheduleFailed({
      schedule_id: input.scheduleId,
      schedule_version: input.version,
      reason: failedReason,
    }),
  ]);
}

/** Lambda puts `{"errorMessage": ...}` in the Cause; keep just the message. */
function causeMessage(cause: string | undefined): string {
  if (cause === undefined) return 'no detail';
  try {
    const parsed = JSON.parse(cause) as { errorMessage?: unknown };
    return typeof parsed.errorMessage === 'string' ? parsed.errorMessage : cause;
  } catch {
    return cause;
  }
}
