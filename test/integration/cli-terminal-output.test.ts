/**
 * The CLI run against an API (a real HTTP server on 127.0.0.1) whose answers carry
 * participants' hostile text, as an older stack or a compromised endpoint would
 * serve it: what reaches the terminal (tables, fields, text, errors) acts on
 * nothing, and `--json` parses back to the exact text.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliInProcess } from '../fixtures/cli-in-process';
import { controlsIn } from '../fixtures/control-characters';

const ESCAPES = '\u001b]52;c;Y3VybCBldmlsIHwgc2g=\u0007\u009b2J\u202e';
const BOT = `bot_${ESCAPES}1`;
const meeting = {
  bot_id: BOT,
  state: `ended${ESCAPES}`,
  state_at: '2026-11-20T12:00:00.000Z',
  summary: `Minutes\u001b]8;;https://evil.example/\u001b\\click\u001b]8;;\u001b\\`,
  utterance_count: 1,
  participant_count: 1,
  schedule_id: null,
  meeting_url: null,
  scheduled_join_at: null,
  archived_at: null,
  recording: null,
  outcome: { status: 'missed', reason: `denied${ESCAPES}`, sentence: `The bot\nwas ${ESCAPES} denied.` },
  timeline: [
    {
      at: '2026-11-20T12:00:00.000Z',
      event_type: `could_not_join_meeting${ESCAPES}`,
      event_sub_type: `request_to_join_denied${ESCAPES}`,
      old_state: `joining${ESCAPES}`,
      new_state: null,
    },
  ],
};

const server = createServer((request, response) => {
  const path = new URL(request.url ?? '/', 'http://127.0.0.1').pathname;
  const json = (status: number, body: unknown) =>
    response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  if (path === '/meetings') return json(200, { meetings: [meeting], next_cursor: null });
  if (path.endsWith('/participants'))
    return json(200, {
      bot_id: 'bot_1',
      participants: [
        {
          participant_uuid: `p-1${ESCAPES}`,
          name: `Mallory${ESCAPES}`,
          user_uuid: null,
          is_host: true,
          joined_at: '2026-11-20T12:00:00.000Z',
          left_at: null,
        },
      ],
    });
  if (path.endsWith('/transcript'))
    return response.writeHead(200, { 'content-type': 'text/plain' }).end(`[00:00:01] Mallory${ESCAPES}: hi\r\n`);
  if (path.startsWith('/meetings/missing')) return json(404, { error: `No meeting ${ESCAPES}` });
  return json(200, meeting);
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

/** Runs the CLI in process (test/fixtures/cli-in-process.ts), returning what it wrote to stdout and stderr. */
async function run(...argv: string[]): Promise<{ out: string; err: string }> {
  const { stdout: out, stderr: err } = await cliInProcess([...argv, '--endpoint', endpoint]);
  return { out, err };
}

describe('CLI output of hostile text', () => {
  it.each([
    ['meetings list', ['meetings', 'list']],
    ['meetings show', ['meetings', 'show', 'bot_1']],
    ['meetings why', ['meetings', 'why', 'bot_1']],
    ['meetings participants', ['meetings', 'participants', 'bot_1']],
    ['transcript', ['transcript', 'bot_1']],
    ['an error', ['meetings', 'show', 'missing']],
  ])('%s writes no control character to the terminal', async (_what, argv) => {
    const { out, err } = await run(...argv);
    expect(`${out}${err}`.length).toBeGreaterThan(0);
    expect(controlsIn(out)).toEqual([]);
    expect(controlsIn(err)).toEqual([]);
  });

  it('meetings participants lists each participant, one row each', async () => {
    const { out, err } = await run('meetings', 'participants', 'bot_1');
    expect(out.split('\n')[0]).toMatch(/^NAME\s+HOST\s+JOINED\s+LEFT\s+PARTICIPANT$/);
    expect(out).toMatch(/Mallory.*yes\s+2026-11-20T12:00:00\.000Z/);
    expect(err).toBe('1 participant\n');
  });

  it('--json keeps the exact text, escaped', async () => {
    const { out } = await run('meetings', 'show', 'bot_1', '--json');
    expect(controlsIn(out)).toEqual([]);
    expect(JSON.parse(out)).toEqual(meeting);
  });
});
