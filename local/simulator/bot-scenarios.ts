/**
 * Which of the service's paths a simulated bot's meeting takes: recorded, cut short,
 * never admitted, refused entry, never launched. A test or local mode asks for one
 * by name in the bot's metadata (`simulator_scenario`; a schedule's metadata reaches
 * the bot, so it works through the pipeline too); a bot without it records its meeting.
 * Names of the unhappy paths are the service's own sub-type codes where it has one.
 */

/** The bot metadata key that names a bot's scenario. */
export const SCENARIO_METADATA_KEY = 'simulator_scenario';

export type BotScenario =
  /** Joins, records to the end and leaves when everyone else has. */
  | { path: 'recorded' }
  /** Joins and records, then a participant removes it part way through. */
  | { path: 'removed' }
  /** Waits in the lobby (Zoom: `waiting_room`; Teams, Meet: `joining`) until it gives up or the meeting ends. */
  | { path: 'never_admitted'; end: 'waiting_room_timeout' | 'meeting_ended' }
  /** Refused entry: `could_not_join_meeting` with this sub-type (a denial comes after the lobby). */
  | { path: 'could_not_join'; subType: string }
  /** The service never launches it: `fatal_error` with this sub-type before it joins. */
  | { path: 'not_launched'; subType: string };

export const BOT_SCENARIOS = {
  recorded: { path: 'recorded' },
  removed: { path: 'removed' },
  waiting_room_timeout_exceeded: { path: 'never_admitted', end: 'waiting_room_timeout' },
  ended_in_lobby: { path: 'never_admitted', end: 'meeting_ended' },
  request_to_join_denied: { path: 'could_not_join', subType: 'request_to_join_denied' },
  meeting_not_found: { path: 'could_not_join', subType: 'meeting_not_found' },
  login_required: { path: 'could_not_join', subType: 'login_required' },
  blocked_by_captcha: { path: 'could_not_join', subType: 'blocked_by_captcha' },
  unable_to_connect_to_meeting: { path: 'could_not_join', subType: 'unable_to_connect_to_meeting' },
  bot_not_launched: { path: 'not_launched', subType: 'bot_not_launched' },
  out_of_credits: { path: 'not_launched', subType: 'out_of_credits' },
} as const satisfies Record<string, BotScenario>;

export type BotScenarioName = keyof typeof BOT_SCENARIOS;
export const BOT_SCENARIO_NAMES = Object.keys(BOT_SCENARIOS) as BotScenarioName[];

function isScenarioName(value: unknown): value is BotScenarioName {
  return typeof value === 'string' && Object.hasOwn(BOT_SCENARIOS, value);
}

/** Why the metadata's scenario cannot be played (an unknown name), or undefined. */
export function scenarioProblem(metadata: Record<string, unknown> | null): string | undefined {
  const value = metadata?.[SCENARIO_METADATA_KEY];
  if (value === undefined || isScenarioName(value)) return undefined;
  return `${SCENARIO_METADATA_KEY} ${JSON.stringify(value)} is no simulator scenario; one of ${BOT_SCENARIO_NAMES.join(', ')}`;
}

/** The bot's scenario by name: its metadata's, else `recorded`. */
export function scenarioNameOf(metadata: Record<string, unknown> | null): BotScenarioName {
  const value = metadata?.[SCENARIO_METADATA_KEY];
  return isScenarioName(value) ? value : 'recorded';
}

/** Whether the bot joins its meeting (and so has a recording) in this scenario. */
export function joinsMeeting(name: BotScenarioName): boolean {
  const { path } = BOT_SCENARIOS[name];
  return path === 'recorded' || path === 'removed';
}

/**
 * The bot metadata key that makes its recording shrink after the first download: the service's bot task
 * ran again and uploaded a smaller file over the finished one (Attendee issue 587). `empty` serves no
 * bytes, `half` half of them; the first download is always the whole recording.
 */
export const RECORDING_REFETCH_METADATA_KEY = 'simulator_recording_refetch';

export const RECORDING_REFETCH_KINDS = ['empty', 'half'] as const;
export type RecordingRefetch = (typeof RECORDING_REFETCH_KINDS)[number];

const isRefetchKind = (value: unknown): value is RecordingRefetch =>
  (RECORDING_REFETCH_KINDS as readonly unknown[]).includes(value);

/** Why the metadata's re-fetch kind cannot be played (an unknown one), or undefined. */
export function recordingRefetchProblem(metadata: Record<string, unknown> | null): string | undefined {
  const value = metadata?.[RECORDING_REFETCH_METADATA_KEY];
  if (value === undefined || isRefetchKind(value)) return undefined;
  return `${RECORDING_REFETCH_METADATA_KEY} ${JSON.stringify(value)} is not one of ${RECORDING_REFETCH_KINDS.join(', ')}`;
}

/** The bytes a download serves of a recording of `size` after `earlierDownloads` downloads of it. */
export function servedRecordingBytes(
  metadata: Record<string, unknown> | null,
  size: number,
  earlierDownloads: number,
): number {
  const kind = metadata?.[RECORDING_REFETCH_METADATA_KEY];
  if (earlierDownloads === 0 || !isRefetchKind(kind)) return size;
  return kind === 'empty' ? 0 : Math.floor(size / 2);
}
