/**
 * `POST bots/{id}/delete_data` (upstream-facts.md): the client's call against the simulated
 * service, which allows it only once the meeting is over, deletes the recording, transcript
 * and participants (not the metadata), answers with the bot, and sends the bot's move to
 * `data_deleted` as a state-change webhook.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BadRequestError, ForbiddenError, NotFoundError, UpstreamClient } from '../../lambdas/core/upstream/client';
import { SimulatedServiceApi, type SimulatedStateChange } from '../../local/simulator/api-server';

const service = new SimulatedServiceApi();
const changes: Array<{ botId: string; change: SimulatedStateChange }> = [];

beforeAll(async () => {
  await service.start();
  service.apiKeys.set('full', 'all');
  service.apiKeys.set('read-only', new Set(['bots:read']));
  service.onStateChange = (bot, change) => void changes.push({ botId: bot.id, change });
});
afterAll(() => service.stop());

const client = (key = 'full') => new UpstreamClient({ baseUrl: service.baseUrl, apiKey: async () => key });

function endedBot() {
  return service.addBot({
    state: 'ended',
    metadata: { schedule_id: 's-1' },
    transcript: [{ speaker_name: 'Ada', timestamp_ms: 1, transcription: { transcript: 'hello' } }],
    participants: [{ id: 'par_1', name: 'Ada', uuid: 'u1', user_uuid: null, is_host: true }],
    recording: { size: 1024, seed: 1, contentType: 'video/mp4' },
  });
}

describe('POST bots/{id}/delete_data', () => {
  it('deletes an ended bot’s recording, transcript and participants, keeps its metadata, and says data_deleted', async () => {
    const bot = endedBot();
    await client().deleteBotData(bot.id);
    expect(await client().getBot(bot.id)).toMatchObject({ state: 'data_deleted', metadata: { schedule_id: 's-1' } });
    expect(await client().getTranscript(bot.id)).toEqual([]);
    expect(await client().getRecording(bot.id)).toBeNull();
    expect(await client().listParticipants(bot.id)).toEqual([]);
    expect(changes.filter((c) => c.botId === bot.id).map((c) => [c.change.oldState, c.change.newState])).toEqual([
      ['ended', 'data_deleted'],
    ]);
    expect(service.requests).toContainEqual(
      expect.objectContaining({ method: 'POST', path: `/api/v1/bots/${bot.id}/delete_data` }),
    );
  });

  it('is refused with 400 and the reason before the meeting is over, and once the data is deleted', async () => {
    const live = service.addBot({ state: 'joined_recording' });
    await expect(client().deleteBotData(live.id)).rejects.toThrow(BadRequestError);
    await expect(client().deleteBotData(live.id)).rejects.toThrow(/joined_recording/);
    expect(service.bots.get(live.id)?.state).toBe('joined_recording');

    const bot = endedBot();
    await client().deleteBotData(bot.id);
    await expect(client().deleteBotData(bot.id)).rejects.toThrow(/data_deleted/);
    expect(changes.filter((c) => c.botId === bot.id)).toHaveLength(1);
  });

  it('answers 404 for an unknown bot and 403 for a key without bots:write', async () => {
    await expect(client().deleteBotData('bot_nobody')).rejects.toThrow(NotFoundError);
    await expect(client('read-only').deleteBotData(endedBot().id)).rejects.toThrow(ForbiddenError);
  });
});
