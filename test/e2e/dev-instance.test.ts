/**
 * `npm run dev` as a person starts it, in a folder of its own: one instance per folder (a second is refused in
 * one line naming the first, which keeps its data), a stale lock is taken over, a busy --port is refused
 * before anything is reset, and each run starts `.local/events.jsonl` clean unless --resume.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { newSigningSecret } from '../../local/local-stack';
import { startStandaloneSimulator } from '../../local/simulator/standalone';

const DEV = join(import.meta.dirname, '../../bin/dev.ts');
const TSX = import.meta.resolve('tsx');
const SEEDED_EVENT = '{"Source":"meeting-pipeline","DetailType":"from an earlier run"}\n';

const children: ChildProcess[] = [];
const folders: string[] = [];
const servers: Server[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    }
  }
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

function folder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'dev-instance-'));
  folders.push(dir);
  return dir;
}

interface Run {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exit: Promise<number | null>;
}

function dev(cwd: string, ...args: string[]): Run {
  return devWith({ UPSTREAM_API_KEY: '', SIGNING_SECRET: undefined }, cwd, ...args);
}

function devWith(env: Record<string, string | undefined>, cwd: string, ...args: string[]): Run {
  const child = spawn(process.execPath, ['--import', TSX, DEV, ...args], { cwd, env: { ...process.env, ...env } });
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk) => (stdout += chunk));
  child.stderr?.on('data', (chunk) => (stderr += chunk));
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, stdout: () => stdout, stderr: () => stderr, exit };
}

/** Resolves once the run serves (its banner is out), or fails with what it printed if it exits first. */
async function serving(run: Run): Promise<void> {
  const exited = run.exit.then((code) => {
    throw new Error(`npm run dev exited ${code} before serving:\n${run.stdout()}\n${run.stderr()}`);
  });
  const ready = new Promise<void>((resolve) => {
    const check = () => (run.stdout().includes('Serving.') ? resolve() : undefined);
    run.child.stdout?.on('data', check);
    check();
  });
  await Promise.race([ready, exited]);
}

/** A pid no process has: one that ran and exited. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await new Promise((resolve) => child.once('exit', resolve));
  return child.pid!;
}

describe('npm run dev in one folder', { timeout: 120_000 }, () => {
  it('takes over a stale lock, starts events.jsonl clean, refuses a second run and releases the lock on SIGTERM', async () => {
    const cwd = folder();
    mkdirSync(join(cwd, '.local'));
    writeFileSync(join(cwd, '.local/dev.lock'), JSON.stringify({ pid: await deadPid(), startedAt: 'earlier' }));
    writeFileSync(join(cwd, '.local/events.jsonl'), SEEDED_EVENT);

    const first = dev(cwd, '--serve');
    await serving(first);
    expect(existsSync(join(cwd, '.local/events.jsonl'))).toBe(false);
    const lock = JSON.parse(readFileSync(join(cwd, '.local/dev.lock'), 'utf8'));
    const endpoints = JSON.parse(readFileSync(join(cwd, '.local/endpoints.json'), 'utf8'));
    expect(lock).toMatchObject({ pid: first.child.pid, endpoints: { 'webhook URL': endpoints.webhookUrl } });

    const endpointsBefore = readFileSync(join(cwd, '.local/endpoints.json'), 'utf8');
    writeFileSync(join(cwd, '.local/events.jsonl'), SEEDED_EVENT);
    const second = dev(cwd, '--serve');
    expect(await second.exit).toBe(2);
    const lines = second.stderr().trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`npm run dev: local mode already runs in this folder (pid ${first.child.pid}`);
    expect(lines[0]).toContain(endpoints.webhookUrl);
    // The running instance's files are untouched.
    expect(readFileSync(join(cwd, '.local/endpoints.json'), 'utf8')).toBe(endpointsBefore);
    expect(readFileSync(join(cwd, '.local/events.jsonl'), 'utf8')).toBe(SEEDED_EVENT);
    expect(existsSync(join(cwd, '.local/dynamodb'))).toBe(true);

    first.child.kill('SIGTERM');
    expect(await first.exit).toBe(0);
    expect(existsSync(join(cwd, '.local/dev.lock'))).toBe(false);
  });

  it('keeps .local to its operator with --upstream: the folder 0700, the endpoints file with the key 0600', async () => {
    const cwd = folder();
    // As an older version left them: the umask's modes.
    mkdirSync(join(cwd, '.local/dynamodb'), { recursive: true });
    chmodSync(join(cwd, '.local'), 0o755);
    chmodSync(join(cwd, '.local/dynamodb'), 0o755);
    writeFileSync(join(cwd, '.local/endpoints.json'), '{}', { mode: 0o644 });
    const signingSecret = newSigningSecret();
    const simulator = await startStandaloneSimulator({ signingSecret, stepMs: 200, recordingBytes: 1024 });
    try {
      const run = devWith(
        { UPSTREAM_API_KEY: simulator.apiKey, SIGNING_SECRET: signingSecret },
        cwd,
        '--serve',
        '--upstream',
        simulator.apiBaseUrl,
      );
      await serving(run);
      const mode = (path: string) => (statSync(join(cwd, path)).mode & 0o777).toString(8);
      const endpoints = readFileSync(join(cwd, '.local/endpoints.json'), 'utf8');
      expect(endpoints).toContain(simulator.apiKey);
      expect(endpoints).toContain(signingSecret);
      expect({
        '.local': mode('.local'),
        '.local/endpoints.json': mode('.local/endpoints.json'),
        '.local/dev.lock': mode('.local/dev.lock'),
        '.local/dynamodb': mode('.local/dynamodb'),
      }).toEqual({
        '.local': '700',
        '.local/endpoints.json': '600',
        '.local/dev.lock': '600',
        '.local/dynamodb': '700',
      });
      run.child.kill('SIGTERM');
      expect(await run.exit).toBe(0);
    } finally {
      await simulator.stop();
    }
  });

  it('keeps events.jsonl with --resume', async () => {
    const cwd = folder();
    mkdirSync(join(cwd, '.local'));
    writeFileSync(join(cwd, '.local/events.jsonl'), SEEDED_EVENT);
    const run = dev(cwd, '--serve', '--resume');
    await serving(run);
    expect(readFileSync(join(cwd, '.local/events.jsonl'), 'utf8')).toBe(SEEDED_EVENT);
    run.child.kill('SIGINT');
    expect(await run.exit).toBe(0);
    expect(existsSync(join(cwd, '.local/dev.lock'))).toBe(false);
  });

  it('refuses a busy --port in one line before resetting anything', async () => {
    const cwd = folder();
    mkdirSync(join(cwd, '.local/dynamodb'), { recursive: true });
    writeFileSync(join(cwd, '.local/dynamodb/kept'), 'data of an earlier run');
    writeFileSync(join(cwd, '.local/events.jsonl'), SEEDED_EVENT);
    const busy = createServer();
    servers.push(busy);
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    const { port } = busy.address() as { port: number };

    const run = dev(cwd, '--serve', '--port', String(port));
    expect(await run.exit).toBe(2);
    expect(run.stderr().trim().split('\n')).toEqual([expect.stringMatching(`^npm run dev: port ${port} is in use`)]);
    expect(readFileSync(join(cwd, '.local/dynamodb/kept'), 'utf8')).toBe('data of an earlier run');
    expect(readFileSync(join(cwd, '.local/events.jsonl'), 'utf8')).toBe(SEEDED_EVENT);
    expect(existsSync(join(cwd, '.local/dev.lock'))).toBe(false);
  });
});
