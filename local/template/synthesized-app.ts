/**
 * The stack as `cdk synth` makes it, read for what each function is deployed with: its handler
 * module, its environment as CloudFormation values, and (when bundled) its code folder in the
 * cloud assembly. Local mode, the tests and the deployed-bundle test wire every handler from
 * this, never from a hand-written environment, so a variable the template lacks is missing
 * everywhere.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import type { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import { cdkJsonContext, parseConfig } from '../../lib/config';
import { PipelineFunction } from '../../lib/function';
import { MeetingPipelineStack } from '../../lib/meeting-pipeline-stack';

/** A template as CloudFormation reads it: the parts the local wiring uses. */
export interface CfnTemplate {
  Resources: Record<string, CfnResource>;
  Outputs?: Record<string, { Value: unknown }>;
}

export interface CfnResource {
  Type: string;
  Properties?: Record<string, unknown>;
  Metadata?: Record<string, unknown>;
}

export interface SynthesizedFunction {
  logicalId: string;
  /** Handler module from the project root, e.g. `lambdas/ingress/handler.ts`. */
  entry: string;
  /** POWERTOOLS_SERVICE_NAME: the function's name in logs, metrics and SERVICES. */
  serviceName: string;
  /** `Environment.Variables` as synthesized: strings and intrinsic functions. */
  environment: Record<string, unknown>;
  timeoutSeconds: number;
  memorySize: number;
  /** The bundled code (index.mjs and its on-demand modules), when synthesized with bundling. */
  assetDir?: string;
}

export interface SynthesizedApp {
  stackName: string;
  template: CfnTemplate;
  functions: SynthesizedFunction[];
  /** The cloud assembly's folder; removed by dispose(). */
  assemblyDir: string;
  dispose(): void;
}

/** The stack name local mode and the tests synthesize (it names the lake's workgroup and database). */
export const LOCAL_STACK_NAME = 'Local';
/** The service's API root in the synthesized configuration; local wiring points it at the local service. */
export const LOCAL_SYNTH_UPSTREAM = 'https://local.invalid/api/v1/';

export interface SynthesizeOptions {
  /** Bundle each function with esbuild as `cdk deploy` would (slow: about 20 s on 2 cores). */
  bundling: boolean;
  /** Configuration on top of cdk.json's context (and an upstream root of its own). */
  config?: Record<string, unknown>;
  stackName?: string;
}

export function synthesizeApp(options: SynthesizeOptions): SynthesizedApp {
  const stackName = options.stackName ?? LOCAL_STACK_NAME;
  const assemblyDir = mkdtempSync(join(tmpdir(), 'cdk.out-'));
  // With bundling, the asset metadata is what names each function's code folder (`aws:asset:path`): the
  // CDK CLI asks for it, an App made in-process writes it only when told to.
  const context = {
    ...cdkJsonContext(),
    ...(options.bundling ? { 'aws:cdk:enable-asset-metadata': true } : { 'aws:cdk:bundling-stacks': [] }),
  };
  const app = new App({ context, outdir: assemblyDir });
  const stack = new MeetingPipelineStack(app, stackName, {
    config: parseConfig({ ...cdkJsonContext(), upstreamBaseUrl: LOCAL_SYNTH_UPSTREAM, ...options.config }),
  });
  try {
    const template = app.synth().getStackByName(stackName).template as CfnTemplate;
    return {
      stackName,
      template,
      functions: pipelineFunctions(stack, template, options.bundling ? assemblyDir : undefined),
      assemblyDir,
      dispose: () => rmSync(assemblyDir, { recursive: true, force: true }),
    };
  } catch (error) {
    rmSync(assemblyDir, { recursive: true, force: true });
    throw error;
  }
}

function pipelineFunctions(stack: Stack, template: CfnTemplate, assemblyDir: string | undefined) {
  return stack.node
    .findAll()
    .filter((construct): construct is PipelineFunction => construct instanceof PipelineFunction)
    .map((fn): SynthesizedFunction => {
      const logicalId = Stack.of(fn).getLogicalId(fn.node.defaultChild as CfnFunction);
      const resource = template.Resources[logicalId];
      if (resource === undefined) throw new Error(`the template has no resource ${logicalId} for ${fn.entry}`);
      const properties = resource.Properties ?? {};
      const environment = ((properties.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables ??
        {}) as Record<string, unknown>;
      const assetPath = resource.Metadata?.['aws:asset:path'];
      return {
        logicalId,
        entry: fn.entry,
        serviceName: fn.serviceName,
        environment,
        timeoutSeconds: Number(properties.Timeout ?? 3),
        memorySize: Number(properties.MemorySize ?? 128),
        ...(assemblyDir !== undefined && typeof assetPath === 'string' && { assetDir: join(assemblyDir, assetPath) }),
      };
    });
}

/** The one function deployed from this handler module (an error names the modules there are). */
export function functionOf(app: Pick<SynthesizedApp, 'functions'>, entry: string): SynthesizedFunction {
  const found = app.functions.find((fn) => fn.entry === entry);
  if (found === undefined)
    throw new Error(`no function of the stack runs ${entry}; they run ${app.functions.map((f) => f.entry).join(', ')}`);
  return found;
}
