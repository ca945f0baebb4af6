/** Bundles an entry with the esbuild options NodejsFunction deploys with (lib/function.ts BUNDLING). */
import { build, type Metafile } from 'esbuild';
import { BUNDLING } from '../lib/function';

/** Writes `outfile`; answers esbuild's metafile (which module brought what into the bundle). */
export async function bundleLikeDeployed(entry: string, outfile: string): Promise<Metafile> {
  const { metafile } = await build({
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
    metafile: true,
  });
  return metafile;
}
