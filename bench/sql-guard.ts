/**
 * The read-only guard of `query` (lambdas/core/lake/read-only-sql.ts): its cost on the first query
 * of a process, on a typical query after it, and on the slowest texts up to MAX_SQL_CHARS. Run in
 * a child bundled with the grammar (dt-sql-parser's files are ESM that Node cannot load unbundled).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { build } from 'esbuild';
import { fmt } from './stats';

const OUT = join(process.cwd(), 'bench', 'out');

export async function benchSqlGuard(): Promise<string[]> {
  const script = join(OUT, 'sql-guard.mjs');
  await build({
    entryPoints: [join(process.cwd(), 'bench', 'processes', 'sql-guard.ts')],
    outfile: script,
    bundle: true,
    platform: 'node',
    format: 'esm',
    logLevel: 'silent',
  });
  const child = spawn(process.execPath, [script], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const [code] = (await once(child, 'exit')) as [number];
  if (code !== 0) throw new Error(`${script} exited with ${code}`);
  const figures = JSON.parse(out.trim().split('\n').at(-1) ?? '{}') as Record<string, number>;
  return [
    'read-only SQL guard (Trino grammar), milliseconds:',
    ...Object.entries(figures).map(([name, ms]) => `  ${name.padEnd(40)} ${fmt(ms, ms < 10 ? 1 : 0)}`),
  ];
}
