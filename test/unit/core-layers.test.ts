/**
 * The import rules of the code, checked on the source: lambdas/ never reaches into
 * lib/ or the CDK, and no two folders of the Lambda-free core import each other,
 * directly or around a longer loop.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const CORE = join(ROOT, 'lambdas/core');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Module specifiers of static and dynamic imports and re-exports. */
function specifiers(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:from|import)\s*\(?\s*'([^']+)'/g)].map((match) => match[1] as string);
}

/** The core folder a file belongs to ('.' for files directly in lambdas/core). */
const coreFolder = (file: string) => relative(CORE, dirname(file)).split('/')[0] || '.';

function coreFolderGraph(): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const file of sources(CORE)) {
    const from = coreFolder(file);
    for (const specifier of specifiers(file).filter((s) => s.startsWith('.'))) {
      const target = resolve(dirname(file), specifier);
      if (!target.startsWith(CORE)) continue;
      const to = coreFolder(`${target}.ts`);
      if (to !== from) graph.set(from, (graph.get(from) ?? new Set()).add(to));
    }
  }
  return graph;
}

/** Every cycle among the folders, as `a → b → a`. */
function cycles(graph: Map<string, Set<string>>): string[] {
  const found = new Set<string>();
  const walk = (path: string[]) => {
    for (const next of graph.get(path.at(-1) as string) ?? []) {
      if (next === path[0]) found.add([...path, next].join(' → '));
      else if (!path.includes(next)) walk([...path, next]);
    }
  };
  for (const start of graph.keys()) walk([start]);
  return [...found];
}

describe('import rules', () => {
  it('keeps lambdas/ free of lib/ and the CDK', () => {
    const offenders = sources(join(ROOT, 'lambdas')).flatMap((file) =>
      specifiers(file)
        .filter(
          (s) =>
            s.startsWith('aws-cdk-lib') ||
            s === 'constructs' ||
            resolve(dirname(file), s).startsWith(join(ROOT, 'lib')),
        )
        .map((s) => `${relative(ROOT, file)} imports ${s}`),
    );
    expect(offenders).toEqual([]);
  });

  it('has no cycle between the folders of the core', () => {
    const graph = coreFolderGraph();
    expect(graph.size).toBeGreaterThan(5);
    expect(cycles(graph)).toEqual([]);
  });

  it('finds a cycle when there is one', () => {
    const graph = new Map([
      ['events', new Set(['ingress', 'store'])],
      ['ingress', new Set(['queue', 'events'])],
    ]);
    expect(cycles(graph)).toContain('events → ingress → events');
  });
});
