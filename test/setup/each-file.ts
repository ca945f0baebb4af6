/**
 * Runs in each test file's worker before the file:
 * - the scratch folders its tests made go when it ends (after the file's own afterAll hooks);
 * - CDK's "Bundling asset …" progress lines are held back: a synth in a test bundles every
 *   function and CDK writes one such line each, unconditionally (esbuild itself is told to
 *   print warnings only, lib/function.ts).
 */
import { afterAll } from 'vitest';
import { removeScratchDirs } from '../fixtures/scratch';

afterAll(removeScratchDirs);

const BUNDLING_PROGRESS = /^Bundling asset \S+\.\.\.\n$/;
const write = process.stderr.write.bind(process.stderr);
process.stderr.write = ((chunk: unknown, ...rest: unknown[]) =>
  typeof chunk === 'string' && BUNDLING_PROGRESS.test(chunk)
    ? true
    : (write as (...args: unknown[]) => boolean)(chunk, ...rest)) as typeof process.stderr.write;
