/**
 * One temporary folder for the whole run: TMPDIR points into it, so os.tmpdir() in the
 * test workers, and every tool they start (cdk, esbuild, npx, tsx), make their files there.
 * The run must leave it as it found it: at the end, whatever a test made there and did not
 * remove fails the run, named. The folder goes either way, so even a failing run leaves
 * nothing in /tmp.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SYNTH_SHARE_VARIABLE } from '../../local/template/synth-share';

export const RUN_TEMP_PREFIX = 'meeting-pipeline-test-';

/** Names the folder, inside the run's, for what test files share (one synthesized template per setting). */
export const SHARED_DIR_VARIABLE = SYNTH_SHARE_VARIABLE;
const SHARED_DIR = 'shared';

/**
 * Caches tools keep under the temporary folder for every process that runs them, not
 * files a test made: tsx's compiled modules (`tsx-<uid>`) and Node's compile cache.
 */
const TOOL_CACHE = /^(tsx-\d+|node-compile-cache)$/;

/**
 * What the run's own processes print and the tests do not read: npm's warnings when a
 * test or CDK's bundling starts a tool through npx (an unknown setting in the user's .npmrc).
 */
const QUIET_TOOLS = { npm_config_loglevel: 'error' };

/** What a run left in its temporary folder, tools' caches aside. */
export function leftovers(runDir: string): string[] {
  return readdirSync(runDir)
    .filter((name) => !TOOL_CACHE.test(name))
    .sort();
}

export default function setup(): () => void {
  const runDir = mkdtempSync(join(tmpdir(), RUN_TEMP_PREFIX));
  const sharedDir = join(runDir, SHARED_DIR);
  mkdirSync(sharedDir);
  const set: Record<string, string> = { TMPDIR: runDir, [SHARED_DIR_VARIABLE]: sharedDir, ...QUIET_TOOLS };
  const before = Object.entries(set).map(([name]) => [name, process.env[name]] as const);
  Object.assign(process.env, set);
  return () => {
    for (const [name, value] of before) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    rmSync(sharedDir, { recursive: true, force: true });
    const left = leftovers(runDir);
    rmSync(runDir, { recursive: true, force: true });
    if (left.length > 0) {
      const shown = left.slice(0, 20).join(', ') + (left.length > 20 ? `, and ${left.length - 20} more` : '');
      const error = new Error(
        `the tests left ${left.length} temporary file(s) behind (each test removes what it makes): ${shown}`,
      );
      error.stack = error.message; // the names are the news, not where this hook threw
      throw error;
    }
  };
}
