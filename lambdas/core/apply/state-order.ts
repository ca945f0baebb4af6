/**
 * Which state a meeting is in when its state changes arrive in any order.
 *
 * Every `bot.state_change` gets an order key; the meeting shows the state whose
 * key is greatest, so the result does not depend on delivery order:
 *  1. `data_deleted` beats everything (the data is gone, whatever came before);
 *  2. otherwise a final state (`ended`, `fatal_error`) beats any non-final one:
 *     final states are sticky, a late `joined_recording` never undoes `ended`;
 *     between two final states the *earlier* one wins: the meeting ended then;
 *  3. otherwise the later `created_at` wins; at equal times, the state further
 *     along the lifecycle (its rank) wins, then the state name.
 */
import { MAX_MICROS, padMicros } from '../store/table-layout';
import { BOT_STATES, type BotState, FINAL_BOT_STATES } from '../upstream/webhook-contract';

/** Lifecycle position: states at equal times order by it. Unknown states rank lowest. */
const RANK: Record<BotState, number> = {
  ready: 1,
  scheduled: 2,
  staged: 3,
  joining: 4,
  waiting_room: 5,
  joined_not_recording: 6,
  joined_recording: 7,
  joined_recording_paused: 7,
  joined_recording_permission_denied: 7,
  joining_breakout_room: 7,
  leaving_breakout_room: 7,
  leaving: 8,
  post_processing: 9,
  ended: 10,
  fatal_error: 10,
  data_deleted: 11,
  connecting: 4,
  connected: 7,
  disconnecting: 8,
};

const isBotState = (state: string): state is BotState => (BOT_STATES as readonly string[]).includes(state);

export const isFinalState = (state: string): boolean => (FINAL_BOT_STATES as readonly string[]).includes(state);

/** States whose arrival means the meeting is over and its recording can be archived. */
export const ARCHIVABLE_STATES: readonly string[] = ['ended', 'fatal_error'];

export { isoToMicros } from '../text/iso-micros';

/** A string whose order is the rule above, so DynamoDB can compare it in a condition. */
export function stateOrderKey(state: string, createdAtMicros: number): string {
  const tier = state === 'data_deleted' ? 2 : isFinalState(state) ? 1 : 0;
  const time = tier === 1 ? MAX_MICROS - createdAtMicros : createdAtMicros;
  const rank = isBotState(state) ? RANK[state] : 0;
  return `${tier}|${padMicros(time)}|${String(rank).padStart(2, '0')}|${state}`;
}
