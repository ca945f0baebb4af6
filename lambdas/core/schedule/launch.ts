/**
 * The launcher's task: at launch time, create the bot with a deduplication key
 * per schedule version (a retried POST that had succeeded cannot create a second
 * bot), and record its id on the schedule and on the meeting, so the bot's
 * webhooks join up with it. A stale execution (the schedule moved or was
 * cancelled) does nothing.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { type TableAccess, writeIfCondition } from '../store/dynamo';
import { keys } from '../store/table-layout';
import { METRICS, type Telemetry } from '../telemetry';
import type { UpstreamClient } from '../upstream/client';
import type { LaunchInput } from './executions';
import { getSchedule } from './schedules';

export interface LaunchDependencies {
  table: TableAccess;
  upstream: Pick<UpstreamClient, 'createBot'>;
  telemetry: Telemetry;
}

export type LaunchResult = { status: 'launched'; botId: string } | { status: 'skipped'; reason: string };

export async function launchScheduledBot(input: LaunchInput, deps: LaunchDependencies): Promise<LaunchResult> {
  const schedule = await getSchedule(input.scheduleId, deps);
  if (schedule === undefined || schedule.version !== input.version || schedule.status !== 'scheduled') {
    return {
      status: 'skipped',
      reason: `schedule ${input.scheduleId} v${input.version} is no longer due (${schedule?.status ?? 'gone'}, v${schedule?.version ?? '-'})`,
    };
  }
  const bot = await deps.upstream.createBot({
    meeting_url: input.meetingUrl,
    bot_name: input.botName,
    metadata: { ...input.metadata, schedule_id: input.scheduleId, schedule_version: input.version },
    join_at: input.joinAt,
    deduplication_key: `${input.scheduleId}:v${input.version}`,
  });
  await writeIfCondition(() =>
    deps.table.db.send(
      new UpdateCommand({
        TableName: deps.table.tableName,
        Key: keys.schedule(input.scheduleId),
        UpdateExpression: 'SET #status = :launched, botId = :bot',
        ConditionExpression: 'version = :version',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':launched': 'launched', ':bot': bot.id, ':version': input.version },
      }),
    ),
  );
  await deps.table.db.send(
    new UpdateCommand({
      TableName: deps.table.tableName,
      Key: keys.meeting(bot.id),
      UpdateExpression: 'SET botId = :bot, scheduleId = :schedule, scheduledJoinAt = :joinAt, meetingUrl = :url',
      ExpressionAttributeValues: {
        ':bot': bot.id,
        ':schedule': input.scheduleId,
        ':joinAt': input.joinAt,
        ':url': input.meetingUrl,
      },
    }),
  );
  deps.telemetry.log.info('bot launched', { schedule_id: input.scheduleId, version: input.version, bot_id: bot.id });
  deps.telemetry.metrics.emit(METRICS.botLaunched, 1);
  return { status: 'launched', botId: bot.id };
}

/** The launcher's catch: the launch failed for good; say why on the schedule. */
export async function recordLaunchFailure(
  input: LaunchInput,
  error: { Error?: string; Cause?: string },
  deps: LaunchDependencies,
): Promise<void> {
  const reason = `${error.Error ?? 'Error'}: ${causeMessage(error.Cause)}`;
  await writeIfCondition(() =>
    deps.table.db.send(
      new UpdateCommand({
        TableName: deps.table.tableName,
        Key: keys.schedule(input.scheduleId),
        UpdateExpression: 'SET #status = :failed, failureReason = :reason',
        ConditionExpression: 'version = :version AND #status = :scheduled',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':failed': 'failed',
          ':reason': reason,
          ':version': input.version,
          ':scheduled': 'scheduled',
        },
      }),
    ),
  );
  deps.telemetry.log.error('bot launch failed', { schedule_id: input.scheduleId, version: input.version, reason });
  deps.telemetry.metrics.emit(METRICS.launchFailed, 1);
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
