/** The one Lambda function preset every capability uses. */
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { Architecture, LoggingFormat, ApplicationLogLevel, SystemLogLevel, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat, type BundlingOptions } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { fileURLToPath } from 'node:url';

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
  banner: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
};

export interface PipelineFunctionProps {
  /** Handler file, relative to the project root, e.g. `lambdas/ingress/handler.ts`. */
  entry: string;
  description: string;
  /** Value of POWERTOOLS_SERVICE_NAME, the `service` key on every log line. */
  serviceName: string;
  environment: Record<string, string>;
  timeout: Duration;
  memorySize?: number;
  logRetention: RetentionDays;
  reservedConcurrentExecutions?: number;
}

export class PipelineFunction extends NodejsFunction {
  constructor(scope: Construct, id: string, props: PipelineFunctionProps) {
    const logGroup = new LogGroup(scope, `${id}Logs`, { retention: props.logRetention, removalPolicy: RemovalPolicy.DESTROY });
    super(scope, id, {
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
      bundling: BUNDLING,
      environment: {
        POWERTOOLS_SERVICE_NAME: props.serviceName,
        NODE_OPTIONS: '--enable-source-maps',
        ...props.environment,
      },
    });
  }
}
