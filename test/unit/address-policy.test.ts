/** The download guard's address policy on its own: public unicast allowed, everything inward refused. */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { isLoopbackAddress, refusedAddress } from '../../lambdas/core/archive/address-policy';
import { PUBLIC_ADDRESSES, REFUSED_ADDRESSES } from '../fixtures/address-table';
import { scratchDir } from '../fixtures/scratch';

describe('address policy', () => {
  it.each(PUBLIC_ADDRESSES)('allows %s', (address) => {
    expect(refusedAddress(address)).toBeUndefined();
  });

  it.each(REFUSED_ADDRESSES)('refuses %s with a reason', (address) => {
    expect(refusedAddress(address)).toMatch(/is (a|not a) .+ address/);
  });

  it('names the IPv4 address an IPv6 form carries', () => {
    expect(refusedAddress('::ffff:169.254.169.254')).toBe(
      '::ffff:169.254.169.254 is a link-local (cloud metadata) address (an IPv4 address carried in IPv6)',
    );
  });

  it('refuses what is not an address', () => {
    expect(refusedAddress('example.com')).toBe('example.com is not an IP address');
  });

  it.each([
    ['127.0.0.1', true],
    ['127.255.0.9', true],
    ['::1', true],
    ['[::1]', true],
    ['10.0.0.1', false],
    ['::ffff:127.0.0.1', false],
    ['8.8.8.8', false],
  ])('%s is loopback: %s', (address, loopback) => {
    expect(isLoopbackAddress(address)).toBe(loopback);
  });

  // The Lambda runs Node 24; the policy must give the same verdicts there.
  it('gives the same verdicts on Node 24', async () => {
    const dir = scratchDir('address-policy-');
    const entry = join(dir, 'entry.ts');
    writeFileSync(
      entry,
      [
        `import { refusedAddress } from ${JSON.stringify(join(import.meta.dirname, '../../lambdas/core/archive/address-policy.ts'))};`,
        `import { PUBLIC_ADDRESSES, REFUSED_ADDRESSES } from ${JSON.stringify(join(import.meta.dirname, '../fixtures/address-table.ts'))};`,
        'const verdicts = Object.fromEntries([...PUBLIC_ADDRESSES, ...REFUSED_ADDRESSES].map((a) => [a, refusedAddress(a) ?? null]));',
        'console.log(JSON.stringify({ version: process.version, verdicts }));',
      ].join('\n'),
    );
    const outfile = join(dir, 'run.mjs');
    await build({ entryPoints: [entry], bundle: true, platform: 'node', format: 'esm', outfile, logLevel: 'silent' });
    const output = execFileSync('npx', ['-y', '-p', 'node@24', 'node', outfile], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: 120_000,
    });
    const { version, verdicts } = JSON.parse(output) as { version: string; verdicts: Record<string, string | null> };
    expect(version).toMatch(/^v24\./);
    for (const address of PUBLIC_ADDRESSES) expect(verdicts[address]).toBeNull();
    for (const address of REFUSED_ADDRESSES) expect(verdicts[address]).toBe(refusedAddress(address));
  });
});
