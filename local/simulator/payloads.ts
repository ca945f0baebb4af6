/**
 * The simulated service's webhook payloads, built from its own idea of the
 * service (shared/design/architecture.md), not from the pipeline's contract
 * module, so a test that feeds them through the pipeline checks the contract.
 */
import { randomUUID } from 'node:crypto';
import type { PyValue } from './python-json';

type PyObject = { [key: string]: PyValue };

export function webhook(
  botId: string,
  trigger: string,
  data: PyObject,
  options: { idempotencyKey?: string; metadata?: PyObject | null } = {},
): PyObject {
  return {
    idempotency_key: options.idempotencyKey ?? randomUUID(),
    bot_id: botId,
    bot_metadata: options.metadata === undefined ? { source: 'simulator' } : options.metadata,
    trigger,
    data,
  };
}

/** Python's `datetime.isoformat()` for an aware UTC time: microseconds and `+00:00`. */
export function pythonIsoTime(epochMicros: number): string {
  const seconds = Math.floor(epochMicros / 1_000_000);
  const micros = epochMicros - seconds * 1_000_000;
  const whole = new Date(seconds * 1000).toISOString().slice(0, 19);
  return micros === 0 ? `${whole}+00:00` : `${whole}.${String(micros).padStart(6, '0')}+00:00`;
}

export function stateChange(
  botId: string,
  change: {
    oldState: string;
    newState: string;
    eventType: string;
    createdAtMicros: number;
    subType?: string | null;
    /** E.g. who removed the bot from a Teams meeting (`remover_*`). */
    metadata?: PyObject;
  },
  options?: { idempotencyKey?: string },
): PyObject {
  return webhook(
    botId,
    'bot.state_change',
    {
      event_type: change.eventType,
      event_sub_type: change.subType ?? null,
      event_metadata: change.metadata ?? {},
      old_state: change.oldState,
      new_state: change.newState,
      created_at: pythonIsoTime(change.createdAtMicros),
    },
    options,
  );
}

export interface Utterance {
  speakerName: string;
  speakerUuid: string;
  isHost: boolean;
  timestampMs: number;
  durationMs: number;
  text: string | null;
}

/** One transcript line in the service's shape: a `transcript.update`'s data and an item of `GET …/transcript`. */
export function transcriptLine(utterance: Utterance): PyObject {
  return {
    speaker_name: utterance.speakerName,
    speaker_uuid: utterance.speakerUuid,
    speaker_user_uuid: null,
    speaker_is_host: utterance.isHost,
    timestamp_ms: utterance.timestampMs,
    duration_ms: utterance.durationMs,
    transcription: utterance.text === null ? null : { transcript: utterance.text },
  };
}

export function transcriptUpdate(botId: string, utterance: Utterance, options?: { idempotencyKey?: string }): PyObject {
  return webhook(botId, 'transcript.update', transcriptLine(utterance), options);
}

export function participantJoinLeave(
  botId: string,
  event: {
    id: string;
    name: string;
    uuid: string;
    isHost: boolean;
    eventType: 'join' | 'leave' | string;
    timestampMs: number;
  },
  options?: { idempotencyKey?: string },
): PyObject {
  return webhook(
    botId,
    'participant_events.join_leave',
    {
      id: event.id,
      participant_name: event.name,
      participant_uuid: event.uuid,
      participant_user_uuid: null,
      participant_is_host: event.isHost,
      event_type: event.eventType,
      event_data: {},
      timestamp_ms: event.timestampMs,
    },
    options,
  );
}

export function summaryUpdate(botId: string, summary: string, options?: { idempotencyKey?: string }): PyObject {
  return webhook(botId, 'summary.update', { summary, model: 'simulated' }, options);
}
