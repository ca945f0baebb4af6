/**
 * Node 24 for running the deployed bundles (test/fixtures/bundles/lambda-node.ts): fetched once,
 * checked, reused; workers that ask at once into an empty cache each get a whole binary.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { LAMBDA_NODE_VERSION, lambdaNode } from '../fixtures/bundles/lambda-node';
import { scratchDir } from '../fixtures/scratch';

const versionOf = (binary: string) => execFileSync(binary, ['--version'], { env: {} }).toString().trim();

describe('the Node.js of the Lambda runtime', () => {
  it('is the pinned Node 24, kept in the cache and reused without fetching again', async () => {
    const binary = await lambdaNode();
    expect(versionOf(binary)).toBe(`v${LAMBDA_NODE_VERSION}`);
    const modified = statSync(binary).mtimeMs;
    const started = performance.now();
    expect(await lambdaNode()).toBe(binary);
    expect(performance.now() - started).toBeLessThan(100);
    expect(statSync(binary).mtimeMs).toBe(modified);
  });

  it('comes out whole for workers fetching into an empty cache at once, leaving no work folders', async () => {
    const cacheRoot = scratchDir('lambda-node-');
    const binaries = await Promise.all([lambdaNode({ cacheRoot }), lambdaNode({ cacheRoot })]);
    expect(new Set(binaries).size).toBe(1);
    expect(versionOf(binaries[0]!)).toBe(`v${LAMBDA_NODE_VERSION}`);
    expect(readdirSync(cacheRoot)).toEqual([`node-${LAMBDA_NODE_VERSION}-linux-${process.arch}`]);
  }, 120_000);

  it('refuses an architecture Lambda does not offer', async () => {
    await expect(lambdaNode({ arch: 'ia32', cacheRoot: scratchDir('lambda-node-') })).rejects.toThrow(/ia32/);
  });
});
