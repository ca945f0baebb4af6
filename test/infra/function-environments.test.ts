/**
 * Every function's environment as the template deploys it parses with the schemas its handler
 * parses (local/template/function-environments.ts), under cdk.json's defaults and under every
 * optional capability switched the other way; and no schema lets a variable be optional that the
 * stack always sets (a missing one would pass unseen) or that it never sets (a capability that is
 * silently off, as the erase function's LAKE_BUCKET once was).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { ServiceName } from '../../lambdas/core/telemetry';
import { type EnvironmentSchema, FUNCTION_ENVIRONMENTS } from '../../local/template/function-environments';
import { synthesizedForLocal } from '../../local/template/local-deployment';
import type { SynthesizedFunction } from '../../local/template/synthesized-app';
import { TemplateResources } from '../../local/template/template-resources';

/** The settings that add, remove or change a function's variables, each the other way from its default. */
const CONFIGURATIONS: Record<string, Record<string, unknown>> = {
  'cdk.json defaults': {},
  'every optional capability switched': { meetingRetentionDays: 30, eraseOnUpstreamDelete: false, eraseUpstream: true },
};

/**
 * Optional variables no configuration sets, each with why it stays (prefer a builder option to a
 * variable the stack never sets). Empty: every optional variable is some configuration's.
 */
const NEVER_SET: Partial<Record<ServiceName, Record<string, string>>> = {};

/** Variables the Lambda runtime and Powertools read, not the handler's schema. */
const RUNTIME_VARIABLES = new Set(['NODE_OPTIONS', 'POWERTOOLS_LOG_LEVEL', 'POWERTOOLS_SERVICE_NAME']);

const deployed = Object.entries(CONFIGURATIONS).map(([name, config]) => {
  const app = synthesizedForLocal(config);
  const resources = TemplateResources.named(app.template, { prefix: 'test', stackName: app.stackName });
  return { name, functions: app.functions, resources };
});

const schemasOf = (fn: SynthesizedFunction): readonly EnvironmentSchema[] =>
  FUNCTION_ENVIRONMENTS[fn.serviceName as ServiceName] ?? [];

/** Optional, or defaulted: either way the handler starts without the variable. */
const isOptional = (schema: EnvironmentSchema, key: string): boolean =>
  ['optional', 'default', 'prefault'].includes(
    (schema.shape[key] as { _zod: { def: { type: string } } })._zod.def.type,
  );

/** Each environment module's exported schemas by the name a handler's source calls them. */
async function schemaNames(): Promise<Map<unknown, string>> {
  const names = new Map<unknown, string>();
  for (const folder of readdirSync('lambdas')) {
    const file = resolve('lambdas', folder, 'environment.ts');
    const module: Record<string, unknown> = await import(pathToFileURL(file).href).catch(() => ({}));
    for (const [name, value] of Object.entries(module)) if (name.endsWith('EnvironmentSchema')) names.set(value, name);
  }
  return names;
}

const PARSE_OF_PROCESS_ENV = /(\w+EnvironmentSchema)\.parse\(process\.env\)/g;

function lambdaSources(dir = 'lambdas'): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? lambdaSources(join(dir, entry.name))
      : entry.name.endsWith('.ts')
        ? [join(dir, entry.name)]
        : [],
  );
}

describe('the registry of function environments', () => {
  const [defaults] = deployed;
  if (defaults === undefined) throw new Error('no configuration');

  it('names every function the stack deploys, and no other', () => {
    expect(defaults.functions.map((fn) => fn.serviceName).sort()).toEqual(Object.keys(FUNCTION_ENVIRONMENTS).sort());
  });

  it("holds the schemas each handler parses process.env with, in the handler's own module", async () => {
    const names = await schemaNames();
    for (const fn of defaults.functions) {
      const parsed = [...readFileSync(fn.entry, 'utf8').matchAll(PARSE_OF_PROCESS_ENV)].map((match) => match[1]);
      expect(parsed, fn.entry).toEqual(schemasOf(fn).map((schema) => names.get(schema)));
    }
    // A parse hidden in a module a handler calls would escape the check above.
    const entries = new Set(defaults.functions.map((fn) => fn.entry));
    const elsewhere = lambdaSources().filter(
      (file) => !entries.has(file) && /\.parse\(process\.env\)/.test(readFileSync(file, 'utf8')),
    );
    expect(elsewhere).toEqual([]);
  });
});

describe.each(deployed)('every function of the stack with $name', ({ functions, resources }) => {
  it.each(functions.map((fn) => [fn.serviceName, fn] as const))(
    "%s: its environment as deployed parses with its handler's schemas",
    (_service, fn) => {
      const environment = resources.environmentOf(fn);
      for (const schema of schemasOf(fn)) {
        const result = schema.safeParse(environment);
        expect(result.success ? [] : result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`)).toEqual([]);
      }
    },
  );

  it.each(functions.map((fn) => [fn.serviceName, fn] as const))(
    '%s: every variable it is deployed with is one its handler reads',
    (_service, fn) => {
      const read = new Set(schemasOf(fn).flatMap((schema) => Object.keys(schema.shape)));
      const unread = Object.keys(fn.environment).filter((key) => !RUNTIME_VARIABLES.has(key) && !read.has(key));
      expect(unread).toEqual([]);
    },
  );
});

describe('no variable is optional unless some configuration leaves it out', () => {
  const services = Object.keys(FUNCTION_ENVIRONMENTS) as ServiceName[];
  it.each(services)('%s', (service) => {
    const environments = deployed.map(({ name, functions }) => {
      const fn = functions.find((f) => f.serviceName === service);
      if (fn === undefined) throw new Error(`${name}: no function ${service}`);
      return { name, keys: new Set(Object.keys(fn.environment)) };
    });
    const problems: string[] = [];
    for (const schema of FUNCTION_ENVIRONMENTS[service] as readonly EnvironmentSchema[]) {
      for (const key of Object.keys(schema.shape).filter((k) => isOptional(schema, k))) {
        const setBy = environments.filter((e) => e.keys.has(key)).map((e) => e.name);
        if (setBy.length === environments.length)
          problems.push(`${key} is optional but every configuration sets it: make it required`);
        if (setBy.length === 0 && NEVER_SET[service]?.[key] === undefined)
          problems.push(`${key} is optional and no configuration sets it: a capability silently off`);
      }
    }
    expect(problems).toEqual([]);
  });
});
