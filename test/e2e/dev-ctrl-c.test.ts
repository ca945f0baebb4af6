/**
 * Ctrl-C on `npm run dev`, as a person presses it: during start-up, mid-demo (while the demo waits for the archive),
 * idle (pollers and the reconciler running) and twice in a row. Each time: "stopping…" once, no stack trace or error
 * text, exit 0, no `.local/dev.lock` left, and nothing of the run still listening.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

const DEV = join(import.meta.dirname, '../../bin/dev.ts');
const TSX = import.meta.resolve('tsx');

const children: ChildProcess[] = [];
const folders: string[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    }
  }
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

interface Run {
  child: ChildProcess;
  cwd: string;
  output: () => string;
  /** The exit code, or the signal's name when a signal ended the process. */
  exit: Promise<number | string | null>;
}

function dev(...args: string[]): Run {
  const cwd = mkdtempSync(join(tmpdir(), 'dev-ctrl-c-'));
  folders.push(cwd);
  const child = spawn(process.execPath, ['--import', TSX, DEV, ...args], {
    cwd,
    env: { ...process.env, UPSTREAM_API_KEY: '', SIGNING_SECRET: undefined },
  });
  children.push(child);
  let output = '';
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  const exit = new Promise<number | string | null>((resolve) =>
    child.once('exit', (code, signal) => resolve(code ?? signal)),
  );
  return { child, cwd, output: () => output, exit };
}

/** Resolves once the run has printed `text`; fails with what it printed if it exits first. */
async function printed(run: Run, text: string): Promise<void> {
  const exited = run.exit.then((code) => {
    throw new Error(`npm run dev exited ${code} before printing ${JSON.stringify(text)}:\n${run.output()}`);
  });
  const seen = new Promise<void>((resolve) => {
    const check = () => (run.output().includes(text) ? resolve() : undefined);
    run.child.stdout?.on('data', check);
    check();
  });
  await Promise.race([seen, exited]);
}

/** The addresses the run listened on, from its endpoints file (absent when it stopped before writing one). */
function listenedOn(cwd: string): URL[] {
  const file = join(cwd, '.local/endpoints.json');
  if (!existsSync(file)) return [];
  const endpoints = JSON.parse(readFileSync(file, 'utf8'));
  return [endpoints.webhookUrl, endpoints.serviceApiUrl, endpoints.dynamodb.endpoint, endpoints.sqs.endpoint].map(
    (url: string) => new URL(url),
  );
}

function accepts(url: URL): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(Number(url.port), url.hostname);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** What every Ctrl-C must leave: one "stopping…", nothing that reads as a crash, exit 0, no lock, no port open. */
async function stoppedCleanly(run: Run): Promise<void> {
  expect(await run.exit).toBe(0);
  const output = run.output();
  expect(output).not.toMatch(/^\s+at /m);
  expect(output).not.toMatch(/Error:|UnknownError|ECONNREFUSED|reconciler failed/);
  expect(output.match(/stopping…/g)).toHaveLength(1);
  expect(existsSync(join(run.cwd, '.local/dev.lock'))).toBe(false);
  for (const url of listenedOn(run.cwd)) expect(await accepts(url), `${url} still accepts`).toBe(false);
}

describe('Ctrl-C on npm run dev', { timeout: 120_000 }, () => {
  it('during start-up, while the emulators start: stops and removes the lock', async () => {
    const run = dev();
    await printed(run, 'meeting-pipeline local mode');
    run.child.kill('SIGINT');
    await stoppedCleanly(run);
  });

  it('mid-demo, while the demo waits for the archive: stops the waits and pollers before the emulators', async () => {
    // Three meetings: each poll of the wait reads the table several times, so a stop lands inside one.
    const run = dev('--meetings', '3', '--step-ms', '300');
    await printed(run, 'launched for schedule');
    run.child.kill('SIGINT');
    await stoppedCleanly(run);
  });

  it('idle, with the pollers and the reconciler running', async () => {
    const run = dev('--serve');
    await printed(run, 'Serving.');
    // Long enough for the reconciler (every 2 s while busy) to be running or due.
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    run.child.kill('SIGINT');
    await stoppedCleanly(run);
  });

  it('twice in a row, mid-demo: the second is part of the same stop', async () => {
    const run = dev('--step-ms', '300');
    await printed(run, 'schedule demo-');
    run.child.kill('SIGINT');
    run.child.kill('SIGINT');
    await stoppedCleanly(run);
  });
});
