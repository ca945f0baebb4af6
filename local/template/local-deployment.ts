/**
 * The stack "deployed" on the local emulators: synthesized (without bundling: the handlers run
 * in-process here), its resources created from the template, and each function's environment
 * resolved from it. Local mode, the benches and the tests build every handler from
 * `environmentOf`, parsed by that handler's own schema.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { S3Client } from '@aws-sdk/client-s3';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { ServiceName } from '../../lambdas/core/telemetry';
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
}

/** One synthesis per configuration per process: the template does not change while it runs. */
const synthesized = new Map<string, Pick<ReturnType<typeof synthesizeApp>, 'template' | 'functions' | 'stackName'>>();

export function synthesizedForLocal(config: Record<string, unknown> = {}) {
  const key = JSON.stringify(config);
  let app = synthesized.get(key);
  if (app === undefined) {
    const made = synthesizeApp({ bundling: false, config });
    made.dispose();
    app = { template: made.template, functions: made.functions, stackName: made.stackName };
    synthesized.set(key, app);
  }
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
  };
}
