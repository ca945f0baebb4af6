/**
 * Plays a meeting for a bot the simulated service started, along the path its
 * scenario names (bot-scenarios.ts): recorded (states from joining to ended,
 * participants joining and leaving, utterances, a summary and a recording),
 * removed part way, never admitted, or refused entry, on a compressed clock.
 * Every state change goes through the service's transitions (a move the service
 * would refuse throws), updates what the REST API reports and sends the webhook.
 * What was played is kept, so local mode can check that the pipeline stored
 * exactly that.
 */
import { randomUUID } from 'node:crypto';
import { describeChange, recordBotEvent, type SimulatedBot, writeUtterance } from './api-server';
import { isZoomLink, WAITING_ROOM_TIMEOUT_SECONDS } from './bot-rules';
import { BOT_SCENARIOS, type BotScenarioName, joinsMeeting } from './bot-scenarios';
import { participantJoinLeave, stateChange, summaryUpdate, transcriptLine, transcriptUpdate } from './payloads';
import type { PyValue } from './python-json';
import type { WebhookSender } from './webhook-sender';

export interface PlayedMeeting {
  botId: string;
  scenario: BotScenarioName;
  finalState: string;
  utterances: Array<{ timestampMs: number; speakerUuid: string; speakerName: string; text: string }>;
  participants: Array<{ uuid: string; name: string; isHost: boolean }>;
  /** Undefined when the bot never joined (nothing to summarize). */
  summary: string | undefined;
  /** Null when the bot never joined: the service has no recording for it. */
  recording: { seed: number; size: number } | null;
  done: Promise<void>;
}

export interface PlayerOptions {
  /** Wall-clock milliseconds between steps. */
  stepMs: number;
  recordingBytes: number;
  random: () => number;
  /** The path the meeting takes (default `recorded`). */
  scenario?: BotScenarioName;
  /** Called as each step is played, for a timeline. */
  onStep?: (botId: string, step: string) => void;
  /**
   * The meeting ends with this participant removing the bot (as Teams reports it):
   * the state change names them in `remover_*` instead of the bot leaving on its own.
   */
  removedBy?: number;
}

/**
 * One step of the compressed clock stands for a minute at the service: a bot left in
 * the lobby gives up after the waiting-room timeout's worth of steps.
 */
export const SERVICE_SECONDS_PER_STEP = 60;
export const WAITING_ROOM_TIMEOUT_STEPS = Math.ceil(WAITING_ROOM_TIMEOUT_SECONDS / SERVICE_SECONDS_PER_STEP);
/** A meeting whose bot is never admitted ends this many steps after the bot asked to join (before the timeout). */
const LOBBY_MEETING_STEPS = Math.ceil(WAITING_ROOM_TIMEOUT_STEPS / 3);

const SPEAKERS = [
  { uuid: 'p-ada', name: 'Ada Lovelace', isHost: true },
  { uuid: 'p-grace', name: 'Grace Hopper', isHost: false },
  { uuid: 'p-linus', name: 'Linus Pauling', isHost: false },
];
const LINES = [
  'Let us start with the release plan.',
  'The migration is ready for Thursday.',
  'Café opens at nine, so the stand-up moves to 9:30.',
  'I will write the runbook — by Friday.',
  'Any objections? None. Good.',
  'We keep the old path behind a flag for a week.',
];

export function playMeeting(bot: SimulatedBot, sender: WebhookSender, options: PlayerOptions): PlayedMeeting {
  const { random, stepMs } = options;
  const scenarioName = options.scenario ?? 'recorded';
  const scenario = BOT_SCENARIOS[scenarioName];
  if (scenario.path === 'not_launched')
    throw new Error(`a bot the service never launches (${scenarioName}) has no meeting to play`);
  const people = SPEAKERS.slice(0, 2 + Math.floor(random() * 2));
  const lines = Array.from({ length: 3 + Math.floor(random() * 4) }, (_, i) => {
    const speaker = people[i % people.length]!;
    return {
      timestampMs: 5_000 + i * 7_000,
      speakerUuid: speaker.uuid,
      speakerName: speaker.name,
      text: LINES[(i + Math.floor(random() * LINES.length)) % LINES.length]!,
    };
  });
  const seed = Math.floor(random() * 1_000_000);
  const joins = joinsMeeting(scenarioName);
  // Removed part way: the lines after the removal are never said in the bot's hearing.
  const utterances = !joins ? [] : scenario.path === 'removed' ? lines.slice(0, Math.ceil(lines.length / 2)) : lines;
  const present = joins ? people : [];
  const summary = joins
    ? `Summary of ${bot.id}: ${utterances.length} remarks by ${people.map((p) => p.name.split(' ')[0]).join(', ')}.`
    : undefined;
  // Why a bot that is not admitted gives up: its own refusal, else the lobby's timeout.
  const refusal = scenario.path === 'could_not_join' ? scenario.subType : 'waiting_room_timeout_exceeded';
  const removedBy = scenario.path === 'removed' ? (options.removedBy ?? 0) : options.removedBy;
  const played: Omit<PlayedMeeting, 'done'> = {
    botId: bot.id,
    scenario: scenarioName,
    finalState:
      scenario.path === 'could_not_join' ||
      (scenario.path === 'never_admitted' && scenario.end === 'waiting_room_timeout')
        ? 'fatal_error'
        : 'ended',
    utterances,
    participants: present.map((p) => ({ uuid: p.uuid, name: p.name, isHost: p.isHost })),
    summary,
    recording: joins ? { seed, size: options.recordingBytes } : null,
  };

  const sleep = (steps = 1) => new Promise((resolve) => setTimeout(resolve, steps * stepMs));
  const change = (eventType: string, subType: string | null = null, metadata?: { [key: string]: PyValue }) => {
    // One instant, spelled as the service spells it where: its REST answers end in `Z`, its
    // webhooks in `+00:00` (pythonIsoTime); the pipeline answers both in its one form.
    const recorded = recordBotEvent(bot, eventType, { atMs: Date.now(), subType, ...(metadata && { metadata }) });
    sender.send(stateChange(bot.id, recorded, { idempotencyKey: randomUUID() }));
    options.onStep?.(bot.id, describeChange(recorded));
  };

  const playNotAdmitted = async () => {
    // Only the native Zoom bot reports the lobby; Teams and Meet bots stay joining until admitted or not.
    const lobby =
      scenario.path === 'never_admitted' ||
      (scenario.path === 'could_not_join' && scenario.subType === 'request_to_join_denied');
    if (lobby && isZoomLink(bot.meeting_url)) {
      await sleep();
      change('put_in_waiting_room');
    }
    // The service has no recording for a bot that never joined: its recording and transcript say so.
    if (scenario.path === 'never_admitted' && scenario.end === 'meeting_ended') {
      await sleep(LOBBY_MEETING_STEPS);
      bot.noRecordingRow = true;
      change('meeting_ended');
      await sleep();
      change('post_processing_completed');
      return;
    }
    await sleep(scenario.path === 'never_admitted' ? WAITING_ROOM_TIMEOUT_STEPS : lobby ? 2 : 1);
    bot.noRecordingRow = true;
    change('could_not_join_meeting', refusal);
  };

  const playJoined = async () => {
    await sleep();
    change('joined_meeting');
    change('recording_permission_granted');
    for (const [i, person] of people.entries()) {
      const participant = {
        id: `par_${bot.id}_${i}`,
        name: person.name,
        uuid: person.uuid,
        user_uuid: null,
        is_host: person.isHost,
      };
      bot.participants.push(participant);
      sender.send(
        participantJoinLeave(bot.id, {
          id: `pe_${bot.id}_j${i}`,
          name: person.name,
          uuid: person.uuid,
          isHost: person.isHost,
          eventType: 'join',
          // Wall-clock epoch milliseconds, as the service stamps a participant event when it sees it.
          timestampMs: Date.now() + i,
        }),
      );
    }
    options.onStep?.(bot.id, `${people.length} participants joined`);
    for (const line of utterances) {
      await sleep();
      const utterance = {
        speakerName: line.speakerName,
        speakerUuid: line.speakerUuid,
        isHost: line.speakerUuid === 'p-ada',
        timestampMs: line.timestampMs,
        durationMs: 2_500,
        text: line.text,
      };
      writeUtterance(bot, transcriptLine(utterance), Date.now());
      sender.send(transcriptUpdate(bot.id, utterance));
    }
    options.onStep?.(bot.id, `${utterances.length} utterances`);
    await sleep();
    for (const [i, person] of people.entries()) {
      sender.send(
        participantJoinLeave(bot.id, {
          id: `pe_${bot.id}_l${i}`,
          name: person.name,
          uuid: person.uuid,
          isHost: person.isHost,
          eventType: 'leave',
          timestampMs: Date.now() + i,
        }),
      );
    }
    const remover = removedBy === undefined ? undefined : people[removedBy % people.length]!;
    if (remover === undefined) {
      // Everyone else has gone: the bot leaves on its own.
      change('leave_requested', 'auto_leave_only_participant_in_meeting');
      await sleep();
      change('left_meeting');
    } else
      change('meeting_ended', null, {
        remover_name: remover.name,
        remover_uuid: remover.uuid,
        remover_user_uuid: null,
        remover_is_host: remover.isHost,
      });
    bot.recording = { size: options.recordingBytes, seed, contentType: 'video/mp4' };
    await sleep();
    sender.send(summaryUpdate(bot.id, summary ?? ''));
    change('post_processing_completed');
  };

  const done = (async () => {
    change('join_requested');
    await (joins ? playJoined() : playNotAdmitted());
  })();

  return { ...played, done };
}
