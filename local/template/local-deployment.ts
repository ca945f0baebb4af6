/**
 * The stack "deployed" on the local emulators: synthesized (without bundling: the handlers run
 * in-process here), its resources created from the template, and each function's environment
 * resolved from it. Local mode, the benches and the tests build every handler from
 * `environmentOf`, parsed by that handler's own schema.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { S3Client } from '@aws-sdk/client-s3';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { ServiceName } from '../../lambdas/core/telemetry';
import { type FunctionEnvironment, parseFunctionEnvironment } from './function-environments';
import { SYNTH_SHARE_VARIABLE } from './synth-share';
import { type SynthesizedFunction, synthesizeApp } from './synthesized-app';
import { type TemplateResourceOptions, TemplateResources } from './template-resources';

export interface LocalDeployment {
  resources: TemplateResources;
  functions: SynthesizedFunction[];
  stackName: string;
  /** The function deployed as this service (SERVICES), as the template defines it. */
  functionNamed(service: ServiceName): SynthesizedFunction;
  /** Its environment as deployed, resolved for here; `local` as TemplateResources.environmentOf. */
  environmentOf(service: ServiceName, local?: Record<string, string>): Record<string, string>;
  /** That environment parsed as the service's handler parses it (function-environments.ts). */
  parsedEnvironmentOf<S extends ServiceName>(service: S, local?: Record<string, string>): FunctionEnvironment<S>;
}

type UnbundledApp = Pick<ReturnType<typeof synthesizeApp>, 'template' | 'functions' | 'stackName'>;

/** One synthesis per configuration per process (and per test run, through SYNTH_SHARE_VARIABLE). */
const synthesized = new Map<string, UnbundledApp>();

export function synthesizedForLocal(config: Record<string, unknown> = {}): UnbundledApp {
  const key = createHash('sha256').update(JSON.stringify(config)).digest('hex').slice(0, 16);
  const cached = synthesized.get(key);
  if (cached !== undefined) return cached;
  const shareDir = process.env[SYNTH_SHARE_VARIABLE];
  const file = shareDir === undefined ? undefined : join(shareDir, `local-app-${key}.json`);
  let app: UnbundledApp;
  if (file !== undefined && existsSync(file)) app = JSON.parse(readFileSync(file, 'utf8')) as UnbundledApp;
  else {
    const made = synthesizeApp({ bundling: false, config });
    made.dispose();
    app = { template: made.template, functions: made.functions, stackName: made.stackName };
    if (file !== undefined) {
      // Written whole, then renamed: a process reading at the same time sees all of it or none.
      writeFileSync(`${file}.${process.pid}`, JSON.stringify(app));
      renameSync(`${file}.${process.pid}`, file);
    }
  }
  synthesized.set(key, app);
  return app;
}

export async function deployLocally(
  clients: { dynamo: DynamoDBClient; sqs: SQSClient; s3: S3Client },
  options: Omit<TemplateResourceOptions, 'stackName'> & { config?: Record<string, unknown> },
): Promise<LocalDeployment> {
  const app = synthesizedForLocal(options.config);
  const resources = await TemplateResources.create(app.template, clients, { ...options, stackName: app.stackName });
  const functionNamed = (service: ServiceName) => {
    const fn = app.functions.find((f) => f.serviceName === service);
    if (fn === undefined) throw new Error(`the stack deploys no function for ${service}`);
    return fn;
  };
  return {
    resources,
    functions: app.functions,
    stackName: app.stackName,
    functionNamed,
    environmentOf: (service, local) => resources.environmentOf(functionNamed(service), local),
    parsedEnvironmentOf: (service, local) =>
      parseFunctionEnvironment(service, resources.environmentOf(functionNamed(service), local)),
  };
}
