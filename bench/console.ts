/**
 * The operator console: the size of what the browser loads (script and style, raw and gzip),
 * and how long `meeting-pipeline console` takes from start to the printed address and to the
 * first page served (a fresh process each round, as a user starts it; `--endpoint` so no
 * local mode is needed).
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { fmt, median } from './stats';

const PROJECT_ROOT = process.cwd();
const ROUNDS = 5;

function sizes(dir: string, file: string): string {
  const bytes = readFileSync(join(dir, file));
  return `${file} ${fmt(bytes.length / 1024, 1)} KiB (${fmt(gzipSync(bytes, { level: 9 }).length / 1024, 1)} KiB gzip)`;
}

/** Milliseconds to the printed address, then to the first page (token exchange and index.html). */
function startOnce(): Promise<{ address: number; page: number }> {
  const started = performance.now();
  const child = spawn(
    join(PROJECT_ROOT, 'node_modules/.bin/tsx'),
    [join(PROJECT_ROOT, 'bin/meeting-pipeline.ts'), 'console', '--endpoint', 'http://127.0.0.1:9'],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let out = '';
  return new Promise((resolve, reject) => {
    child.on('exit', (code) => reject(new Error(`console exited (${code}) before its address: ${out}`)));
    child.stdout.on('data', async (chunk: Buffer) => {
      out += chunk.toString();
      const url = /open (\S+)/.exec(out)?.[1];
      if (url === undefined) return;
      child.stdout.removeAllListeners('data');
      const address = performance.now() - started;
      const exchange = await fetch(url, { redirect: 'manual' });
      const cookie = exchange.headers.get('set-cookie')?.split(';')[0] ?? '';
      const page = await fetch(new URL('/', url), { headers: { cookie } });
      await page.text();
      const served = performance.now() - started;
      child.removeAllListeners('exit');
      child.kill('SIGINT');
      resolve({ address, page: served });
    });
  });
}

export async function benchConsole(): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'console-bench-'));
  try {
    const buildStarted = performance.now();
    // As npm ci builds it (bundled, the bench cannot import the build script's own folder).
    execFileSync(join(PROJECT_ROOT, 'node_modules/.bin/tsx'), [join(PROJECT_ROOT, 'console/build.ts'), dir]);
    const buildMs = performance.now() - buildStarted;
    const rounds: Array<{ address: number; page: number }> = [];
    for (let i = 0; i < ROUNDS; i++) rounds.push(await startOnce());
    return [
      'operator console (meeting-pipeline console)',
      `  browser loads: ${sizes(dir, 'app.js')}, ${sizes(dir, 'app.css')}; built in ${fmt(buildMs)} ms (tsx start included)`,
      `  start to printed address: median ${fmt(median(rounds.map((r) => r.address)))} ms; to the first page served: ${fmt(median(rounds.map((r) => r.page)))} ms (${ROUNDS} fresh processes)`,
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
