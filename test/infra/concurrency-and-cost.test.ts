/**
 * Concurrency isolation and cost settings as synthesized: reserved concurrency and
 * event-source caps, memory per function, log level, X-Ray, upload part size and
 * the recordings' storage-class transition, by default and as configured.
 */
import { Match, Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { SERVICES } from '../../lambdas/core/telemetry';
import { cdkJsonContext, type PipelineConfig, parseConfig } from '../../lib/config';
import { MeetingPipelineStack } from '../../lib/meeting-pipeline-stack';
import { actionsOf, functionStatements } from './iam';
import { TEST_CONFIG_INPUT, testApp } from './synth';

/** The stack's template without bundling the functions: only their configuration is read here. */
function template(overrides: Partial<Record<keyof PipelineConfig, unknown>> = {}): Template {
  const app = testApp({ ...cdkJsonContext(), 'aws:cdk:bundling-stacks': [] });
  const stack = new MeetingPipelineStack(app, 'CostCheck', {
    config: parseConfig({ ...TEST_CONFIG_INPUT, ...overrides }),
    env: { account: '111111111111', region: 'eu-west-1' },
  });
  return Template.fromStack(stack);
}

type Properties = Record<string, unknown> & {
  Environment: { Variables: Record<string, unknown> };
  LoggingConfig?: Record<string, unknown>;
};

/** Each function's properties by its service name. */
function functions(t: Template): Record<string, Properties> {
  const found: Record<string, Properties> = {};
  for (const fn of Object.values(t.findResources('AWS::Lambda::Function'))) {
    const properties = fn.Properties as Properties;
    const service = properties.Environment.Variables.POWERTOOLS_SERVICE_NAME;
    if (typeof service === 'string') found[service] = properties;
  }
  return found;
}

/** Maximum concurrency of the event source mapping on the queue whose logical id starts with `queuePrefix`. */
function sourceConcurrency(t: Template, queuePrefix: string): unknown {
  const mappings = Object.values(t.findResources('AWS::Lambda::EventSourceMapping')).filter((m) =>
    String(m.Properties.EventSourceArn['Fn::GetAtt'][0]).startsWith(queuePrefix),
  );
  expect(mappings).toHaveLength(1);
  return mappings[0]?.Properties.ScalingConfig?.MaximumConcurrency;
}

function recordingRules(t: Template): Array<Record<string, unknown>> {
  const buckets = Object.values(
    t.findResources('AWS::S3::Bucket', {
      Properties: {
        LifecycleConfiguration: { Rules: Match.arrayWith([Match.objectLike({ Id: 'expire-replaced-versions' })]) },
      },
    }),
  );
  expect(buckets).toHaveLength(1);
  return buckets[0]?.Properties.LifecycleConfiguration.Rules;
}

describe('concurrency and cost defaults', () => {
  const t = template();
  const byService = functions(t);

  it('reserves concurrency for the ingress and the launches, caps the queue consumers, and leaves the rest unreserved', () => {
    const reserved = Object.fromEntries(
      Object.entries(byService).map(([service, p]) => [service, p.ReservedConcurrentExecutions]),
    );
    expect(reserved).toEqual({
      [SERVICES.ingress]: 150,
      [SERVICES.launchBot]: 10,
      [SERVICES.reconciler]: 1,
      [SERVICES.processEvents]: undefined,
      [SERVICES.archive]: undefined,
      [SERVICES.schedules]: undefined,
    });
    expect(sourceConcurrency(t, 'WebhookIngressEventsQueue')).toBe(25);
    expect(sourceConcurrency(t, 'RecordingArchiveArchiveQueue')).toBe(20);
  });

  it('sizes memory per function', () => {
    expect(Object.fromEntries(Object.entries(byService).map(([service, p]) => [service, p.MemorySize]))).toEqual({
      [SERVICES.ingress]: 512,
      [SERVICES.processEvents]: 512,
      [SERVICES.archive]: 1024,
      [SERVICES.launchBot]: 256,
      [SERVICES.reconciler]: 256,
      [SERVICES.schedules]: 256,
      [SERVICES.readApi]: 512,
      [SERVICES.calendars]: 512,
      [SERVICES.calendarSync]: 512,
      [SERVICES.calendarUserSync]: 512,
      // A secret read, a table read or two and a queue send per notification.
      [SERVICES.calendarPush]: 256,
      // Rewrites a compacted lake day without the erased meeting's rows.
      [SERVICES.erase]: 3008,
      // Waits on Athena and shapes a page of rows.
      [SERVICES.lakeSearch]: 512,
      // Decodes and re-encodes a closed day's rows per table in memory.
      [SERVICES.lakeCompaction]: 3008,
    });
  });

  it('logs at INFO, in Lambda and in Powertools alike, and traces nothing', () => {
    for (const [service, p] of Object.entries(byService)) {
      expect(p.LoggingConfig, service).toMatchObject({ ApplicationLogLevel: 'INFO', SystemLogLevel: 'WARN' });
      expect(p.Environment.Variables.POWERTOOLS_LOG_LEVEL, service).toBe('INFO');
      expect(p, service).not.toHaveProperty('TracingConfig');
      expect(
        actionsOf(functionStatements(t, service)).filter((a) => a.startsWith('xray:')),
        service,
      ).toEqual([]);
    }
    t.hasResourceProperties('AWS::StepFunctions::StateMachine', { TracingConfiguration: { Enabled: false } });
  });

  it('uploads recordings in 16 MiB parts and moves them to Glacier Instant Retrieval after 30 days', () => {
    expect(byService[SERVICES.archive]?.Environment.Variables.RECORDING_UPLOAD_PART_MIB).toBe('16');
    expect(recordingRules(t)).toContainEqual({
      Id: 'archive-recordings',
      Prefix: 'meetings/',
      Transitions: [{ StorageClass: 'GLACIER_IR', TransitionInDays: 30 }],
      Status: 'Enabled',
    });
  });
});

describe('concurrency and cost as configured', () => {
  const t = template({
    ingressReservedConcurrency: 300,
    launchReservedConcurrency: 4,
    eventConcurrency: 40,
    archiveConcurrency: 5,
    logLevel: 'DEBUG',
    tracing: 'active',
    recordingUploadPartMiB: 32,
    recordingArchiveClass: 'INTELLIGENT_TIERING',
    recordingTransitionDays: 0,
  });
  const byService = functions(t);

  it('follows the concurrency settings', () => {
    expect(byService[SERVICES.ingress]?.ReservedConcurrentExecutions).toBe(300);
    expect(byService[SERVICES.launchBot]?.ReservedConcurrentExecutions).toBe(4);
    expect(sourceConcurrency(t, 'WebhookIngressEventsQueue')).toBe(40);
    expect(sourceConcurrency(t, 'RecordingArchiveArchiveQueue')).toBe(5);
  });

  it('logs at DEBUG and traces every function and the launcher with X-Ray', () => {
    for (const [service, p] of Object.entries(byService)) {
      expect(p.LoggingConfig, service).toMatchObject({ ApplicationLogLevel: 'DEBUG' });
      expect(p.Environment.Variables.POWERTOOLS_LOG_LEVEL, service).toBe('DEBUG');
      expect(p.TracingConfig, service).toEqual({ Mode: 'Active' });
      expect(actionsOf(functionStatements(t, service)), service).toEqual(
        expect.arrayContaining(['xray:PutTraceSegments', 'xray:PutTelemetryRecords']),
      );
    }
    t.hasResourceProperties('AWS::StepFunctions::StateMachine', { TracingConfiguration: { Enabled: true } });
  });

  it('passes the part size and transitions to the class asked for', () => {
    expect(byService[SERVICES.archive]?.Environment.Variables.RECORDING_UPLOAD_PART_MIB).toBe('32');
    expect(recordingRules(t)).toContainEqual(
      expect.objectContaining({
        Id: 'archive-recordings',
        Transitions: [{ StorageClass: 'INTELLIGENT_TIERING', TransitionInDays: 0 }],
      }),
    );
  });

  it('keeps recordings in Standard when told to', () => {
    const ids = recordingRules(template({ recordingArchiveClass: 'none' })).map((rule) => rule.Id);
    // No transition; the lake's results rule (lib/meetings-lake.ts) expires query results only.
    expect(ids).toEqual(['abort-incomplete-uploads', 'expire-replaced-versions', 'expire-lake-results']);
  });
});
