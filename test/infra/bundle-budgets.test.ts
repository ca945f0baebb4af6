/**
 * Every function of the stack, bundled with the options it deploys with (lib/function.ts
 * BUNDLING), stays within its budget (lib/bundle-budgets.ts) and bundles nothing forbidden there
 * (zod's classic API or its locales): a failure names the module of ours that brought it in. The
 * sizes of the bundles `cdk synth` itself builds are checked against the same budgets by
 * test/e2e/deployed-bundles.test.ts.
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import type { Metafile } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { BUNDLE_BUDGETS_KIB, FORBIDDEN_IN_BUNDLES } from '../../lib/bundle-budgets';
import { bundleLikeDeployed } from '../../local/bundle-like-deployed';
import { synthesizedForLocal } from '../../local/template/local-deployment';
import { scratchDir } from '../fixtures/scratch';

const entries = [...new Set(synthesizedForLocal({}).functions.map((fn) => fn.entry))].sort();

/** The first module outside `pattern`'s package on the way to `file`: what of ours (or which dependency) pulled it in. */
function broughtInBy(metafile: Metafile, file: string, pattern: RegExp): string {
  const seen = new Set<string>();
  let frontier = [file];
  while (frontier.length > 0) {
    const next: string[] = [];
    for (const target of frontier) {
      for (const importer of Object.keys(metafile.inputs)) {
        if (seen.has(importer) || !metafile.inputs[importer]?.imports.some((i) => i.path === target)) continue;
        seen.add(importer);
        if (!pattern.test(importer) && !importer.includes('node_modules/zod/')) return importer;
        next.push(importer);
      }
    }
    frontier = next;
  }
  return `(nothing found importing ${file})`;
}

describe('the functions’ bundles', () => {
  it('have a budget each, and no budget names a function the stack does not have', () => {
    expect(Object.keys(BUNDLE_BUDGETS_KIB).sort()).toEqual(entries);
  });

  it.each(entries)('%s stays within its budget and bundles nothing forbidden', async (entry) => {
    const outfile = join(scratchDir('bundle-'), 'index.mjs');
    const metafile = await bundleLikeDeployed(entry, outfile);
    // What the output holds: modules esbuild parsed and shook out entirely are in the graph, not the bundle.
    const bundled = Object.values(metafile.outputs).flatMap((output) =>
      Object.entries(output.inputs)
        .filter(([, input]) => input.bytesInOutput > 0)
        .map(([file]) => file),
    );
    const forbidden = bundled.flatMap((file) =>
      FORBIDDEN_IN_BUNDLES.filter(({ pattern }) => pattern.test(file)).map(
        ({ pattern, why }) => `${why}, brought in by ${broughtInBy(metafile, file, pattern)}`,
      ),
    );
    expect([...new Set(forbidden)]).toEqual([]);
    const kib = statSync(outfile).size / 1024;
    expect(kib, `${entry}: ${kib.toFixed(0)} KiB, budget ${BUNDLE_BUDGETS_KIB[entry]} KiB`).toBeLessThanOrEqual(
      BUNDLE_BUDGETS_KIB[entry] ?? 0,
    );
  });
});
