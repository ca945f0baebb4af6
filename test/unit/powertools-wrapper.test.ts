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

  it('writes no EMF and no warning when nothing was recorded', async () => {
    const tools = createTelemetry(SERVICES.reconciler);
    await withPowertools(async () => 'quiet', tools)(undefined, context);
    expect(lines(out).filter((l) => '_aws' in l)).toEqual([]);
    expect(err.join('')).not.toMatch(/No application metrics/);
  });
});
