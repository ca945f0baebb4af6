/** The catalogue against its schemas, the dedup ids, and PutEvents' limits. */
import { describe, expect, it } from 'vitest';
import {
  DETAIL_TYPES,
  type DomainEvent,
  domainEvents,
  RESERVED_DETAIL_TYPES,
} from '../../lambdas/core/domain-events/catalogue';
import {
  DomainEventsNotPublishedError,
  PUT_EVENTS_LIMITS,
  type PutEventsEntry,
  putEventsBatches,
  putEventsEntryBytes,
  toPutEventsEntry,
} from '../../lambdas/core/domain-events/publisher';
import { entryProblems, schemaValidators } from '../fixtures/event-schemas';

const BOT = 'bot_7Gh2kLm9Qa';

/** One event of each detail-type, as the pipeline builds them. */
const samples: DomainEvent[] = [
  domainEvents.stateChanged('key-1', {
    bot_id: BOT,
    old_state: 'joining',
    new_state: 'joined_recording',
    changed_at: '2026-11-20T10:00:00.123456+00:00',
    event_type: 'bot_recording_permission_granted',
    event_sub_type: null,
    observed_by: 'webhook',
  }),
  domainEvents.ended({ bot_id: BOT, final_state: 'ended', ended_at: '2026-11-20T11:00:00+00:00' }),
  domainEvents.summaryReady('key-3', { bot_id: BOT, summary_bytes: 120, received_at: '2026-11-20T11:01:00.000Z' }),
  domainEvents.archived({
    bot_id: BOT,
    archived_at: '2026-11-20T11:05:00.000Z',
    recording: { status: 'none', bytes: null, sha256: null, content_type: null },
    transcript_lines: 0,
    participant_count: 0,
  }),
  domainEvents.scheduleLaunched({
    schedule_id: 'standup',
    schedule_version: 2,
    bot_id: BOT,
    join_at: '2026-11-20T10:00:00.000Z',
  }),
  domainEvents.scheduleFailed({ schedule_id: 'standup', schedule_version: 3, reason: 'BadRequestError: refused' }),
  domainEvents.erased({
    bot_id: 'bot_1',
    receipt_id: 'er_1',
    erased_at: '2026-11-23T12:00:00.000Z',
    counts: { meeting_items: 3, ledger_records: 3 },
  }),
  domainEvents.calendarDisconnected({
    calendar_id: 'acme-google',
    user: 'ada@acme.example',
    provider: 'google',
    reason: 'invalid_grant: Not a valid email or user ID.',
    scope: 'user',
    disconnected_at: '2026-11-24T09:00:00Z',
  }),
  domainEvents.outcome({
    bot_id: BOT,
    status: 'missed',
    reason: 'waiting_room_timeout_exceeded',
    sentence: 'The bot waited in the lobby for 15 min and was never admitted.',
  }),
];

const entry = (event: DomainEvent): PutEventsEntry => toPutEventsEntry(event, 'bus');

describe('the domain event catalogue', () => {
  it('has one schema per detail-type, and none for a reserved one', () => {
    expect([...schemaValidators.keys()].sort()).toEqual(Object.values(DETAIL_TYPES).sort());
    for (const reserved of RESERVED_DETAIL_TYPES) expect(schemaValidators.has(reserved)).toBe(false);
    expect(samples.map((e) => e.detailType).sort()).toEqual(Object.values(DETAIL_TYPES).sort());
  });

  it('builds details that match their schemas, and the schemas refuse what is off', () => {
    for (const event of samples) expect(entryProblems(entry(event))).toEqual([]);
    const archived = entry(samples[3]!);
    const broken = { ...JSON.parse(archived.Detail), recording: { status: 'archived', bytes: null } };
    expect(entryProblems({ ...archived, Detail: JSON.stringify(broken) })).not.toEqual([]);
    const extra = { ...JSON.parse(archived.Detail), surprise: 1 };
    expect(entryProblems({ ...archived, Detail: JSON.stringify(extra) })).not.toEqual([]);
  });

  it('derives each id from the cause only: the same fact, the same id; another fact, another id', () => {
    const again = domainEvents.ended({
      bot_id: BOT,
      final_state: 'ended',
      ended_at: '2026-11-20T11:00:00+00:00',
    });
    expect(again.detail.event_id).toBe(samples[1]!.detail.event_id);
    // The same final state heard from the reconciler (REST's spelling of the time) is the same meeting.ended.
    const healed = domainEvents.ended({ bot_id: BOT, final_state: 'ended', ended_at: '2026-11-20T11:00:00.000Z' });
    expect(healed.detail.event_id).toBe(samples[1]!.detail.event_id);
    const ids = samples.map((e) => e.detail.event_id);
    expect(new Set(ids).size).toBe(ids.length);
    // The same webhook stands for two events (changed and ended): their ids differ by type.
    const changed = domainEvents.stateChanged('key-2', {
      bot_id: BOT,
      old_state: 'post_processing',
      new_state: 'ended',
      changed_at: '2026-11-20T11:00:00+00:00',
      event_type: 'post_processing_completed',
      event_sub_type: null,
      observed_by: 'webhook',
    });
    expect(changed.detail.event_id).not.toBe(samples[1]!.detail.event_id);
  });

  it('names a disconnection by calendar, user and when it was found: the same on re-publish, another for the next one', () => {
    const fields = {
      calendar_id: 'acme-google',
      user: 'ada@acme.example',
      provider: 'google' as const,
      reason: 'invalid_grant',
      scope: 'source' as const,
      disconnected_at: '2026-11-24T09:00:00.000Z',
    };
    const first = domainEvents.calendarDisconnected(fields);
    expect(
      domainEvents.calendarDisconnected({ ...fields, user: 'Ada@acme.example', reason: 'other words' }).detail.event_id,
    ).toBe(first.detail.event_id);
    for (const other of [
      { user: 'bob@acme.example' },
      { calendar_id: 'acme-2' },
      { disconnected_at: '2026-11-25T09:00:00.000Z' },
    ])
      expect(domainEvents.calendarDisconnected({ ...fields, ...other }).detail.event_id).not.toBe(
        first.detail.event_id,
      );
    const broken = { ...JSON.parse(entry(first).Detail), scope: 'tenant' };
    expect(entryProblems({ ...entry(first), Detail: JSON.stringify(broken) })).not.toEqual([]);
  });
});

describe('PutEvents batches', () => {
  // The reason is free text: the field that makes an entry large.
  const failed = (i: number, reasonBytes = 40) =>
    entry(
      domainEvents.scheduleFailed({
        schedule_id: `s${i}`,
        schedule_version: 1,
        reason: `BadRequestError: ${'x'.repeat(reasonBytes)}`,
      }),
    );

  it('holds at most 10 entries each, in order', () => {
    const entries = Array.from({ length: 23 }, (_, i) => failed(i));
    const batches = putEventsBatches(entries);
    expect(batches.map((b) => b.length)).toEqual([10, 10, 3]);
    expect(batches.flat()).toEqual(entries);
  });

  it('holds at most 256 KB each, and refuses an entry that could never be sent', () => {
    const entries = Array.from({ length: 5 }, (_, i) => failed(i, 100 * 1024));
    const batches = putEventsBatches(entries);
    expect(batches.map((b) => b.length)).toEqual([2, 2, 1]);
    for (const batch of batches)
      expect(batch.reduce((sum, e) => sum + putEventsEntryBytes(e), 0)).toBeLessThanOrEqual(
        PUT_EVENTS_LIMITS.requestBytes,
      );
    expect(() => putEventsBatches([failed(0, 300 * 1024)])).toThrow(DomainEventsNotPublishedError);
  });
});
