/** `meetings why <bot>` and `meetings list --outcome`, against a read API answering its contract. */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type MeetingView, meetingList, meetingView } from '../../lambdas/core/read/read-api-contract';
import { cliInProcess } from '../fixtures/cli-in-process';

const missed: MeetingView = meetingView.parse({
  bot_id: 'bot_lobby',
  state: 'fatal_error',
  state_at: '2026-11-20T10:16:00.000Z',
  summary: null,
  utterance_count: 0,
  participant_count: 0,
  schedule_id: 'standup',
  meeting_url: 'https://zoom.us/j/123',
  scheduled_join_at: '2026-11-20T10:00:00.000Z',
  archived_at: null,
  recording: null,
  outcome: {
    status: 'missed',
    reason: 'waiting_room_timeout_exceeded',
    sentence: 'The bot waited in the lobby for 15 min and was never admitted.',
  },
  timeline: [
    {
      at: '2026-11-20T10:01:00.000Z',
      event_type: 'join_requested',
      event_sub_type: null,
      old_state: 'staged',
      new_state: 'joining',
    },
    {
      at: '2026-11-20T10:01:30.000Z',
      event_type: 'put_in_waiting_room',
      event_sub_type: null,
      old_state: 'joining',
      new_state: 'waiting_room',
    },
    {
      at: '2026-11-20T10:16:00.000Z',
      event_type: 'could_not_join_meeting',
      event_sub_type: 'waiting_room_timeout_exceeded',
      old_state: 'waiting_room',
      new_state: 'fatal_error',
    },
  ],
});

const asked: string[] = [];
const server = createServer((request, response) => {
  asked.push(request.url ?? '');
  const url = new URL(request.url ?? '/', 'http://127.0.0.1');
  const json = (body: unknown) =>
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  if (url.pathname === '/meetings') {
    const { timeline: _timeline, summary: _summary, utterance_count, participant_count, recording, ...entry } = missed;
    return json(meetingList.parse({ meetings: [entry], next_cursor: null }));
  }
  return json(missed);
});
let endpoint: string;

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

async function run(...argv: string[]): Promise<{ out: string; err: string; code: unknown }> {
  const { stdout: out, stderr: err, code } = await cliInProcess([...argv, '--endpoint', endpoint]);
  return { out, err, code };
}

describe('meetings why', () => {
  it('prints the timeline (scheduled, launched, each state with its reason and time) and the outcome sentence', async () => {
    const { out } = await run('meetings', 'why', 'bot_lobby');
    const lines = out.trimEnd().split('\n');
    expect(lines[1]).toMatch(
      /^2026-11-20T10:00:00\.000Z\s+scheduled\s+schedule standup, join at 2026-11-20T10:00:00\.000Z$/,
    );
    expect(lines[2]).toMatch(/^-\s+launched\s+bot bot_lobby$/);
    expect(lines[5]).toMatch(
      /^2026-11-20T10:16:00\.000Z\s+could_not_join_meeting \(waiting_room_timeout_exceeded\)\s+waiting_room → fatal_error$/,
    );
    expect(lines.slice(-2)).toEqual([
      'outcome: missed (waiting_room_timeout_exceeded)',
      'The bot waited in the lobby for 15 min and was never admitted.',
    ]);
  });

  it('--json gives the outcome and the timeline as answered', async () => {
    const { out } = await run('meetings', 'why', 'bot_lobby', '--json');
    expect(JSON.parse(out)).toEqual({ bot_id: 'bot_lobby', outcome: missed.outcome, timeline: missed.timeline });
  });
});

describe('meetings list --outcome', () => {
  it('asks the read API for that outcome and shows it', async () => {
    asked.length = 0;
    const { out } = await run('meetings', 'list', '--outcome', 'missed');
    expect(asked).toEqual([expect.stringMatching(/^\/meetings\?(.*&)?outcome=missed(&|$)/)]);
    expect(out).toMatch(/OUTCOME/);
    expect(out).toMatch(/missed waiting_room_timeout_exceeded/);
  });

  it('refuses an outcome that is none, naming the ones there are, without asking the API', async () => {
    asked.length = 0;
    const { err, code } = await run('meetings', 'list', '--outcome', 'lost');
    expect(code).toBe(2);
    expect(err).toMatch(/--outcome takes one of scheduled, in_progress, recorded, partial, missed, failed, cancelled/);
    expect(asked).toEqual([]);
  });
});
