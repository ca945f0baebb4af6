/** `npm run dev` flags: --help lists them, a bad one is a single line and exit code 2, never a stack trace. */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');
const dev = (...args: string[]) =>
  spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'bin/dev.ts'), ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 60_000,
    env: { ...process.env, UPSTREAM_API_KEY: '', SIGNING_SECRET: undefined },
  });

describe('npm run dev flags', () => {
  it('lists every flag with --help', () => {
    const result = dev('--help');
    expect(result.status).toBe(0);
    for (const flag of [
      '--meetings',
      '--chaos',
      '--once',
      '--serve',
      '--resume',
      '--rate-limit',
      '--step-ms',
      '--recording-mb',
      '--calendar-simulators',
      '--calendar-secrets',
      '--google-api',
      '--google-token-url',
      '--microsoft-graph',
      '--microsoft-login',
    ])
      expect(result.stdout).toContain(flag);
    expect(result.stdout).toContain('.local/endpoints.json');
  });

  it.each([
    [['--bogus'], /unknown option --bogus \(npm run dev -- --help/],
    [['--meetigns', '2'], /unknown option --meetigns \(did you mean --meetings\?\)/],
    [['--meetings', '-3'], /--meetings takes a whole number from 1 to 50, not "-3"/],
    [['--chaos=1'], /--chaos takes no value/],
    [['extra'], /unexpected "extra": local mode takes flags only/],
    [
      ['--calendar', '/nonexistent.ics'],
      /--calendar \/nonexistent\.ics does not exist: give an ICS file, an https URL, or sample/,
    ],
    [['--meetings', '0'], /--meetings takes a whole number from 1 to 50, not "0"/],
    [['--meetings', 'two'], /--meetings takes a whole number/],
    [['--rate-limit=-3'], /--rate-limit takes a whole number from 1/],
    [['--rate-limit', '-3'], /--rate-limit/],
    [['--step-ms', '1.5'], /--step-ms takes a whole number/],
    [['--upstream', 'https://sandbox.example.com/api/v1/'], /--upstream runs with --serve/],
    [
      ['--serve', '--upstream', 'http://sandbox.example.com/api/v1/'],
      /must be https \(plain http only for a service on this machine\)/,
    ],
    [['--serve', '--upstream', 'https://sandbox.example.com/'], /must end in \/api\/v1\//],
    [['--serve', '--upstream', 'http://127.0.0.1:9/api/v1/'], /needs the service API key in UPSTREAM_API_KEY/],
    [['--google-api', 'googleapis.com'], /--google-api takes the Google APIs' root .* as a URL, not "googleapis\.com"/],
    [['--microsoft-graph', 'http://graph.microsoft.com/v1.0'], /--microsoft-graph must be https \(plain http only/],
    [['--microsoft-login', 'https://u:p@login.example'], /--microsoft-login must not carry a user name or password/],
    [['--google-token-url', 'https://oauth2.example/token?x=1'], /--google-token-url takes a base URL without \?query/],
    [
      ['--calendar-simulators', '--google-api', 'http://127.0.0.1:9/'],
      /--calendar-simulators points the provider endpoints at the simulators/,
    ],
    [['--calendar-secrets', 'no-such-file.json'], /--calendar-secrets: cannot read no-such-file\.json \(ENOENT\)/],
    [['--calendar-simulators=yes'], /--calendar-simulators/],
  ])('%j is one clear line and exit 2', (args, message) => {
    const result = dev(...args);
    expect(result.status).toBe(2);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(message);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });
});
