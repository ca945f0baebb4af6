/**
 * Every `npx` command a person is shown (README.md, docs/, the CLI's help, the banners of bin/ and local/)
 * runs only what this repository installs: `--no-install` and a name that is this package's own bin or a bin
 * of one of its dependencies. Without `--no-install`, npx run outside the repository (or before `npm ci`)
 * fetches the name from the registry and runs whatever whoever registered it published.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');

interface PackageJson {
  bin?: string | Record<string, string>;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}

const readPackage = (folder: string): PackageJson =>
  JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')) as PackageJson;

function binNames(name: string, manifest: PackageJson): string[] {
  if (manifest.bin === undefined) return [];
  return typeof manifest.bin === 'string' ? [name.split('/').pop() ?? name] : Object.keys(manifest.bin);
}

/** This package's bins and its dependencies' (as `npm ci` links them into node_modules/.bin). */
function ownedBins(): Set<string> {
  const own = readPackage(ROOT);
  const dependencies = Object.keys({ ...own.dependencies, ...own.devDependencies });
  return new Set([
    ...binNames('meeting-pipeline', own),
    ...dependencies.flatMap((name) => binNames(name, readPackage(join(ROOT, 'node_modules', name)))),
  ]);
}

function files(folder: string, extension: string): string[] {
  return readdirSync(join(ROOT, folder), { recursive: true, encoding: 'utf8' })
    .filter((path) => path.endsWith(extension))
    .map((path) => join(ROOT, folder, path));
}

const SHOWN_TO_PEOPLE = [
  join(ROOT, 'README.md'),
  ...files('docs', '.md'),
  ...files('bin', '.ts'),
  ...files('cli', '.ts'),
  ...files('local', '.ts'),
];

/** `npx [flags] name` in prose, a shell line or a template string. */
const NPX_LINE = /\bnpx((?:\s+-[\w-]+(?:=\S+)?)*)\s+([^\s`'"\\)]*[^\s`'"\\):.,;])/g;
/** An MCP client's JSON entry: `"command": "npx", "args": [...]`. */
const NPX_JSON = /"command":\s*"npx",\s*"args":\s*\[([^\]]*)\]/g;

function offenders(path: string, owned: Set<string>): string[] {
  const text = readFileSync(path, 'utf8');
  const found: string[] = [];
  const check = (index: number, flags: string[], name: string) => {
    if (flags.includes('--no-install') && owned.has(name)) return;
    const line = text.slice(0, index).split('\n').length;
    found.push(`${relative(ROOT, path)}:${line}: npx ${[...flags, name].join(' ')}`);
  };
  for (const match of text.matchAll(NPX_LINE))
    check(match.index, (match[1] ?? '').trim().split(/\s+/).filter(Boolean), match[2] ?? '');
  for (const match of text.matchAll(NPX_JSON)) {
    const args = [...(match[1] ?? '').matchAll(/"([^"]*)"/g)].map((arg) => arg[1] ?? '');
    const nameAt = args.findIndex((arg) => !arg.startsWith('-'));
    check(match.index, args.slice(0, Math.max(nameAt, 0)), args[nameAt] ?? '');
  }
  return found;
}

describe('npx commands shown to people', () => {
  it('knows the bins this repository installs', () => {
    expect([...ownedBins()]).toEqual(expect.arrayContaining(['meeting-pipeline', 'cdk', 'tsx']));
  });

  it('run only those bins, with --no-install', () => {
    const owned = ownedBins();
    expect(SHOWN_TO_PEOPLE.flatMap((path) => offenders(path, owned))).toEqual([]);
  });
});
