/** The state-order rule on its own, as a table: which of two state changes a meeting shows. */
import { describe, expect, it } from 'vitest';
import { isFinalState, isoToMicros, stateOrderKey } from '../../lambdas/core/apply/state-order';

const T0 = '2026-11-23T15:00:00.000000Z';
const T1 = '2026-11-23T15:00:01.000000Z';

// [first state, its time, second state, its time, the state the meeting shows]
const WINNERS: [string, string, string, string, string][] = [
  ['joining', T0, 'joined_recording', T1, 'joined_recording'],
  ['joined_recording', T1, 'joining', T0, 'joined_recording'],
  ['joined_recording', T1, 'ended', T0, 'ended'],
  ['ended', T0, 'joined_recording', T1, 'ended'],
  ['post_processing', T1, 'ended', T0, 'ended'],
  ['ended', T1, 'fatal_error', T0, 'fatal_error'],
  ['fatal_error', T1, 'ended', T0, 'ended'],
  ['ended', T0, 'data_deleted', T0, 'data_deleted'],
  ['data_deleted', T0, 'ended', T1, 'data_deleted'],
  ['data_deleted', T0, 'joined_recording', T1, 'data_deleted'],
  ['joining', T0, 'joined_recording', T0, 'joined_recording'],
  ['leaving', T0, 'joined_recording', T0, 'leaving'],
  ['post_processing', T0, 'leaving', T0, 'post_processing'],
  ['ready', T0, 'scheduled', T0, 'scheduled'],
  ['scheduled', T0, 'staged', T0, 'staged'],
  ['waiting_room', T0, 'joining', T0, 'waiting_room'],
  ['joined_recording_paused', T0, 'joined_recording', T0, 'joined_recording_paused'],
  ['some_future_state', T0, 'ready', T0, 'ready'],
  ['some_future_state', T1, 'ready', T0, 'some_future_state'],
  ['ended', T0, 'ended', T1, 'ended'],
];

const winner = (a: string, aAt: string, b: string, bAt: string) =>
  stateOrderKey(a, isoToMicros(aAt)) > stateOrderKey(b, isoToMicros(bAt)) ? a : b;

describe('state order', () => {
  it.each(WINNERS)('%s at %s vs %s at %s shows %s', (a, aAt, b, bAt, expected) => {
    expect(winner(a, aAt, b, bAt)).toBe(expected);
    expect(winner(b, bAt, a, aAt)).toBe(expected);
  });

  it('between two final states the earlier one wins', () => {
    const early = stateOrderKey('ended', isoToMicros(T0));
    const late = stateOrderKey('ended', isoToMicros(T1));
    expect(early > late).toBe(true);
  });

  it.each([
    ['ended', true],
    ['fatal_error', true],
    ['data_deleted', true],
    ['post_processing', false],
    ['joined_recording', false],
    ['unknown_state', false],
  ])('%s is final: %s', (state, final) => {
    expect(isFinalState(state)).toBe(final);
  });
});

describe('isoToMicros', () => {
  it.each([
    ['2026-11-23T15:00:00Z', Date.UTC(2026, 10, 23, 15) * 1000],
    ['2026-11-23T15:00:00.5Z', Date.UTC(2026, 10, 23, 15) * 1000 + 500_000],
    ['2026-11-23T15:00:00.123456Z', Date.UTC(2026, 10, 23, 15) * 1000 + 123_456],
    ['2026-11-23T15:00:00.1234567Z', Date.UTC(2026, 10, 23, 15) * 1000 + 123_456],
    ['2026-11-23T16:00:00.000001+01:00', Date.UTC(2026, 10, 23, 15) * 1000 + 1],
    ['2026-11-23T10:00:00-0500', Date.UTC(2026, 10, 23, 15) * 1000],
    ['2026-11-23t15:00:00z', Date.UTC(2026, 10, 23, 15) * 1000],
  ])('%s → %d', (iso, micros) => {
    expect(isoToMicros(iso)).toBe(micros);
  });

  it.each(['2026-11-23T15:00:00', '2026-11-23', 'yesterday', '', '2026-13-40T15:00:00Z'])('refuses %j', (iso) => {
    expect(() => isoToMicros(iso)).toThrow(RangeError);
  });
});
