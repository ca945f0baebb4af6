/**
 * The simulated service's meetings: when it starts a bot (at once, or staged ahead
 * of its join_at) the bot joins at join_at and the meeting is played along the
 * bot's scenario, its webhooks sent by `sender`. Local mode and the standalone
 * simulator both use this.
 */
import { randomUUID } from 'node:crypto';
import { describeChange, type SimulatedServiceApi } from './api-server';
import { scenarioNameOf } from './bot-scenarios';
import { type PlayedMeeting, playMeeting } from './meeting-player';
import { stateChange } from './payloads';
import type { WebhookSender } from './webhook-sender';

export interface PlayOptions {
  sender: WebhookSender;
  stepMs: number;
  recordingBytes: number;
  random: () => number;
  /** A line for a person to read. */
  print: (line: string) => void;
}

/** Plays every bot the service starts; returns the meetings played so far, by bot id. */
export function playStartedBots(
  service: SimulatedServiceApi,
  options: PlayOptions,
): Map<string, PlayedMeeting & { scheduleId: string }> {
  const played = new Map<string, PlayedMeeting & { scheduleId: string }>();
  const scheduleIdOf = (metadata: Record<string, unknown> | null) => String(metadata?.schedule_id ?? '');
  // A state the service moves on its own (a launch that failed, delete_data) is sent like the meeting's own.
  service.onStateChange = (bot, change) => {
    options.print(`${bot.id}  ${describeChange(change)}`);
    options.sender.send(stateChange(bot.id, change, { idempotencyKey: randomUUID() }));
  };
  // Never launched: nothing is played, and that is what the pipeline must store.
  service.onLaunchFailed = (bot) => {
    played.set(bot.id, {
      botId: bot.id,
      scenario: scenarioNameOf(bot.metadata),
      finalState: bot.state,
      utterances: [],
      participants: [],
      summary: undefined,
      recording: null,
      done: Promise.resolve(),
      scheduleId: scheduleIdOf(bot.metadata),
    });
  };
  service.onBotStarted = (bot) => {
    const scheduleId = scheduleIdOf(bot.metadata);
    const scenario = scenarioNameOf(bot.metadata);
    const startIn = bot.join_at === null ? 0 : Math.max(0, Date.parse(bot.join_at) - Date.now());
    options.print(
      `${bot.id}  started by the service (${bot.state}); joins in ${(startIn / 1000).toFixed(1)} s${scenario === 'recorded' ? '' : `; scenario ${scenario}`}`,
    );
    setTimeout(() => {
      const meeting = playMeeting(bot, options.sender, {
        stepMs: options.stepMs,
        recordingBytes: options.recordingBytes,
        random: options.random,
        scenario,
        onStep: (botId, step) => options.print(`${botId}  ${step}`),
        // A Teams meeting ends with its host removing the bot, as Teams reports it (remover_* on the state change).
        ...(new URL(bot.meeting_url).hostname === 'teams.microsoft.com' && { removedBy: 0 }),
      });
      played.set(bot.id, { ...meeting, scheduleId });
    }, startIn);
  };
  return played;
}
