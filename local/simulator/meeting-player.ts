/**
 * Plays a meeting for a bot the simulated service created: its states from
 * joining to ended, participants joining and leaving, utterances, a summary and
 * a recording, on a compressed clock. Each step updates what the REST API
 * reports and sends the webhook. What was played is kept, so local mode can
 * check that the pipeline stored exactly that.
 */
import { randomUUID } from 'node:crypto';
import { type SimulatedBot, writeUtterance } from './api-server';
import { serviceTime } from './bot-rules';
import { participantJoinLeave, stateChange, summaryUpdate, transcriptLine, transcriptUpdate } from './payloads';
import type { PyValue } from './python-json';
import type { WebhookSender } from './webhook-sender';

export interface PlayedMeeting {
  botId: string;
  finalState: string;
  utterances: Array<{ timestampMs: number; speakerUuid: string; speakerName: string; text: string }>;
  participants: Array<{ uuid: string; name: string; isHost: boolean }>;
  summary: string;
  recording: { seed: number; size: number };
  done: Promise<void>;
}

export interface PlayerOptions {
  /** Wall-clock milliseconds between steps. */
  stepMs: number;
  recordingBytes: number;
  random: () => number;
  /** Called as each step is played, for a timeline. */
  onStep?: (botId: string, step: string) => void;
  /**
   * The meeting ends with this participant removing the bot (as Teams reports it):
   * the state change names them in `remover_*` instead of the bot leaving on its own.
   */
  removedBy?: number;
}

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
  const people = SPEAKERS.slice(0, 2 + Math.floor(random() * 2));
  const utterances = Array.from({ length: 3 + Math.floor(random() * 4) }, (_, i) => {
    const speaker = people[i % people.length]!;
    return {
      timestampMs: 5_000 + i * 7_000,
      speakerUuid: speaker.uuid,
      speakerName: speaker.name,
      text: LINES[(i + Math.floor(random() * LINES.length)) % LINES.length]!,
    };
  });
  const summary = `Summary of ${bot.id}: ${utterances.length} remarks by ${people.map((p) => p.name.split(' ')[0]).join(', ')}.`;
  const seed = Math.floor(random() * 1_000_000);
  const played: Omit<PlayedMeeting, 'done'> = {
    botId: bot.id,
    finalState: 'ended',
    utterances,
    participants: people.map((p) => ({ uuid: p.uuid, name: p.name, isHost: p.isHost })),
    summary,
    recording: { seed, size: options.recordingBytes },
  };

  const sleep = () => new Promise((resolve) => setTimeout(resolve, stepMs));
  const setState = (newState: string, eventType: string, metadata?: { [key: string]: PyValue }) => {
    const nowMs = Date.now();
    const oldState = bot.state;
    bot.state = newState;
    // One instant, spelled as the service spells it where: its REST answers end in `Z`, its
    // webhooks in `+00:00` (pythonIsoTime); the pipeline answers both in its one form.
    bot.events.push({ type: eventType, sub_type: null, created_at: serviceTime(nowMs), ...(metadata && { metadata }) });
    sender.send(
      stateChange(
        bot.id,
        { oldState, newState, eventType, createdAtMicros: nowMs * 1000, ...(metadata && { metadata }) },
        { idempotencyKey: randomUUID() },
      ),
    );
    options.onStep?.(bot.id, newState);
  };

  const done = (async () => {
    setState('joining', 'join_requested');
    await sleep();
    setState('joined_recording', 'bot_joined_meeting');
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
    const remover = options.removedBy === undefined ? undefined : people[options.removedBy % people.length]!;
    if (remover === undefined) {
      setState('leaving', 'bot_left_meeting');
      await sleep();
      setState('post_processing', 'post_processing_started');
    } else
      setState('post_processing', 'meeting_ended', {
        remover_name: remover.name,
        remover_uuid: remover.uuid,
        remover_user_uuid: null,
        remover_is_host: remover.isHost,
      });
    bot.recording = { size: options.recordingBytes, seed, contentType: 'video/mp4' };
    await sleep();
    sender.send(summaryUpdate(bot.id, summary));
    setState('ended', 'post_processing_completed');
  })();

  return { ...played, done };
}
