/**
 * The simulated service plays every path of a meeting as the service does (its
 * transitions in upstream.md): recorded, removed part way, never admitted (Zoom
 * reports the lobby as `waiting_room`, Teams and Meet bots stay `joining`) until the
 * lobby times out or the meeting ends, refused entry with each reason. Each row
 * checks the bot's `events` as `GET bots/{id}` lists them, the state changes its
 * webhooks carried, in order and chained, and what the REST API then answers for
 * its recording and transcript.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SimulatedServiceApi } from '../../local/simulator/api-server';
import { type BotScenarioName, SCENARIO_METADATA_KEY } from '../../local/simulator/bot-scenarios';
import { playMeeting } from '../../local/simulator/meeting-player';
import type { PyValue } from '../../local/simulator/python-json';
import { NO_CHAOS, WebhookSender } from '../../local/simulator/webhook-sender';

const MEET = 'https://meet.google.com/abc-defg-hij';
const TEAMS = 'https://teams.microsoft.com/meet/2345678901234?p=AbCdEf';
const ZOOM = 'https://zoom.us/j/81234567890';
const NO_RECORDING = { status: 404, body: { error: 'No recording found for bot' } };

/** Keeps each webhook in the order it was sent, instead of delivering it. */
class KeptWebhooks extends WebhookSender {
  readonly kept: Array<{ [key: string]: PyValue }> = [];
  override send(payload: { [key: string]: PyValue }): void {
    this.kept.push(payload);
  }
}

const service = new SimulatedServiceApi();
beforeAll(async () => {
  await service.start();
  service.apiKeys.set('k', 'all');
  // The service hands each started bot to its player (here: the test), as local mode's does.
  service.onBotStarted = () => undefined;
});
afterAll(() => service.stop());

async function get(path: string): Promise<{ status: number; body: unknown }> {
  const response = await fetch(new URL(path, service.baseUrl), { headers: { authorization: 'Token k' } });
  return { status: response.status, body: await response.json() };
}

/** Creates a bot through the API (its scenario in its metadata, as a test or the pipeline asks) and plays it. */
async function play(meetingUrl: string, scenario: BotScenarioName) {
  const created = await fetch(new URL('bots', service.baseUrl), {
    method: 'POST',
    headers: { authorization: 'Token k', 'content-type': 'application/json' },
    body: JSON.stringify({
      meeting_url: meetingUrl,
      bot_name: 'Notetaker',
      metadata: { [SCENARIO_METADATA_KEY]: scenario },
    }),
  });
  expect(created.status).toBe(201);
  const bot = service.bots.get(((await created.json()) as { id: string }).id)!;
  const sender = new KeptWebhooks({
    url: () => 'http://127.0.0.1:9/unused',
    signingSecret: 'c2VjcmV0',
    chaos: NO_CHAOS,
    random: () => 0,
  });
  const played = playMeeting(bot, sender, { stepMs: 1, recordingBytes: 16, random: () => 0, scenario });
  await played.done;
  const changes = sender.kept
    .filter((webhook) => webhook.trigger === 'bot.state_change')
    .map((webhook) => webhook.data as { [key: string]: PyValue });
  return { bot, played, changes, sent: sender.kept };
}

type Event = [type: string, subType: string | null];
const JOIN: Event = ['join_requested', null];
const LOBBY: Event = ['put_in_waiting_room', null];
const JOINED: Event[] = [
  ['joined_meeting', null],
  ['recording_permission_granted', null],
];
const POST_PROCESSED: Event = ['post_processing_completed', null];
const refused = (subType: string): Event => ['could_not_join_meeting', subType];

describe('every path of a meeting, as the service plays it', () => {
  it.each<[string, string, BotScenarioName, Event[], string]>([
    [
      'recorded (Meet): joins, records, leaves once alone',
      MEET,
      'recorded',
      [
        JOIN,
        ...JOINED,
        ['leave_requested', 'auto_leave_only_participant_in_meeting'],
        ['left_meeting', null],
        POST_PROCESSED,
      ],
      'ended',
    ],
    ['removed part way (Teams)', TEAMS, 'removed', [JOIN, ...JOINED, ['meeting_ended', null], POST_PROCESSED], 'ended'],
    [
      'never admitted (Zoom): waiting_room until the timeout',
      ZOOM,
      'waiting_room_timeout_exceeded',
      [JOIN, LOBBY, refused('waiting_room_timeout_exceeded')],
      'fatal_error',
    ],
    [
      'never admitted (Teams): joining until the timeout',
      TEAMS,
      'waiting_room_timeout_exceeded',
      [JOIN, refused('waiting_room_timeout_exceeded')],
      'fatal_error',
    ],
    [
      'never admitted (Meet): joining until the timeout',
      MEET,
      'waiting_room_timeout_exceeded',
      [JOIN, refused('waiting_room_timeout_exceeded')],
      'fatal_error',
    ],
    [
      'the meeting ends while the bot is in the waiting room (Zoom)',
      ZOOM,
      'ended_in_lobby',
      [JOIN, LOBBY, ['meeting_ended', null], POST_PROCESSED],
      'ended',
    ],
    [
      'the meeting ends while the bot is joining (Teams)',
      TEAMS,
      'ended_in_lobby',
      [JOIN, ['meeting_ended', null], POST_PROCESSED],
      'ended',
    ],
    [
      'denied from the waiting room (Zoom)',
      ZOOM,
      'request_to_join_denied',
      [JOIN, LOBBY, refused('request_to_join_denied')],
      'fatal_error',
    ],
    [
      'denied while joining (Meet)',
      MEET,
      'request_to_join_denied',
      [JOIN, refused('request_to_join_denied')],
      'fatal_error',
    ],
    ['meeting not found', MEET, 'meeting_not_found', [JOIN, refused('meeting_not_found')], 'fatal_error'],
    ['login required', MEET, 'login_required', [JOIN, refused('login_required')], 'fatal_error'],
    ['blocked by a captcha', MEET, 'blocked_by_captcha', [JOIN, refused('blocked_by_captcha')], 'fatal_error'],
    [
      'wrong password in the link',
      ZOOM,
      'unable_to_connect_to_meeting',
      [JOIN, refused('unable_to_connect_to_meeting')],
      'fatal_error',
    ],
  ])('%s', async (_path, meetingUrl, scenario, events, finalState) => {
    const { bot, played, changes } = await play(meetingUrl, scenario);
    const answer = await get(`bots/${bot.id}`);
    const listed = (answer.body as { events: Array<Record<string, unknown>> }).events;
    // Every event with its type, sub-type and time, and nothing the service keeps to itself.
    expect(listed.map((event) => [event.type, event.sub_type])).toEqual(events);
    for (const event of listed) {
      expect(Object.keys(event).sort()).toEqual(['created_at', 'sub_type', 'type']);
      expect(event.created_at).toMatch(/^\d{4}-\d\d-\d\dT[\d:.]+Z$/);
    }
    expect(answer.body).toMatchObject({ state: finalState });
    expect(played.finalState).toBe(finalState);
    // The webhooks carry the same changes, each from the state the one before left the bot in.
    expect(changes.map((change) => [change.event_type, change.event_sub_type])).toEqual(events);
    expect(changes[0]?.old_state).toBe('ready');
    for (const [i, change] of changes.entries()) if (i > 0) expect(change.old_state).toBe(changes[i - 1]?.new_state);
    expect(changes.at(-1)?.new_state).toBe(finalState);
  });

  it.each<[string, BotScenarioName]>([
    [TEAMS, 'waiting_room_timeout_exceeded'],
    [ZOOM, 'ended_in_lobby'],
    [ZOOM, 'request_to_join_denied'],
    [MEET, 'blocked_by_captcha'],
  ])(
    'a bot that never joined %s (%s) has no recording, no transcript, no participants',
    async (meetingUrl, scenario) => {
      const { bot, played, sent } = await play(meetingUrl, scenario);
      expect(await get(`bots/${bot.id}/transcript`)).toEqual(NO_RECORDING);
      expect(await get(`bots/${bot.id}/recording`)).toEqual(NO_RECORDING);
      expect(await get(`bots/${bot.id}/participants`)).toEqual({
        status: 200,
        body: { next: null, previous: null, results: [] },
      });
      expect(sent.every((webhook) => webhook.trigger === 'bot.state_change')).toBe(true);
      expect(played).toMatchObject({ utterances: [], participants: [], summary: undefined, recording: null });
    },
  );

  it('a bot removed part way has the lines said before the removal, and its recording', async () => {
    const { bot, played } = await play(TEAMS, 'removed');
    const whole = await play(TEAMS, 'recorded');
    expect(played.utterances.length).toBeLessThan(whole.played.utterances.length);
    expect(await get(`bots/${bot.id}/transcript`)).toMatchObject({ status: 200 });
    expect((await get(`bots/${bot.id}/transcript`)).body).toHaveLength(played.utterances.length);
    expect((await get(`bots/${bot.id}/recording`)).status).toBe(200);
  });
});
