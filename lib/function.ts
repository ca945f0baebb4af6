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
import { type BundlingOptions, LogLevel, NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import type { ServiceName } from '../lambdas/core/telemetry';
import type { PipelineConfig } from './config';
import { acknowledge } from './nag';

export const PROJECT_ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The current Lambda Node.js runtime; bundles target it. */
export const LAMBDA_RUNTIME = Runtime.NODEJS_24_X;

/**
 * ESM, minified, every dependency bundled (the AWS SDK too, so its version is the
 * one in our lock file, not whatever the runtime ships). The banner gives bundled
 * CommonJS code a `require` for Node built-ins. esbuild prints warnings and errors only
 * (left unset, CDK passes no level and esbuild prints a size table per function).
 */
export const BUNDLING: BundlingOptions = {
  format: OutputFormat.ESM,
  target: 'node22',
  minify: true,
  sourceMap: true,
  logLevel: LogLevel.WARNING,
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

/** What every function of the stack shares, from the configuration. */
export interface FunctionSettings {
  logRetention: RetentionDays;
  logLevel: PipelineConfig['logLevel'];
  tracing: PipelineConfig['tracing'];
}

export function functionSettings(config: PipelineConfig): FunctionSettings {
  return { logRetention: config.logRetentionDays, logLevel: config.logLevel, tracing: config.tracing };
}

export interface PipelineFunctionProps {
  /** Handler file, relative to the project root, e.g. `lambdas/ingress/handler.ts`. */
  entry: string;
  description: string;
  /** Value of POWERTOOLS_SERVICE_NAME, the `service` key on every log line. */
  serviceName: ServiceName;
  environment: Record<string, string>;
  timeout: Duration;
  /** Sized per function: I/O-bound work gains little from the CPU that comes with more memory. */
  memorySize: number;
  settings: FunctionSettings;
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
  /** The service name its logs and metrics carry (SERVICES). */
  readonly serviceName: ServiceName;
  /** Its handler module, from the project root: where its code is read from (test/infra/table-grants.test.ts). */
  readonly entry: string;

  constructor(scope: Construct, id: string, props: PipelineFunctionProps) {
    const { logRetention, logLevel, tracing } = props.settings;
    const logGroup = new LogGroup(scope, `${id}Logs`, {
      retention: logRetention,
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
      memorySize: props.memorySize,
      timeout: props.timeout,
      tracing: tracing === 'active' ? Tracing.ACTIVE : Tracing.DISABLED,
      logGroup,
      loggingFormat: LoggingFormat.JSON,
      // Lambda drops lines under this level; Powertools is told the same so it does not build them.
      applicationLogLevelV2: ApplicationLogLevel[logLevel],
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
        POWERTOOLS_LOG_LEVEL: logLevel,
        NODE_OPTIONS: '--enable-source-maps',
        ...props.environment,
      },
    });
    this.serviceName = props.serviceName;
    this.entry = props.entry;
    if (tracing === 'active') {
      acknowledge(
        role,
        'AwsSolutions-IAM5[Resource::*]',
        'X-Ray tracing: xray:PutTraceSegments and xray:PutTelemetryRecords support no resource-level permissions.',
      );
    } else {
      acknowledge(
        this,
        'Serverless-LambdaTracing',
        'X-Ray is off by configuration (`tracing`): traces are billed per request on the hot path; logs and metrics carry the request id.',
      );
    }
    acknowledge(this, 'Serverless-LambdaDLQ', props.failureHandling);
  }
}
