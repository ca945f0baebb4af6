/**
 * `npm test` leaves nothing behind: the run's temporary folder (test/setup/run-temp-dir.ts)
 * is where every test's temporary files go, and what is left there at the end fails the run.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { scratchDir } from '../fixtures/scratch';
import setup, { RUN_TEMP_PREFIX } from '../setup/run-temp-dir';

const outerTemp = process.env.TMPDIR;
afterEach(() => {
  process.env.TMPDIR = outerTemp;
});

describe("the run's temporary folder", () => {
  it('is where this worker makes its temporary files', () => {
    expect(basename(tmpdir())).toMatch(new RegExp(`^${RUN_TEMP_PREFIX}`));
    expect(dirname(scratchDir('probe-'))).toBe(tmpdir());
  });

  it('fails the run naming what a test left, and is removed all the same', () => {
    const teardown = setup();
    const runDir = tmpdir();
    mkdirSync(join(runDir, 'domain-events-AbC123'));
    writeFileSync(join(runDir, 'cdk.outXyZ'), '');
    mkdirSync(join(runDir, 'tsx-0'));
    mkdirSync(join(runDir, 'node-compile-cache'));
    expect(teardown).toThrow(/left 2 temporary file\(s\) behind.*: cdk\.outXyZ, domain-events-AbC123$/);
    expect(existsSync(runDir)).toBe(false);
    expect(process.env.TMPDIR).toBe(outerTemp);
  });

  it("passes when only the tools' caches are there", () => {
    const teardown = setup();
    const runDir = tmpdir();
    mkdirSync(join(runDir, 'tsx-1000'));
    expect(teardown).not.toThrow();
    expect(existsSync(runDir)).toBe(false);
  });
});
