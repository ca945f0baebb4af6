/**
 * Local mode's verdict on a stored meeting (local/meeting-check.ts) follows what the
 * simulated service played: a meeting the bot never joined is right with its final
 * state and nothing else (no lines, participants, summary or recording), and wrong
 * with an archived recording; a recorded one still needs its recording.
 */
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keys } from '../../lambdas/core/store/table-layout';
import { documentClient } from '../../lambdas/shared/dynamo-client';
import { checkMeetings } from '../../local/meeting-check';
import type { PlayedMeeting } from '../../local/simulator/meeting-player';
import { startWorld, type World } from '../fixtures/world';

let world: World & { stop(): Promise<void> };
beforeAll(async () => {
  world = await startWorld();
}, 60_000);
afterAll(() => world?.stop());

const neverJoined = (botId: string): PlayedMeeting => ({
  botId,
  scenario: 'request_to_join_denied',
  finalState: 'fatal_error',
  utterances: [],
  participants: [],
  summary: undefined,
  recording: null,
  done: Promise.resolve(),
});

async function check(botId: string, meeting: Record<string, unknown>, played: PlayedMeeting) {
  const db = documentClient();
  const tableName = world.resources.tableName;
  await db.send(new PutCommand({ TableName: tableName, Item: { ...keys.meeting(botId), botId, ...meeting } }));
  const [result] = await checkMeetings([`schedule-of-${botId}`], {
    db,
    tableName,
    played: new Map([[botId, played]]),
    botIdOf: async () => botId,
  });
  return result!;
}

describe('the meeting check, for a bot that never joined', () => {
  it('passes with the played final state and nothing recorded', async () => {
    const result = await check('bot_denied', { state: 'fatal_error' }, neverJoined('bot_denied'));
    expect(result).toMatchObject({ ok: true, problems: [], state: 'fatal_error', utterances: 0, recording: undefined });
  });

  it('passes once archived with no recording', async () => {
    const result = await check(
      'bot_denied_archived',
      { state: 'fatal_error', archive: { recordingStatus: 'none', recording: null } },
      neverJoined('bot_denied_archived'),
    );
    expect(result.problems).toEqual([]);
  });

  it('fails when a recording is archived for it, or its state is not the played one', async () => {
    const archived = await check(
      'bot_denied_recorded',
      {
        state: 'fatal_error',
        archive: { recordingStatus: 'archived', recording: { key: 'k', bytes: 1, sha256: 'x' } },
      },
      neverJoined('bot_denied_recorded'),
    );
    expect(archived.problems).toEqual(['a recording is archived (archived), but the bot never joined']);
    const state = await check('bot_denied_ended', { state: 'ended' }, neverJoined('bot_denied_ended'));
    expect(state.problems).toEqual(['state is ended, played fatal_error']);
  });

  it('still fails a recorded meeting stored without its recording', async () => {
    const played: PlayedMeeting = {
      ...neverJoined('bot_recorded'),
      scenario: 'recorded',
      finalState: 'ended',
      recording: { seed: 1, size: 16 },
    };
    const result = await check('bot_recorded', { state: 'ended' }, played);
    expect(result.problems).toHaveLength(1);
    expect(result.problems[0]).toMatch(/^recording checksum missing ≠ played [0-9a-f]{64}$/);
  });
});
