/** The one Lambda function preset every capability uses. */

import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Duration, RemovalPolicy } from 'aws-cdk-lib';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import {
  ApplicationLogLevel,
  Architecture,
  LoggingFormat,
  Runtime,
  SystemLogLevel,
  Tracing,
} from 'aws-cdk-lib/aws-lambda';
import { type BundlingOptions, NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import type { ServiceName } from '../lambdas/core/telemetry';
import { acknowledge } from './nag';

export const PROJECT_ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The current Lambda Node.js runtime; bundles target it. */
export const LAMBDA_RUNTIME = Runtime.NODEJS_24_X;

/**
 * ESM, minified, every dependency bundled (the AWS SDK too, so its version is the
 * one in our lock file, not whatever the runtime ships). The banner gives bundled
 * CommonJS code a `require` for Node built-ins.
 */
export const BUNDLING: BundlingOptions = {
  format: OutputFormat.ESM,
  target: 'node22',
  minify: true,
  sourceMap: true,
  mainFields: ['module', 'main'],
  externalModules: [],
  banner:
    "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
};

/** File name an on-demand module gets beside index.mjs: `lambdas/shared/s3-payload-put.ts` → `s3-payload-put.mjs`. */
export function onDemandFileName(modulePath: string): string {
  return `${basename(modulePath).replace(/\.ts$/, '')}.mjs`;
}

const shellQuote = (arg: string): string => `'${arg.replaceAll("'", "'\\''")}'`;

/** The esbuild command that bundles one on-demand module with the function's own options. */
export function onDemandBundleCommand(inputDir: string, outputDir: string, modulePath: string): string {
  const args = [
    join(inputDir, 'node_modules', '.bin', 'esbuild'),
    '--bundle',
    join(inputDir, modulePath),
    `--outfile=${join(outputDir, onDemandFileName(modulePath))}`,
    '--platform=node',
    `--format=${BUNDLING.format}`,
    `--target=${BUNDLING.target}`,
    ...(BUNDLING.minify ? ['--minify'] : []),
    `--main-fields=${(BUNDLING.mainFields ?? []).join(',')}`,
    `--banner:js=${BUNDLING.banner ?? ''}`,
    '--log-level=warning',
  ];
  return args.map(shellQuote).join(' ');
}

export interface PipelineFunctionProps {
  /** Handler file, relative to the project root, e.g. `lambdas/ingress/handler.ts`. */
  entry: string;
  description: string;
  /** Value of POWERTOOLS_SERVICE_NAME, the `service` key on every log line. */
  serviceName: ServiceName;
  environment: Record<string, string>;
  timeout: Duration;
  memorySize?: number;
  logRetention: RetentionDays;
  reservedConcurrentExecutions?: number;
  /**
   * Modules (paths from the project root) the handler loads only on a rare path,
   * bundled as separate files beside index.mjs so cold starts neither read nor
   * parse them. The handler imports them by URL; see lambdas/shared/on-demand.ts.
   */
  onDemandModules?: string[];
  /** Where a failed invocation goes instead of a function dead-letter queue (acknowledges Serverless-LambdaDLQ). */
  failureHandling: string;
}

export class PipelineFunction extends NodejsFunction {
  constructor(scope: Construct, id: string, props: PipelineFunctionProps) {
    const logGroup = new LogGroup(scope, `${id}Logs`, {
      retention: props.logRetention,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    // Its own role, allowed to write its own log group only (not the AWS managed basic execution policy).
    const role = new Role(scope, `${id}Role`, {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: `Runs ${props.serviceName}`,
    });
    logGroup.grantWrite(role);
    super(scope, id, {
      role,
      entry: `${PROJECT_ROOT}${props.entry}`,
      projectRoot: PROJECT_ROOT,
      depsLockFilePath: `${PROJECT_ROOT}package-lock.json`,
      handler: 'handler',
      description: props.description,
      runtime: LAMBDA_RUNTIME,
      architecture: Architecture.ARM_64,
      memorySize: props.memorySize ?? 512,
      timeout: props.timeout,
      tracing: Tracing.ACTIVE,
      logGroup,
      loggingFormat: LoggingFormat.JSON,
      applicationLogLevelV2: ApplicationLogLevel.INFO,
      systemLogLevelV2: SystemLogLevel.WARN,
      reservedConcurrentExecutions: props.reservedConcurrentExecutions,
      bundling: {
        ...BUNDLING,
        commandHooks: {
          beforeBundling: () => [],
          beforeInstall: () => [],
          afterBundling: (inputDir, outputDir) =>
            (props.onDemandModules ?? []).map((modulePath) => onDemandBundleCommand(inputDir, outputDir, modulePath)),
        },
      },
      environment: {
        POWERTOOLS_SERVICE_NAME: props.serviceName,
        NODE_OPTIONS: '--enable-source-maps',
        ...props.environment,
      },
    });
    acknowledge(
      role,
      'AwsSolutions-IAM5[Resource::*]',
      'X-Ray tracing: xray:PutTraceSegments and xray:PutTelemetryRecords support no resource-level permissions.',
    );
    acknowledge(this, 'Serverless-LambdaDLQ', props.failureHandling);
  }
}
