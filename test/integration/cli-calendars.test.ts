/**
 * `meeting-pipeline calendars …` in process, against the real calendar handler on
 * dynalite served over HTTP on 127.0.0.1 (`--endpoint`): a Google source put by
 * flags, its users' states shown, a sync queued, a refusal as one line with exit 2,
 * and the flag mistakes the CLI catches itself before any request.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { calendarBody } from '../../cli/commands/calendars';
import { EXIT } from '../../cli/exit-codes';
import type { UserSyncRequest } from '../../lambdas/core/calendar/company/provider-contract';
import type { CompanyCalendarApi } from '../../lambdas/core/calendar/company-calendar-api';
import { type CalendarHarness, calendarHarness } from '../fixtures/calendar-harness';
import { cliInProcess } from '../fixtures/cli-in-process';
import { type LocalPipeline, startLocalPipeline } from '../fixtures/local-pipeline';

const NOW = Date.parse('2027-03-01T00:00:00Z');
const queued: UserSyncRequest[] = [];
const company: CompanyCalendarApi = {
  listUsers: async () => [
    {
      user: 'bob@acme.example',
      state: 'disconnected',
      reason: 'invalid_grant: account suspended',
      eventsSeen: 0,
      fromGroup: false,
    },
    {
      user: 'ada@acme.example',
      state: 'connected',
      lastSyncAt: '2027-02-28T23:55:00Z',
      eventsSeen: 7,
      fromGroup: false,
    },
  ],
  userScopeId: (calendarId, user) => `${calendarId}.u${user.length}`,
  resolveGroup: async () => [],
  keptOccurrences: async (calendarId) => ({ scopeId: calendarId, occurrences: [] }),
  cancelCompanyCalendar: async () => ({ cancelled: 0, failed: [] }),
  retireChannels: async () => 0,
};

let pipeline: LocalPipeline;
let calendars: CalendarHarness;
let server: Server;
let endpoint = '';

beforeAll(async () => {
  pipeline = await startLocalPipeline();
  calendars = await calendarHarness(() => NOW, {
    companyCalendars: company,
    userSyncQueue: { send: async (requests) => void queued.push(...requests) },
  });
  // The HTTP API in front of the handler, as local mode serves it.
  server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', async () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const answer = await calendars.call(
        request.method ?? 'GET',
        request.url ?? '/',
        text === '' ? undefined : JSON.parse(text),
      );
      response.writeHead(answer.status, { 'content-type': 'application/json' }).end(JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server?.closeAllConnections();
  server?.close();
  await pipeline?.stop();
});

/** Runs the CLI in process (test/fixtures/cli-in-process.ts): its exit code and what it wrote. */
function cli(args: string[]) {
  return cliInProcess([...args, '--endpoint', endpoint]);
}

describe('calendars put|get|sync|list', () => {
  it("puts a Google source by flags, shows each user's state, and queues a sync of every user", async () => {
    const put = await cli([
      ...['calendars', 'put', 'acme', '--google-secret', 'meeting-pipeline/calendars/acme'],
      ...['--users', 'ada@acme.example, bob@acme.example,carl@acme.example', '--bot-name', 'Acme notes'],
    ]);
    expect(put.stderr).toBe('');
    expect(put.code).toBe(EXIT.ok);
    expect(put.stdout).toMatch(/^calendar\s+acme$/m);
    expect(put.stdout).toMatch(/^source\s+google$/m);
    expect(put.stdout).toMatch(/^credentials secret\s+meeting-pipeline\/calendars\/acme$/m);
    expect(put.stdout).toMatch(/^users\s+3 \(1 connected, 1 pending, 1 disconnected\)$/m);
    expect(put.stdout).toMatch(/^ada@acme\.example\s+connected\s+2027-02-28T23:55:00\.000Z\s+7\s+-\s+-$/m);
    expect(put.stdout).toMatch(/^bob@acme\.example\s+disconnected\s+-\s+0\s+-\s+invalid_grant: account suspended$/m);
    expect(put.stdout).toMatch(/^carl@acme\.example\s+pending\s+/m);

    const got = await cli(['calendars', 'get', 'acme', '--json']);
    expect(JSON.parse(got.stdout)).toMatchObject({ provider: 'google', bot_name: 'Acme notes', totals: { users: 3 } });

    const sync = await cli(['calendars', 'sync', 'acme']);
    expect(sync.stdout).toBe('acme: 3 user sync(s) queued\n');
    expect(queued.map((request) => request.user)).toEqual([
      'ada@acme.example',
      'bob@acme.example',
      'carl@acme.example',
    ]);
  });

  it('lists every calendar through GET /calendars: a table, or the API answer with --json', async () => {
    const put = await cli(['calendars', 'put', 'team.ics', '--ics-url', 'https://calendar.example/team.ics']);
    expect(put.code).toBe(EXIT.ok);
    const listed = await cli(['calendars', 'list']);
    expect(listed.stderr).toBe('');
    expect(listed.code).toBe(EXIT.ok);
    const lines = listed.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^CALENDAR\s+SOURCE\s+BOT NAME\s+LOOKAHEAD\s+LAST SYNC$/);
    expect(lines.slice(1)).toEqual([
      expect.stringMatching(/^acme\s+google\s+Acme notes\s+14\s+-$/),
      expect.stringMatching(/^team\.ics\s+ics\s+\S.*\s+14\s+-$/),
    ]);
    const json = await cli(['calendars', 'list', '--json']);
    expect(JSON.parse(json.stdout)).toMatchObject({
      calendars: [
        { calendar_id: 'acme', source: 'google', bot_name: 'Acme notes', last_sync: null },
        { calendar_id: 'team.ics', source: 'ics' },
      ],
    });
  });

  it("says the API's refusal on one line, exit 2", async () => {
    const refused = await cli([
      ...['calendars', 'put', 'acme2', '--google-secret', 'prod/google-key', '--users', 'ada@acme.example'],
    ]);
    expect(refused.code).toBe(EXIT.usage);
    expect(refused.stdout).toBe('');
    expect(refused.stderr.trim().split('\n')).toEqual([
      expect.stringContaining('the secret\'s name must start with "meeting-pipeline/calendars/"'),
    ]);
    const kind = await cli(['calendars', 'put', 'acme', '--ics-url', 'https://calendar.example/a.ics']);
    expect(kind.stderr).toContain('409: Calendar acme is a google source; it cannot become an ICS feed');
  });

  it('catches flags that do not go together before any request', () => {
    const mistakes: Array<[Parameters<typeof calendarBody>[0], string]> = [
      [{}, 'calendars put needs one source: --ics-url URL, --google-secret NAME or --microsoft-tenant ID'],
      [
        { 'ics-url': 'https://x.example/a.ics', 'google-secret': 's' },
        'calendars put takes one source, not --ics-url and --google-secret',
      ],
      [{ 'google-secret': 's' }, 'calendars put needs one of --users A,B,… and --group ADDRESS'],
      [
        { 'google-secret': 's', users: 'a@x.example', group: 'g@x.example', admin: 'i@x.example' },
        'calendars put needs one of --users A,B,… and --group ADDRESS',
      ],
      [
        { 'google-secret': 's', group: 'g@x.example' },
        '--group needs --admin ADDRESS: Google lists group members as an administrator',
      ],
      [{ 'google-secret': 's', 'group-id': 'g' }, '--group-id is for Microsoft; a Google group is --group'],
      [
        { 'microsoft-tenant': 't', users: 'a@x.example' },
        '--microsoft-tenant needs --microsoft-client ID and --microsoft-secret NAME',
      ],
      [
        { 'ics-url': 'https://x.example/a.ics', users: 'a@x.example' },
        '--users is for a company source, not --ics-url',
      ],
    ];
    for (const [flags, message] of mistakes) expect(() => calendarBody(flags), JSON.stringify(flags)).toThrow(message);
    expect(
      calendarBody({
        'microsoft-tenant': 'contoso.onmicrosoft.com',
        'microsoft-client': 'c',
        'microsoft-secret': 'meeting-pipeline/calendars/contoso',
        'group-id': 'g',
        join: 'all',
        'lookahead-days': '30',
      }),
    ).toEqual({
      microsoft: {
        tenant_id: 'contoso.onmicrosoft.com',
        client_id: 'c',
        credentials_secret: 'meeting-pipeline/calendars/contoso',
        group_id: 'g',
      },
      rules: { join: 'all' },
      lookahead_days: 30,
    });
  });
});
