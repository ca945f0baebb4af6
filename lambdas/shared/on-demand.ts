/**
 * Where a module bundled on demand lives. Deployed, it is a sibling file of
 * index.mjs (lib/function.ts builds it there); run from source (tests, local
 * mode), it is the TypeScript module itself.
 */
export function onDemandModuleUrl(name: string, importerUrl: string): string {
  return new URL(`./${name}${importerUrl.endsWith('.ts') ? '.ts' : '.mjs'}`, importerUrl).href;
}
