/**
 * What the first hour prints that is only noise. npm on the machine's own Node (Node 20 here,
 * while the project runs on the Node 22 `npm ci` installs) warned EBADENGINE about the project's
 * own `engines`, the Node it runs on, not the one npm runs on (`devEngines` says that); the
 * SQS/S3 emulator's node:sqlite printed Node's experimental-feature warning on every local start.
 */
import { execFile } from 'node:child_process';
import { copyFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { BIN, childEnvironment, ROOT, run } from '../fixtures/cli-local-stack';
import { scratchDir } from '../fixtures/scratch';

const exec = promisify(execFile);

/** The environment without the project's node_modules/.bin: `npm` and `node` are the machine's. */
function machineEnvironment(): NodeJS.ProcessEnv {
  const env = childEnvironment();
  env.PATH = (env.PATH ?? '')
    .split(delimiter)
    .filter((entry) => !entry.endsWith(join('node_modules', '.bin')))
    .join(delimiter);
  for (const name of Object.keys(env)) if (name.startsWith('npm_')) delete env[name];
  return env;
}

describe('start-up noise', () => {
  it("npm ci on the machine's own Node does not warn about the project's own engines", {
    timeout: 120_000,
  }, async () => {
    // A dry run of the install in a folder of its own: npm checks every package's engines, fetches nothing.
    const folder = scratchDir('npm-ci-');
    for (const file of ['package.json', 'package-lock.json']) copyFileSync(join(ROOT, file), join(folder, file));
    const env = machineEnvironment();
    const { stdout: machineNode } = await exec('node', ['--version'], { env });
    const result = await exec('npm', ['ci', '--dry-run', '--offline', '--ignore-scripts'], {
      cwd: folder,
      env,
      timeout: 90_000,
    }).catch((error: { stderr: string }) => error);
    expect(result.stderr, `npm ci on Node ${machineNode.trim()}`).not.toMatch(
      /EBADENGINE +package: 'meeting-pipeline@/,
    );
  });

  it('starting the SQS/S3 emulator prints no SQLite warning; other warnings still print', async () => {
    const result = await run(join(BIN, 'tsx'), [join(ROOT, 'test/fixtures/emulator-start.fixture.ts')]);
    expect(result.code).toBe(0);
    expect(result.stderr).not.toMatch(/SQLite is an experimental feature/);
    expect(result.stderr).toContain('ExperimentalWarning: a warning of our own');
  });
});
