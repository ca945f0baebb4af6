/** The wrapper every handler uses: request id on each log line, metrics published even on failure, no empty EMF. */
import type { Context } from 'aws-lambda';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { METRICS, SERVICES } from '../../lambdas/core/telemetry';
import { createTelemetry, withPowertools } from '../../lambdas/shared/powertools';

const context = {
  awsRequestId: 'c0ffee00-1111-2222-3333-444455556666',
  functionName: 'meeting-pipeline-archive',
  invokedFunctionArn: 'arn:aws:lambda:eu-west-1:111111111111:function:meeting-pipeline-archive',
  memoryLimitInMB: '1024',
  functionVersion: '$LATEST',
} as Context;

let out: string[];
let err: string[];
beforeEach(() => {
  out = [];
  err = [];
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    out.push(String(chunk));
    return true;
  });
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    err.push(String(chunk));
    return true;
  });
});
afterEach(() => vi.restoreAllMocks());

const lines = (chunks: string[]) =>
  chunks
    .join('')
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);

describe('withPowertools', () => {
  it('puts the invocation on every log line', async () => {
    const tools = createTelemetry(SERVICES.archive);
    await withPowertools(async () => tools.log.info('working', { bot_id: 'bot_1' }), tools)(undefined, context);
    const [line] = lines(out).filter((l) => l.message === 'working');
    expect(line).toMatchObject({
      service: 'recording-archive',
      function_request_id: context.awsRequestId,
      function_name: context.functionName,
      bot_id: 'bot_1',
    });
  });

  it('publishes the invocation metrics when the handler throws, then rethrows', async () => {
    const tools = createTelemetry(SERVICES.archive);
    const failing = withPowertools(async () => {
      tools.metrics.emit(METRICS.archiveFailed, 1);
      throw new Error('boom');
    }, tools);
    await expect(failing(undefined, context)).rejects.toThrow('boom');
    const emf = lines(out).filter((l) => '_aws' in l);
    expect(emf).toHaveLength(1);
    expect(emf[0]).toMatchObject({ service: 'recording-archive', ArchiveFailed: 1 });
  });

  it('writes one EMF document per dimension set, each point a value of its metric', async () => {
    const tools = createTelemetry(SERVICES.processEvents);
    await withPowertools(async () => {
      for (let i = 0; i < 9; i += 1) tools.metrics.emit(METRICS.eventApplied, 1, { trigger: 'transcript.update' });
      tools.metrics.emit(METRICS.eventDuplicate, 1, { trigger: 'transcript.update' });
      tools.metrics.emit(METRICS.eventApplied, 1, { trigger: 'bot.state_change' });
      tools.metrics.emit(METRICS.archiveRequested, 1);
    }, tools)(undefined, context);
    const emf = lines(out).filter((l) => '_aws' in l);
    const dimensionsOf = (doc: Record<string, unknown>) =>
      (doc._aws as { CloudWatchMetrics: Array<{ Dimensions: string[][] }> }).CloudWatchMetrics.map((d) => d.Dimensions);
    expect(emf).toHaveLength(3);
    expect(emf[0]).toMatchObject({ service: 'process-events', ArchiveRequested: 1 });
    expect(dimensionsOf(emf[0] ?? {})).toEqual([[['service']]]);
    expect(emf[1]).toMatchObject({
      trigger: 'transcript.update',
      EventApplied: [1, 1, 1, 1, 1, 1, 1, 1, 1],
      EventDuplicate: 1,
    });
    expect(dimensionsOf(emf[1] ?? {})).toEqual([[['service', 'trigger']]]);
    expect(emf[2]).toMatchObject({ trigger: 'bot.state_change', EventApplied: 1 });
    expect(emf[2]).not.toHaveProperty('ArchiveRequested');
    expect(err.join('')).not.toMatch(/No application metrics|already been added/);
  });

  it('keeps the dimensions on every document when a metric outgrows one (100 values)', async () => {
    const tools = createTelemetry(SERVICES.reconciler);
    await withPowertools(async () => {
      for (let i = 0; i < 150; i += 1) tools.metrics.emit(METRICS.upstreamServerError, 1, { status: '500' });
    }, tools)(undefined, context);
    const emf = lines(out).filter((l) => '_aws' in l);
    expect(emf.map((doc) => doc.status)).toEqual(['500', '500']);
    expect(emf.flatMap((doc) => [doc.UpstreamServerError].flat())).toHaveLength(150);
  });

  it('writes no EMF and no warning when nothing was recorded', async () => {
    const tools = createTelemetry(SERVICES.reconciler);
    await withPowertools(async () => 'quiet', tools)(undefined, context);
    expect(lines(out).filter((l) => '_aws' in l)).toEqual([]);
    expect(err.join('')).not.toMatch(/No application metrics/);
  });
});
