/**
 * `npm run dev` with every flag that starts a server of its own (--serve, --calendar-simulators, --calendar
 * with a served feed, --upstream): every TCP port the process tree listens on, found from the OS (not from
 * what the code reports), answers a request whose Host is a foreign name with 421. That is what a web page
 * doing DNS rebinding sends; a port that answers it otherwise, or does not speak HTTP, is named.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { newSigningSecret } from '../../local/local-stack';
import { type StandaloneSimulator, startStandaloneSimulator } from '../../local/simulator/standalone';

const DEV = join(import.meta.dirname, '../../bin/dev.ts');
const TSX = import.meta.resolve('tsx');
/** The state column of /proc/net/tcp for a listening socket. */
const TCP_LISTEN = '0A';

let child: ChildProcess | undefined;
let simulator: StandaloneSimulator | undefined;
let folder: string | undefined;
afterEach(async () => {
  if (child !== undefined && child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((resolve) => child?.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }
  await simulator?.stop();
  if (folder !== undefined) rmSync(folder, { recursive: true, force: true });
});

/** The process and every process below it (a server in a child process counts too). */
function processTree(root: number): number[] {
  const parentOf = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // pid (comm) state ppid …: comm may hold spaces and parentheses, so read after the last ')'.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      parentOf.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // The process ended while being read.
    }
  }
  const tree = [root];
  for (let i = 0; i < tree.length; i++)
    for (const [pid, parent] of parentOf) if (parent === tree[i] && !tree.includes(pid)) tree.push(pid);
  return tree;
}

function socketInodes(pid: number): Set<string> {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const target = readlinkSync(`/proc/${pid}/fd/${fd}`);
      const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
      if (inode !== undefined) inodes.add(inode);
    } catch {
      // The descriptor closed while being read.
    }
  }
  return inodes;
}

interface Listening {
  port: number;
  /** Where to connect: the loopback address of the socket's family. */
  host: string;
  /** The bound address as the kernel lists it (hex), for the message. */
  bound: string;
}

/** Every TCP socket in LISTEN state owned by the process tree, from /proc/<pid>/net/tcp and tcp6. */
function listeningPorts(root: number): Listening[] {
  const pids = processTree(root);
  const inodes = new Set(pids.flatMap((pid) => [...socketInodes(pid)]));
  const found: Listening[] = [];
  for (const [table, host] of [
    ['tcp', '127.0.0.1'],
    ['tcp6', '::1'],
  ] as const) {
    const lines = readFileSync(`/proc/${root}/net/${table}`, 'utf8').trim().split('\n').slice(1);
    for (const line of lines) {
      const fields = line.trim().split(/\s+/);
      const [address, portHex] = (fields[1] ?? '').split(':');
      if (fields[3] !== TCP_LISTEN || !inodes.has(fields[9] ?? '')) continue;
      found.push({ port: Number.parseInt(portHex ?? '', 16), host, bound: address ?? '' });
    }
  }
  return found;
}

/** What a port answers a GET whose Host is a foreign name: its status, or why it gave none. */
function foreignHostAnswer({ host, port }: Listening): Promise<string> {
  return new Promise((resolve) => {
    const sent = request({ host, port, path: '/', headers: { host: `evil.example:${port}` }, timeout: 10_000 });
    sent.on('response', (response) => {
      response.resume();
      resolve(String(response.statusCode));
    });
    sent.on('timeout', () => sent.destroy(new Error('no HTTP answer within 10 s')));
    sent.on('error', (error) => resolve(`not HTTP (${error.message})`));
    sent.end();
  });
}

/** Resolves once the run is up (its closing line is out), or fails with what it printed if it exits first. */
async function upAndRunning(run: ChildProcess, output: () => string): Promise<void> {
  const exited = new Promise<never>((_, reject) =>
    run.once('exit', (code) => reject(new Error(`npm run dev exited ${code} before it was up:\n${output()}`))),
  );
  const ready = new Promise<void>((resolve) => {
    const check = () => (output().includes('The stack stays up') ? resolve() : undefined);
    run.stdout?.on('data', check);
    run.stderr?.on('data', check);
    check();
  });
  await Promise.race([ready, exited]);
}

describe('npm run dev and a foreign Host', () => {
  // With --upstream the simulated service runs outside the process; without, inside it: both are checked.
  it.each([
    ['--upstream', true],
    ['the simulated service', false],
  ])(
    'answers 421 on every port it listens on (every server-adding flag, %s)',
    { timeout: 180_000 },
    async (_, external) => {
      const signingSecret = newSigningSecret();
      simulator = external
        ? await startStandaloneSimulator({ signingSecret, stepMs: 200, recordingBytes: 1024 })
        : undefined;
      folder = mkdtempSync(join(tmpdir(), 'dev-foreign-host-'));
      const args = ['--serve', '--calendar-simulators', '--calendar', 'sample'];
      if (simulator !== undefined) args.push('--upstream', simulator.apiBaseUrl);
      child = spawn(process.execPath, ['--import', TSX, DEV, ...args], {
        cwd: folder,
        env: { ...process.env, UPSTREAM_API_KEY: simulator?.apiKey ?? '', SIGNING_SECRET: signingSecret },
      });
      let output = '';
      child.stdout?.on('data', (chunk) => (output += chunk));
      child.stderr?.on('data', (chunk) => (output += chunk));
      await upAndRunning(child, () => output);

      const ports = listeningPorts(child.pid ?? 0);
      // At least the HTTP API, dynalite, fauxqs, Athena and both calendar simulators and the feed.
      expect(ports.length, output).toBeGreaterThanOrEqual(7);
      const answers = await Promise.all(
        ports.map(async (listening) => ({ ...listening, answer: await foreignHostAnswer(listening) })),
      );
      const wrong = answers
        .filter(({ answer }) => answer !== '421')
        .map(({ host, port, bound, answer }) => `${host}:${port} (bound ${bound}) answered ${answer}`);
      expect(wrong, `of ${answers.length} listening ports`).toEqual([]);
      // Stopped as a person stops it, so it removes what it made (the lake's mirror).
      const exited = new Promise((resolve) => child?.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  );
});
