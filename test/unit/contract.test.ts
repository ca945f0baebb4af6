import { describe, expect, it } from 'vitest';
import { metadataJsonLength } from '../../lambdas/core/upstream/rest-contract';
import {
  parseTriggerData,
  parseWebhookEnvelope,
  type WebhookEnvelope,
} from '../../lambdas/core/upstream/webhook-contract';
import { ingressEnvironmentSchema } from '../../lambdas/ingress/environment';
import { dumps, WIRE } from '../../local/simulator/python-json';

const envelope = (trigger: string, data: Record<string, unknown>): WebhookEnvelope => ({
  idempotency_key: 'k-1',
  bot_id: 'bot_abc',
  bot_metadata: {},
  trigger,
  data,
});

describe('webhook envelope', () => {
  it('accepts the documented envelope and keeps unknown fields', () => {
    const result = parseWebhookEnvelope({ ...envelope('transcript.update', {}), extra: { future: true } });
    expect(result).toEqual({ ok: true, value: expect.objectContaining({ extra: { future: true } }) });
  });

  it('accepts null bot_metadata and an unknown trigger', () => {
    expect(parseWebhookEnvelope({ ...envelope('bot.new_thing', { a: 1 }), bot_metadata: null }).ok).toBe(true);
  });

  it('names every problem', () => {
    const result = parseWebhookEnvelope({ idempotency_key: '', bot_id: 'robot_1', trigger: 3, data: [] });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problems).toEqual([
      'idempotency_key: must be a non-empty string',
      'bot_id: must start with "bot_" followed by an identifier',
      expect.stringMatching(/^bot_metadata: /),
      expect.stringMatching(/^trigger: /),
      expect.stringMatching(/^data: /),
    ]);
  });

  it('refuses non-objects at the top level', () => {
    for (const value of [null, [], 'x', 1]) expect(parseWebhookEnvelope(value).ok).toBe(false);
  });
});

describe('trigger data', () => {
  it('parses bot.state_change with a +00:00 timestamp', () => {
    const result = parseTriggerData(
      envelope('bot.state_change', {
        event_type: 'post_processing_completed',
        event_sub_type: null,
        event_metadata: {},
        old_state: 'post_processing',
        new_state: 'ended',
        created_at: '2026-01-01T10:00:00.123456+00:00',
      }),
    );
    expect(result).toMatchObject({ ok: true, value: { trigger: 'bot.state_change', data: { new_state: 'ended' } } });
  });

  it('keeps who removed the bot (remover_*, a Teams removal) in the state change, value for value', () => {
    const remover = {
      remover_name: 'Ada Lovelace',
      remover_uuid: 'p-ada',
      remover_user_uuid: null,
      remover_is_host: true,
    };
    const result = parseTriggerData(
      envelope('bot.state_change', {
        event_type: 'meeting_ended',
        event_sub_type: null,
        event_metadata: remover,
        old_state: 'joined_recording',
        new_state: 'post_processing',
        created_at: '2026-01-01T10:00:00.123456+00:00',
      }),
    );
    expect(result).toMatchObject({ ok: true, value: { data: { event_metadata: remover } } });
  });

  it('refuses a state change whose created_at is not ISO 8601 with a zone', () => {
    const result = parseTriggerData(
      envelope('bot.state_change', { event_type: 'x', old_state: 'a', new_state: 'b', created_at: '01/02/2026 10:00' }),
    );
    expect(result).toMatchObject({ ok: false, problems: [expect.stringMatching(/^data\.created_at: /)] });
  });

  it('parses transcript.update with transcription null', () => {
    const result = parseTriggerData(
      envelope('transcript.update', {
        speaker_name: 'Ada',
        speaker_uuid: 'u1',
        speaker_user_uuid: null,
        speaker_is_host: false,
        timestamp_ms: 1000,
        duration_ms: 250,
        transcription: null,
      }),
    );
    expect(result).toMatchObject({ ok: true, value: { trigger: 'transcript.update', data: { transcription: null } } });
  });

  it('refuses a fractional or negative timestamp_ms', () => {
    for (const timestamp_ms of [1.5, -1, '1000']) {
      const result = parseTriggerData(
        envelope('transcript.update', { speaker_uuid: 'u1', timestamp_ms, transcription: null }),
      );
      expect(result.ok).toBe(false);
    }
  });

  it('parses participant_events.join_leave and keeps unknown event types', () => {
    const result = parseTriggerData(
      envelope('participant_events.join_leave', {
        id: 'pe_1',
        participant_name: 'Grace',
        participant_uuid: 'p1',
        participant_user_uuid: null,
        participant_is_host: true,
        event_type: 'speech_start',
        event_data: {},
        timestamp_ms: 5,
      }),
    );
    expect(result).toMatchObject({ ok: true, value: { data: { event_type: 'speech_start' } } });
  });

  it('parses summary.update with or without a summary field', () => {
    expect(parseTriggerData(envelope('summary.update', { summary: 'Agreed to ship.' }))).toMatchObject({ ok: true });
    expect(parseTriggerData(envelope('summary.update', { text: 'Other field name' }))).toMatchObject({ ok: true });
    expect(parseTriggerData(envelope('summary.update', { summary: 42 })).ok).toBe(false);
  });

  it('passes an unknown trigger through with its raw data', () => {
    expect(parseTriggerData(envelope('calendar.updated', { anything: [1] }))).toEqual({
      ok: true,
      value: { trigger: 'unknown', envelope: envelope('calendar.updated', { anything: [1] }), data: { anything: [1] } },
    });
  });
});

describe('ingress environment', () => {
  const good = {
    EVENTS_QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/1/q',
    PAYLOAD_BUCKET: 'b',
    SIGNING_SECRET_ID: 's',
    MAX_BODY_BYTES: '3145728',
    INLINE_MESSAGE_LIMIT_BYTES: '1048576',
    SECRET_CACHE_SECONDS: '60',
    TABLE_NAME: 'meetings',
    DEDUP_RETENTION_DAYS: '7',
    QUARANTINE_MAX_PER_MINUTE: '600',
    QUARANTINE_MAX_BYTES_PER_MINUTE: '16777216',
    QUARANTINE_MAX_PER_BOT_PER_DAY: '1000',
  };
  it('coerces numbers from environment strings', () => {
    expect(ingressEnvironmentSchema.parse(good).MAX_BODY_BYTES).toBe(3145728);
  });
  it('refuses fractional and missing values', () => {
    expect(ingressEnvironmentSchema.safeParse({ ...good, MAX_BODY_BYTES: '1.5' }).success).toBe(false);
    expect(ingressEnvironmentSchema.safeParse({ ...good, PAYLOAD_BUCKET: undefined }).success).toBe(false);
  });
});

describe('metadataJsonLength (what the service limits to 1000)', () => {
  it.each([
    ['empty', {}, 2],
    ['one key', { a: 'x' }, 10], // {"a": "x"} (checked with python3 json.dumps, as the rows below)
    ['two keys', { a: 'x', b: 'y' }, 20], // {"a": "x", "b": "y"}
    ['escaped quote and newline', { a: '"\n' }, 13],
    ['é is \\u00e9', { a: 'é' }, 15],
    ['an emoji is a surrogate pair of escapes', { a: '😀' }, 21],
    ['DEL is escaped', { a: '\u007f' }, 15],
  ])('counts %s as Python json.dumps does', (_label, metadata, length) => {
    expect(metadataJsonLength(metadata)).toBe(length);
  });

  it("agrees with the simulator's own json.dumps on mixed text", () => {
    const alphabet = ['a', ' ', '"', '\\', '\t', '\u0001', '~', '\u007f', 'é', '会', '😀', ':', ','];
    for (let seed = 1; seed < 200; seed++) {
      const text = (n: number) =>
        Array.from({ length: n }, (_, i) => alphabet[(seed * 7 + i * 13) % alphabet.length]).join('');
      const metadata = { [text(seed % 5)]: text(seed % 17), [`k${seed}`]: text(seed % 11) };
      expect(metadataJsonLength(metadata)).toBe(dumps(metadata, WIRE).length);
    }
  });
});
