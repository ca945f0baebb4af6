/**
 * The README as a newcomer uses it: local mode started as `npm run dev` starts it, the demo's
 * output in the shape the README shows, and every shell block marked `bash runnable` pasted
 * into bash against it. A command the README prints that stopped working fails here.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');

interface Fence {
  info: string;
  body: string;
  line: number;
}

/** The fenced code blocks of a Markdown text, with their info strings (CommonMark backtick fences). */
function fencedBlocks(markdown: string): Fence[] {
  const blocks: Fence[] = [];
  const lines = markdown.split('\n');
  let open: { info: string; indent: number; line: number; body: string[] } | undefined;
  for (const [i, line] of lines.entries()) {
    const fence = /^( *)```(.*)$/.exec(line);
    if (open === undefined) {
      if (fence !== null)
        open = { info: (fence[2] ?? '').trim(), indent: fence[1]?.length ?? 0, line: i + 1, body: [] };
    } else if (fence !== null && (fence[2] ?? '').trim() === '') {
      blocks.push({ info: open.info, body: open.body.join('\n'), line: open.line });
      open = undefined;
    } else open.body.push(line.slice(Math.min(open.indent, line.length - line.trimStart().length)));
  }
  return blocks;
}

/** Ids, times and counts vary from run to run; the words and the order of a line do not. */
const shapeOf = (line: string) =>
  line
    .replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, '<time>')
    .replace(/bot_[0-9a-f]+/g, '<bot>')
    .replace(/demo-[0-9a-z]+-\d+/g, '<schedule>')
    .replace(/\d+(\.\d+)?/g, '<n>')
    .replace(/\s+/g, ' ')
    .trim();

const runnable = fencedBlocks(README).filter((block) => block.info.split(/\s+/).includes('runnable'));

describe('README', () => {
  // Local mode in a folder of its own inside the repository (.local is git-ignored), so a
  // developer's own `npm run dev` and this test never share a lock or an endpoints file.
  const home = join(ROOT, '.local', `readme-${process.pid}`);
  const hadLocalFolder = existsSync(join(ROOT, '.local'));
  let dev: ChildProcess | undefined;
  let output = '';

  beforeAll(async () => {
    mkdirSync(home, { recursive: true });
    dev = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'bin/dev.ts')], {
      cwd: home,
      env: { ...process.env, SIGNING_SECRET: undefined },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    dev.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    dev.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`local mode did not come up:\n${output}`)), 240_000);
      const check = setInterval(() => {
        if (output.includes('The stack stays up') || dev?.exitCode !== null) {
          clearInterval(check);
          clearTimeout(timer);
          if (dev?.exitCode !== null) reject(new Error(`local mode exited ${dev?.exitCode}:\n${output}`));
          else resolve();
        }
      }, 200);
    });
  }, 300_000);

  afterAll(async () => {
    if (dev !== undefined && dev.exitCode === null) {
      const exited = new Promise((resolve) => dev?.once('exit', resolve));
      dev.kill('SIGINT');
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 20_000))]);
      if (dev.exitCode === null) dev.kill('SIGKILL');
    }
    rmSync(home, { recursive: true, force: true });
    // Leave the repository as the run found it: .local only if it was there before.
    if (!hadLocalFolder) rmSync(join(ROOT, '.local'), { recursive: true, force: true });
  }, 60_000);

  it('marks at least the quick start and the CLI blocks runnable', () => {
    expect(runnable.length).toBeGreaterThanOrEqual(3);
  });

  it('shows the demo output npm run dev prints today', () => {
    const shown = fencedBlocks(README.slice(README.indexOf('<!-- demo-output -->')))[0];
    expect(shown).toBeDefined();
    const printed = new Set(output.split('\n').map(shapeOf));
    const missing = (shown?.body ?? '')
      .split('\n')
      .filter((line) => line.trim() !== '')
      .filter((line) => !printed.has(shapeOf(line)));
    expect(missing, `README demo lines npm run dev no longer prints:\n${output}`).toEqual([]);
  });

  it.each(runnable.map((block) => [block.line, block.body] as const))(
    'runs the block at README.md line %i as pasted',
    (_line, body) => {
      const result = spawnSync('bash', ['-e', '-o', 'pipefail', '-c', body], {
        cwd: home,
        encoding: 'utf8',
        timeout: 120_000,
        env: { ...process.env, SIGNING_SECRET: undefined },
      });
      expect(result.stderr).not.toMatch(/\n\s+at /);
      expect(result.status, `${body}\n---\n${result.stdout}\n${result.stderr}`).toBe(0);
    },
    150_000,
  );
});
