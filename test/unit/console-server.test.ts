/**
 * The console server's gate, without a browser: the launch token becomes a session cookie and a
 * redirect that stays on this site, the CSRF token is needed for a change, a page may reach only
 * the routes the CLI calls (with their parameters decoded, a malformed escape being no route).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { matchRoute, PASSED_CHANGES, PASSED_READS } from '../../cli/console/console-routes';
import { type ConsoleServer, startConsoleServer } from '../../cli/console/console-server';
import { consoleSessions, cookieValue, SESSION_COOKIE } from '../../cli/console/console-session';
import type { Target } from '../../cli/target';

const dir = mkdtempSync(join(tmpdir(), 'console-unit-'));
const asked: Array<{ url: string; method: string }> = [];
const target: Target = {
  label: 'test target',
  apiBaseUrl: 'http://api.invalid',
  scheduleUrl: (id) => `http://schedules.invalid/schedules/${id}`,
  fetch: async (url, init) => {
    asked.push({ url, method: init?.method ?? 'GET' });
    return new Response(JSON.stringify({ ok: true }), { headers: { 'content-type': 'application/json' } });
  },
};
let server: ConsoleServer;

beforeAll(async () => {
  writeFileSync(join(dir, 'index.html'), '<!doctype html><title>t</title>');
  server = await startConsoleServer({ target, staticDir: dir, readOnly: false });
});
afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function session(path = '/'): Promise<{ cookie: string; location: string | null }> {
  const token = new URL(server.url).searchParams.get('token') ?? '';
  const answer = await fetch(`${server.origin}${path}${path.includes('?') ? '&' : '?'}token=${token}`, {
    redirect: 'manual',
  });
  expect(answer.status).toBe(303);
  return {
    cookie: (answer.headers.get('set-cookie') ?? '').split(';')[0] ?? '',
    location: answer.headers.get('location'),
  };
}

describe('the console server', () => {
  it('redirects the launch token away, to a path on this site only', async () => {
    expect((await session('/meetings?day=2026-11-28')).location).toBe('/meetings?day=2026-11-28');
    // `/.//host` is `//host` once dot segments go: the redirect must not be protocol-relative.
    const token = new URL(server.url).searchParams.get('token') ?? '';
    const raw = (path: string) =>
      new Promise<{ status: number; location: string | undefined }>((resolve, reject) => {
        const { port } = new URL(server.origin);
        httpRequest({ host: '127.0.0.1', port: Number(port), path }, (res) => {
          res.resume();
          resolve({ status: res.statusCode ?? 0, location: res.headers.location });
        })
          .on('error', reject)
          .end();
      });
    expect(await raw(`/.//evil.example/x?token=${token}`)).toEqual({ status: 303, location: '/evil.example/x' });
    expect((await raw(`//evil.example/x?token=${token}`)).status).toBe(400);
    expect((await raw(`http://evil.example/x?token=${token}`)).status).toBe(400);
  });

  it('needs the session cookie for data, and the CSRF token for a change', async () => {
    const { cookie } = await session();
    expect((await fetch(`${server.origin}/api/meetings`)).status).toBe(401);
    expect((await fetch(`${server.origin}/api/meetings`, { headers: { cookie } })).status).toBe(200);
    const csrf = (
      (await (await fetch(`${server.origin}/api/session`, { headers: { cookie } })).json()) as { csrf_token: string }
    ).csrf_token;
    const erase = (headers: Record<string, string>) =>
      fetch(`${server.origin}/api/meetings/bot_1`, { method: 'DELETE', headers: { cookie, ...headers } });
    expect((await erase({})).status).toBe(403);
    expect((await erase({ 'x-csrf-token': `${csrf}x` })).status).toBe(403);
    expect((await erase({ 'x-csrf-token': csrf, origin: 'http://evil.example' })).status).toBe(403);
    asked.length = 0;
    expect((await erase({ 'x-csrf-token': csrf })).status).toBe(200);
    expect(asked).toEqual([{ url: 'http://api.invalid/meetings/bot_1', method: 'DELETE' }]);
  });

  it('passes on only the routes the CLI calls; a schedule is cancelled at the schedule API', async () => {
    const { cookie } = await session();
    const csrf = (
      (await (await fetch(`${server.origin}/api/session`, { headers: { cookie } })).json()) as { csrf_token: string }
    ).csrf_token;
    expect((await fetch(`${server.origin}/api/admin`, { headers: { cookie } })).status).toBe(404);
    expect((await fetch(`${server.origin}/api/meetings/a/b/c`, { headers: { cookie } })).status).toBe(404);
    asked.length = 0;
    const cancel = await fetch(`${server.origin}/api/schedules/s%2F1`, {
      method: 'DELETE',
      headers: { cookie, 'x-csrf-token': csrf },
    });
    expect(cancel.status).toBe(200);
    expect(asked).toEqual([{ url: 'http://schedules.invalid/schedules/s/1', method: 'DELETE' }]);
  });
});

describe('console routes and sessions', () => {
  it('decodes path parameters and treats a malformed escape as no route', () => {
    expect(matchRoute(PASSED_READS, 'GET', '/meetings/bot%20x/transcript')).toEqual({
      route: 'GET /meetings/{bot_id}/transcript',
      params: { bot_id: 'bot x' },
    });
    expect(matchRoute(PASSED_READS, 'GET', '/meetings/%E0%A4%A')).toBeUndefined();
    expect(matchRoute(PASSED_READS, 'DELETE', '/meetings/x')).toBeUndefined();
    expect(matchRoute(PASSED_CHANGES, 'DELETE', '/meetings/x')?.route).toBe('DELETE /meetings/{bot_id}');
  });

  it('opens a session only for the launch token, each with its own CSRF token', () => {
    const sessions = consoleSessions();
    expect(sessions.open('wrong')).toBeUndefined();
    expect(sessions.open(undefined)).toBeUndefined();
    const a = sessions.open(sessions.launchToken);
    const b = sessions.open(sessions.launchToken);
    expect(a?.setCookie).toMatch(new RegExp(`^${SESSION_COOKIE}=[\\w-]+; HttpOnly; SameSite=Strict; Path=/$`));
    const cookieA = a?.setCookie.split(';')[0];
    const cookieB = b?.setCookie.split(';')[0];
    expect(sessions.csrfFor(cookieA)).not.toBe(sessions.csrfFor(cookieB));
    expect(sessions.changeAllowed(cookieA, sessions.csrfFor(cookieB))).toBe(false);
    expect(sessions.changeAllowed(cookieA, sessions.csrfFor(cookieA))).toBe(true);
    expect(cookieValue(`x=1; ${cookieA}; y=2`, SESSION_COOKIE)).toBe(cookieA?.split('=')[1]);
  });
});

describe('alarms in ALARM', () => {
  it("are the stack's alarms (those notifying its topic) in ALARM, every page", async () => {
    const { alarmsInAlarm } = await import('../../cli/doctor/alarm-check');
    const asks: unknown[] = [];
    const pages = [
      { MetricAlarms: [{ AlarmName: 'MeetingPipeline-IngressErrors' }], NextToken: 't1' },
      { MetricAlarms: [{ AlarmName: 'MeetingPipeline-MissedMeetings' }] },
    ];
    const cloudWatch = {
      send: async (command: { input: unknown }) => {
        asks.push(command.input);
        return pages.shift() ?? {};
      },
    } as unknown as Parameters<typeof alarmsInAlarm>[0];
    expect(await alarmsInAlarm(cloudWatch, 'arn:aws:sns:eu-west-1:1:alarms')).toEqual([
      'MeetingPipeline-IngressErrors',
      'MeetingPipeline-MissedMeetings',
    ]);
    expect(asks).toEqual([
      { StateValue: 'ALARM', ActionPrefix: 'arn:aws:sns:eu-west-1:1:alarms', NextToken: undefined },
      { StateValue: 'ALARM', ActionPrefix: 'arn:aws:sns:eu-west-1:1:alarms', NextToken: 't1' },
    ]);
  });
});
