/**
 * Builds the console's pages (console/ui) into static files with esbuild: one script, one
 * style sheet and the page, nothing fetched at run time. `npm ci` runs it (the `prepare`
 * script); `meeting-pipeline console` serves the result.
 */
import { copyFileSync, existsSync, mkdirSync, readdirSync, renameSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';

const UI_DIR = resolve(import.meta.dirname, 'ui');
/** Where the console finds its pages. */
export const CONSOLE_DIST_DIR = resolve(import.meta.dirname, 'dist');

export async function buildConsole(outDir = CONSOLE_DIST_DIR): Promise<void> {
  mkdirSync(outDir, { recursive: true });
  await build({
    entryPoints: { app: join(UI_DIR, 'app.tsx') },
    bundle: true,
    minify: true,
    format: 'esm',
    target: 'es2022',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    outdir: outDir,
    logLevel: 'warning',
    legalComments: 'none',
  });
  // The style sheet by its own entry (the pages import none), named as index.html asks.
  await build({
    entryPoints: [join(UI_DIR, 'styles.css')],
    bundle: true,
    minify: true,
    outfile: join(outDir, 'app.tmp.css'),
    logLevel: 'warning',
  });
  renameSync(join(outDir, 'app.tmp.css'), join(outDir, 'app.css'));
  copyFileSync(join(UI_DIR, 'index.html'), join(outDir, 'index.html'));
}

/** Whether dist/ is missing or older than a file of ui/ (a checkout that changed the pages since `npm ci`). */
export function consoleBuildIsStale(outDir = CONSOLE_DIST_DIR): boolean {
  const built = join(outDir, 'index.html');
  if (!existsSync(built)) return true;
  const builtAt = statSync(built).mtimeMs;
  return readdirSync(UI_DIR, { recursive: true, withFileTypes: true }).some(
    (entry) => entry.isFile() && statSync(join(entry.parentPath, entry.name)).mtimeMs > builtAt,
  );
}

// `tsx console/build.ts [OUT_DIR]`: dist/ by default.
if (process.argv[1] !== undefined && resolve(process.argv[1]) === resolve(import.meta.filename))
  await buildConsole(process.argv[2] === undefined ? CONSOLE_DIST_DIR : resolve(process.argv[2]));
