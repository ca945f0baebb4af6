/** Bundles an entry with the esbuild options NodejsFunction deploys with (lib/function.ts BUNDLING). */
import { build } from 'esbuild';
import { BUNDLING } from '../lib/function';

export async function bundleLikeDeployed(entry: string, outfile: string): Promise<void> {
  await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: BUNDLING.target,
    minify: BUNDLING.minify,
    mainFields: BUNDLING.mainFields,
    banner: { js: BUNDLING.banner ?? '' },
    logLevel: 'silent',
  });
}
