/**
 * The limits a configuration really deploys, read from the template `cdk deploy`
 * would send: the API's throttle, each function's memory, timeout, reserved
 * concurrency and tracing, each queue's event source, the alarms and dashboards.
 * Reading the template (not the config) keeps the capacity figures honest when a
 * construct changes a default.
 */
import { rmSync } from 'node:fs';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { cdkJsonContext, DEFAULT_SECRET_NAMES, type PipelineConfig, parseConfig } from '../lib/config';
import { MeetingPipelineStack } from '../lib/meeting-pipeline-stack';

export interface DeployedFunction {
  service: string;
  memoryMb: number;
  timeoutSeconds: number;
  reserved: number | undefined;
  tracing: boolean;
  environment: Record<string, string>;
  /** Its SQS event source, if it has one. */
  eventSource?: { batchSize: number; maxConcurrency: number | undefined };
}

export interface DeployedLimits {
  api: { rateLimit: number; burstLimit: number };
  functions: Record<string, DeployedFunction>;
  alarms: number;
  /** The metrics the alarms read, what CloudWatch bills: a metric-math alarm reads several. */
  alarmMetrics: number;
  dashboards: number;
  /** Customer managed KMS keys the stack creates. */
  kmsKeys: number;
  /** Secrets the operator creates for the stack (the service's API key and signing secret), and the stack's own. */
  secrets: { operator: number; stack: number };
}

type Resource = { Type: string; Properties?: Record<string, unknown> };

/** `-c key=value` pairs over cdk.json's context, as the CDK CLI does. */
export function configFor(overrides: Record<string, string>): PipelineConfig {
  return parseConfig({ ...cdkJsonContext(), ...overrides });
}

export function deployedLimits(config: PipelineConfig): DeployedLimits {
  const app = new App({ context: cdkJsonContext() });
  const stack = new MeetingPipelineStack(app, 'CapacityPipeline', {
    config,
    env: { account: '111111111111', region: 'us-east-1' },
  });
  try {
    return limitsOf(Template.fromStack(stack).toJSON() as { Resources: Record<string, Resource> });
  } finally {
    // The synth bundled every function into a temporary folder; only the template is read.
    rmSync(app.outdir, { recursive: true, force: true });
  }
}

export function limitsOf(template: { Resources: Record<string, Resource> }): DeployedLimits {
  const resources = Object.entries(template.Resources);
  const ofType = (type: string) => resources.filter(([, r]) => r.Type === type);
  const stage = ofType('AWS::ApiGatewayV2::Stage')
    .map(([, r]) => r.Properties?.DefaultRouteSettings as Record<string, number> | undefined)
    .find((settings) => settings?.ThrottlingRateLimit !== undefined);
  if (stage === undefined) throw new Error('the template has no throttled HTTP API stage');

  const functions: Record<string, DeployedFunction> = {};
  const byLogicalId = new Map<string, DeployedFunction>();
  for (const [id, resource] of ofType('AWS::Lambda::Function')) {
    const props = resource.Properties ?? {};
    const environment = ((props.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables ??
      {}) as Record<string, unknown>;
    const service = environment.POWERTOOLS_SERVICE_NAME;
    if (typeof service !== 'string') continue; // CDK's own helper functions
    const fn: DeployedFunction = {
      service,
      memoryMb: Number(props.MemorySize ?? 128),
      timeoutSeconds: Number(props.Timeout ?? 3),
      reserved:
        props.ReservedConcurrentExecutions === undefined ? undefined : Number(props.ReservedConcurrentExecutions),
      tracing: (props.TracingConfig as { Mode?: string } | undefined)?.Mode === 'Active',
      environment: Object.fromEntries(
        Object.entries(environment).filter(([, v]) => typeof v === 'string') as Array<[string, string]>,
      ),
    };
    functions[service] = fn;
    byLogicalId.set(id, fn);
  }
  for (const [, resource] of ofType('AWS::Lambda::EventSourceMapping')) {
    const props = resource.Properties ?? {};
    const target = (props.FunctionName as { Ref?: string } | undefined)?.Ref;
    const fn = target === undefined ? undefined : byLogicalId.get(target);
    if (fn === undefined) continue;
    const scaling = props.ScalingConfig as { MaximumConcurrency?: number } | undefined;
    fn.eventSource = { batchSize: Number(props.BatchSize ?? 10), maxConcurrency: scaling?.MaximumConcurrency };
  }
  const alarms = ofType('AWS::CloudWatch::Alarm');
  const metricsRead = (alarm: Resource) =>
    (alarm.Properties?.Metrics as Array<{ MetricStat?: unknown }> | undefined)?.filter(
      (m) => m.MetricStat !== undefined,
    ).length ?? 1;
  return {
    api: { rateLimit: Number(stage.ThrottlingRateLimit), burstLimit: Number(stage.ThrottlingBurstLimit) },
    functions,
    alarms: alarms.length,
    alarmMetrics: alarms.reduce((sum, [, alarm]) => sum + metricsRead(alarm), 0),
    dashboards: ofType('AWS::CloudWatch::Dashboard').length,
    kmsKeys: ofType('AWS::KMS::Key').length,
    // The operator's are named by the configuration (README, Deploy to your account), not in the template.
    secrets: {
      operator: Object.keys(DEFAULT_SECRET_NAMES).length,
      stack: ofType('AWS::SecretsManager::Secret').length,
    },
  };
}
