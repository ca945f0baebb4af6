/**
 * `npm test` prints the summary and the failures, and leaves nothing behind: the project's
 * own test configuration, run in a child vitest on two files (test/fixtures/quiet-run) that
 * do what the suite's tests do (an emulator that loads node:sqlite, a synth that bundles a
 * function, lines logged by passing tests, scratch folders) and one that forgets a folder.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { RUN_TEMP_PREFIX } from '../setup/run-temp-dir';

const ROOT = join(import.meta.dirname, '../..');

it('prints only the summary and the leftover, fails on the leftover, and removes its folder', {
  timeout: 300_000,
}, () => {
  // The child is a run of its own, not a worker of this one.
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('VITEST')));
  const run = spawnSync(
    process.execPath,
    [join(ROOT, 'node_modules/vitest/vitest.mjs'), 'run', '--config', 'test/fixtures/quiet-run/vitest.config.ts'],
    // The fixture config imports the project's by its extensionless name; Vite says so unless told it is known.
    { cwd: ROOT, encoding: 'utf8', env: { ...env, NO_COLOR: '1', VITE_CONFIG_NATIVE_IGNORE_WARNING: 'true' } },
  );
  const lines = `${run.stdout}${run.stderr}`.split('\n').filter((line) => line.trim() !== '');
  expect(lines.map((line) => line.trim().replace(/\s+/g, ' '))).toEqual([
    expect.stringMatching(/^RUN v\S+ /),
    'Test Files 2 passed (2)',
    'Tests 2 passed (2)',
    expect.stringMatching(/^Start at /),
    expect.stringMatching(/^Duration /),
    expect.stringMatching(/^error during close \[the tests left 1 temporary file\(s\) behind .*: forgotten-\w+\]$/),
  ]);
  expect(run.status).toBe(1);
  expect(readdirSync(tmpdir()).filter((name) => name.startsWith(RUN_TEMP_PREFIX))).toEqual([]);
});
