/**
 * The CLI forgives, as a user meets it (child processes, no stack needed): a mistake is one
 * line on stderr with what to do (the closest flag or command when one is near), a reader that
 * stops reading (`| head`) ends it quietly, `--help` shows every summary whole, and a bad
 * setting at `cdk synth` is one line naming the key, never a Node trace. One case of each kind
 * runs the bin as a child, as the user's shell does (the exit status, the lines on stderr, the
 * width with no terminal); its variations run `main` in this process (each child costs seconds
 * of start-up on a busy machine).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { EXIT } from '../../cli/exit-codes';
import { COMMANDS } from '../../cli/main';
import { cdkJsonContext } from '../../lib/config';
import { cliInProcess } from '../fixtures/cli-in-process';
import { BIN, CLI_ENTRY, childEnvironment, cli, ROOT, type Run, run } from '../fixtures/cli-local-stack';

/** stderr without the npm warning this machine's npm config adds to every npx. */
const stderrLines = (stderr: string) => stderr.split('\n').filter((line) => line !== '' && !line.includes('nodedir'));
const NO_TRACE = /^\s+at /m;

describe('one-line errors', () => {
  it('an unknown flag names the closest known one, wherever it stands', async () => {
    const cases = [
      [
        ['meetings', 'list', '--endpiont', 'http://127.0.0.1:1'],
        'unknown option --endpiont (did you mean --endpoint?)',
      ],
      [['meetings', 'list', '--limt', '3', '--local'], 'unknown option --limt (did you mean --limit?)'],
      [['--jsn', 'meetings', 'list'], 'unknown option --jsn (did you mean --json?)'],
      [['meetings', 'list', '--zzzzzz'], 'unknown option --zzzzzz'],
      [['meeting', 'list'], 'no command "meeting" (did you mean meetings?)'],
      [['meetings', 'lst'], 'no lst (did you mean meetings list?); one of list, show, participants, why'],
      [
        ['meetings', 'list', '--state', 'ende', '--endpoint', 'http://127.0.0.1:1'],
        '--state takes a bot state, not "ende" (did you mean ended?): one of ready, scheduled',
      ],
    ] as const;
    // The first as a child, the others one at a time in this process.
    const results = new Map<(typeof cases)[number][0], Run>();
    for (const [i, [args]] of cases.entries()) results.set(args, await (i === 0 ? cli : cliInProcess)([...args]));
    for (const [args, expected] of cases) {
      const result = results.get(args) ?? { code: -1, stdout: '', stderr: '' };
      expect({ args, code: result.code }).toEqual({ args, code: EXIT.usage });
      expect(stderrLines(result.stderr), args.join(' ')).toHaveLength(1);
      expect(result.stderr).toContain(expected);
      expect(result.stderr).not.toMatch(NO_TRACE);
    }
    expect(results.get(cases[3][0])?.stderr).not.toContain('did you mean');
  });

  it('the replay and quarantine tools answer a mistake in one line too, and --help with their usage', async () => {
    const tsx = join(ROOT, 'node_modules', '.bin', 'tsx');
    const cases = [
      [['bin/replay.ts', '--bogus'], 'npm run replay: unknown option --bogus'],
      [['bin/replay.ts', '--bot'], '--bot needs a value'],
      [['bin/replay.ts'], 'which bots? name each with --bot <bot_id>'],
      [['bin/quarantine.ts', '--bogus'], 'npm run quarantine: unknown option --bogus'],
      [['bin/quarantine.ts', 'redrive', '--dry-rn'], 'unknown option --dry-rn (did you mean --dry-run?)'],
      [['bin/quarantine.ts', 'lst'], 'no command "lst": list or redrive'],
    ] as const;
    const results = await Promise.all(cases.map(([args]) => run(tsx, [...args])));
    cases.forEach(([args, expected], i) => {
      const result = results[i] ?? { code: -1, stdout: '', stderr: '' };
      expect({ args, code: result.code }).toEqual({ args, code: 2 });
      expect(stderrLines(result.stderr), args.join(' ')).toHaveLength(1);
      expect(result.stderr).toContain(expected);
      expect(result.stderr).not.toMatch(NO_TRACE);
    });
    for (const tool of ['bin/replay.ts', 'bin/quarantine.ts']) {
      const help = await run(tsx, [tool, '--help']);
      expect({ tool, code: help.code, usage: help.stdout.startsWith('usage: npm run ') }).toEqual({
        tool,
        code: 0,
        usage: true,
      });
    }
  });

  it('says local mode is not running when nothing answers where its endpoints file points', async () => {
    // A port nothing listens on: taken from the system, then let go.
    const port = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, '127.0.0.1', () => {
        const { port: free } = server.address() as AddressInfo;
        server.close(() => resolve(free));
      });
    });
    const home = mkdtempSync(join(tmpdir(), 'cli-down-'));
    const file = join(home, 'endpoints.json');
    const at = `http://127.0.0.1:${port}`;
    writeFileSync(
      file,
      JSON.stringify({
        readApiUrl: at,
        scheduleApiUrl: `${at}/schedules`,
        sqs: {
          endpoint: at,
          eventsQueueUrl: `${at}/q/e`,
          eventsDeadLetterQueueUrl: `${at}/q/d`,
          archiveQueueUrl: `${at}/q/a`,
        },
        s3: { endpoint: at, payloadBucket: 'p', recordingsBucket: 'r' },
        dynamodb: { endpoint: at, tableName: 't' },
        region: 'us-east-1',
      }),
    );
    try {
      for (const [words, command] of [
        [['meetings', 'list'], 'meetings list'],
        [['search', 'pricing'], 'search'],
        [['doctor'], 'doctor'],
      ] as const) {
        // The first as a child, the others in this process.
        const result = await (words[0] === 'meetings' ? cli : cliInProcess)(['--endpoints-file', file, ...words]);
        expect({ words, code: result.code }).toEqual({ words, code: EXIT.error });
        expect(stderrLines(result.stderr), words.join(' ')).toEqual([
          `meeting-pipeline ${command}: nothing answers at 127.0.0.1:${port}: local mode is not running here (start it with npm run dev), or the endpoint names another port`,
        ]);
      }
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('a flag without its value says so on one line, also when the next word is a flag', async () => {
    const cases = [
      ['schedule', 'put', 'later', '--meeting-url', 'https://meet.google.com/abc-defg-hij', '--join-at'],
      ['schedule', 'put', 'later', '--join-at', '--meeting-url', 'https://meet.google.com/abc-defg-hij'],
      ['meetings', 'list', '--endpoint'],
    ];
    const results: Run[] = [];
    for (const args of cases) results.push(await cliInProcess(args));
    for (const [i, args] of cases.entries()) {
      const result = results[i] ?? { code: -1, stderr: '' };
      expect({ args, code: result.code }).toEqual({ args, code: EXIT.usage });
      expect(stderrLines(result.stderr)).toHaveLength(1);
      expect(result.stderr).toMatch(/--(join-at|endpoint) needs a value/);
    }
  });

  it('ends quietly with 0 when its reader closes the pipe (`| head`)', async () => {
    const child = spawn(join(BIN, 'tsx'), [CLI_ENTRY, '--help'], {
      cwd: ROOT,
      env: childEnvironment(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    // Closed before the CLI has started: its first write finds no reader.
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(stderrLines(stderr)).toEqual([]);
    expect(code).toBe(0);
  });
});

describe('--help', () => {
  it("shows each command's summary whole, wrapped to 100 columns", async () => {
    const result = await cli(['--help']);
    expect(result.code).toBe(0);
    const text = result.stdout;
    for (const line of text.split('\n')) expect([...line].length, line).toBeLessThanOrEqual(100);
    const flat = text.replace(/\s+/g, ' ');
    for (const command of COMMANDS) {
      // Every word of the summary, in order: nothing cut after its first line.
      const words = command.summary.split(/\s+/).filter((word) => word !== '');
      expect(flat, command.words.join(' ')).toContain(words.slice(-6).join(' '));
      expect(flat).toContain(words.join(' ').slice(0, 60));
    }
  });

  it('lists the commands with the flags before them, and a group with the flags around it', async () => {
    const top = await cliInProcess(['--local', '--help']);
    const group = await cliInProcess(['--endpoint', 'http://127.0.0.1:1', 'schedule', '--help']);
    const command = await cliInProcess(['--json', 'recording', '--help', '--local']);
    expect(top.code).toBe(0);
    expect(top.stdout).toContain('meetings list');
    expect(group.code).toBe(0);
    expect(group.stdout).toContain('schedule cancel');
    expect(command.code).toBe(0);
    expect(command.stdout).toMatch(/^usage: meeting-pipeline recording <bot>/);
  });
});

describe('cdk synth with a bad setting', () => {
  const out = mkdtempSync(join(tmpdir(), 'synth-config-'));
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  it('prints one line naming the context key, its value and what is wrong, and exits 1', {
    timeout: 60_000,
  }, async () => {
    // As `cdk synth -c eventConcurrency=abc` runs the app: the context in CDK_CONTEXT_JSON.
    const context = { ...cdkJsonContext(), eventConcurrency: 'abc' };
    const result = await run(join(BIN, 'tsx'), [join(ROOT, 'bin/app.ts')], {
      CDK_CONTEXT_JSON: JSON.stringify(context),
      CDK_OUTDIR: out,
    });
    expect(result.code).toBe(1);
    const lines = stderrLines(result.stderr);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^meeting-pipeline configuration: eventConcurrency \(given "abc"\): .*number/);
    expect(result.stderr).not.toMatch(NO_TRACE);
  });
});
