/**
 * The Google provider's bundle stays small: the JWT grant is jose (no Google auth
 * library), and nothing of the ICS parser (node-ical, its RRULE expander, the
 * Temporal polyfill) comes along with the occurrence type the provider fills in.
 */
import { resolve } from 'node:path';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
/** The minified bundle was 57 KB when measured (zod/mini 28 KB, jose 16 KB, the provider 13 KB). */
const MAX_BUNDLE_BYTES = 80 * 1024;

describe('google provider bundle', () => {
  it('carries jose and zod but none of the ICS parser, within its size', async () => {
    const result = await build({
      entryPoints: [resolve(ROOT, 'lambdas/core/calendar/company/google/google-provider.ts')],
      bundle: true,
      minify: true,
      platform: 'node',
      format: 'esm',
      write: false,
      metafile: true,
      logLevel: 'silent',
    });
    const inputs = Object.keys(result.metafile.inputs);
    expect(inputs.some((path) => path.includes('node_modules/jose/'))).toBe(true);
    expect(inputs.filter((path) => /node_modules\/(node-ical|rrule-temporal|temporal-polyfill)\//.test(path))).toEqual(
      [],
    );
    expect(result.outputFiles[0]?.contents.byteLength).toBeLessThan(MAX_BUNDLE_BYTES);
  });
});
