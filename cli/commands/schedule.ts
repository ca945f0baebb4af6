/** `schedule put|get|cancel <id>`: the schedule API (PUT/GET/DELETE /schedules/{id}). */
import { z } from 'zod';
import { SCHEDULE_ID } from '../../lambdas/core/schedule/schedule-request';
import { requestJson } from '../api';
import { defineCommand, print, printJson } from '../command';
import { UsageError } from '../exit-codes';
import { renderFields } from '../table';
import type { Target } from '../target';

/** What the CLI shows of the schedule API's answer (lambdas/schedules/adapter.ts writes it); other fields pass through to --json. */
const scheduleAnswer = z.looseObject({
  schedule_id: z.string(),
  version: z.number(),
  status: z.string(),
  meeting_url: z.string(),
  join_at: z.string(),
  launch_at: z.string().nullish(),
  bot_name: z.string().nullish(),
  bot_id: z.string().nullish(),
  failure_reason: z.string().nullish(),
  message: z.string().optional(),
});
type ScheduleAnswer = z.infer<typeof scheduleAnswer>;

function scheduleId(id: string | undefined): string {
  if (id === undefined || !SCHEDULE_ID.test(id))
    throw new UsageError(
      `A schedule id is 1 to 200 characters without spaces, slashes or control characters: ${JSON.stringify(id)}`,
    );
  return id;
}

async function call(target: () => Promise<Target>, id: string, method: string, json: boolean, body?: unknown) {
  const api = await target();
  const { raw, value } = await requestJson(api, api.scheduleUrl(id), scheduleAnswer, {
    method,
    ...(body !== undefined && { body }),
  });
  if (json) printJson(raw);
  else print(describeSchedule(value));
  return undefined;
}

function describeSchedule(s: ScheduleAnswer): string {
  return renderFields([
    ['schedule', s.schedule_id],
    ['status', s.status],
    ['version', s.version],
    ['meeting url', s.meeting_url],
    ['join at', s.join_at],
    ['launch at', s.launch_at],
    ['bot name', s.bot_name],
    ['bot', s.bot_id],
    ...(s.failure_reason ? ([['failure', s.failure_reason]] as Array<[string, string]>) : []),
    ...(s.message ? ([['note', s.message]] as Array<[string, string]>) : []),
  ]);
}

export const schedulePut = defineCommand({
  words: ['schedule', 'put'],
  args: ['<id>'],
  summary: 'Create or move the schedule <id> (your id, e.g. the calendar event id): a bot joins at --join-at.',
  usage: '--meeting-url URL --join-at ISO [--bot-name NAME] [--metadata KEY=VALUE]...',
  flags: `  --meeting-url URL       the meeting's https link
  --join-at ISO           when the bot joins, ISO 8601 with a zone (2026-11-23T15:00:00Z)
  --bot-name NAME         the bot's name in the meeting (default: the API's)
  --metadata KEY=VALUE    metadata the bot carries; repeat for more`,
  options: {
    'meeting-url': { type: 'string' },
    'join-at': { type: 'string' },
    'bot-name': { type: 'string' },
    metadata: { type: 'string', multiple: true },
  },
  async run({ values, args, target }) {
    const meetingUrl = values['meeting-url'];
    const joinAt = values['join-at'];
    if (meetingUrl === undefined || joinAt === undefined)
      throw new UsageError('schedule put needs --meeting-url and --join-at');
    const metadata: Record<string, string> = {};
    for (const pair of values.metadata ?? []) {
      const at = pair.indexOf('=');
      if (at < 1) throw new UsageError(`--metadata takes KEY=VALUE, not ${JSON.stringify(pair)}`);
      metadata[pair.slice(0, at)] = pair.slice(at + 1);
    }
    // The API checks the body (URL, time, name) and says what is wrong: exit 2 with its reason.
    return call(target, scheduleId(args[0]), 'PUT', values.json === true, {
      meeting_url: meetingUrl,
      join_at: joinAt,
      ...(values['bot-name'] !== undefined && { bot_name: values['bot-name'] }),
      ...(Object.keys(metadata).length > 0 && { metadata }),
    });
  },
});

export const scheduleGet = defineCommand({
  words: ['schedule', 'get'],
  args: ['<id>'],
  summary: 'The schedule <id>: status, join and launch times, and the bot once launched.',
  options: {},
  run: async ({ values, args, target }) => call(target, scheduleId(args[0]), 'GET', values.json === true),
});

export const scheduleCancel = defineCommand({
  words: ['schedule', 'cancel'],
  args: ['<id>'],
  summary: 'Cancel the schedule <id> (a launched bot is told to leave).',
  options: {},
  run: async ({ values, args, target }) => call(target, scheduleId(args[0]), 'DELETE', values.json === true),
});
