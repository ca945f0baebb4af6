/**
 * A bundle run as Lambda runs it (test/fixtures/bundles/lambda-process.ts), on small hand-written
 * bundles: Node 24, exactly Lambda's environment and nothing of the test's, a Lambda-like context,
 * no node_modules reachable, sibling modules loaded on demand; and every way an invocation fails
 * (an ERROR line, an unhandled rejection, a crash, the timeout) fails it with the lines printed,
 * while a handler's thrown error is its answer. Closing ends the processes it started too.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { DeployedFunction, LocalAws } from '../fixtures/bundles/lambda-environment';
import { InvocationFailed, LambdaProcess } from '../fixtures/bundles/lambda-process';
import { scratchDir } from '../fixtures/scratch';

/** Whether a process runs: it exists and is not a zombie waiting for whichever parent adopted it to reap it. */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

const AWS: LocalAws = { region: 'eu-west-1', endpoints: { SQS: 'http://127.0.0.1:1' } };

/** A bundle folder holding these files (index.mjs among them). */
function bundle(files: Record<string, string>): string {
  const dir = scratchDir('bundle-');
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}

const started: LambdaProcess[] = [];
async function start(handlerBody: string, extra: Partial<DeployedFunction> = {}, files: Record<string, string> = {}) {
  const fn: DeployedFunction = {
    name: 'TestFunction',
    assetDir: bundle({ 'index.mjs': handlerBody, ...files }),
    environment: { TABLE_NAME: 'meetings' },
    timeoutSeconds: 5,
    memorySize: 256,
    ...extra,
  };
  const lambda = await LambdaProcess.start(fn, AWS);
  started.push(lambda);
  return lambda;
}

afterEach(async () => {
  await Promise.allSettled(started.splice(0).map((lambda) => lambda.close()));
});

describe('a bundle run as Lambda runs it', () => {
  it('runs on Node 24 with exactly Lambda’s environment and a Lambda-like context', async () => {
    process.env.ONLY_IN_THE_TEST = 'leaked';
    const lambda = await start(`
      export const handler = async (event, context) => ({
        event,
        node: process.version,
        env: process.env,
        cwd: process.cwd(),
        requestId: context.awsRequestId,
        functionName: context.functionName,
        memory: context.memoryLimitInMB,
        remaining: context.getRemainingTimeInMillis(),
        trace: process.env._X_AMZN_TRACE_ID,
        zone: Intl.DateTimeFormat().resolvedOptions().timeZone,
      });`);
    const { outcome, requestId } = await lambda.invoke({ hello: 'world' });
    const result = (outcome as { result: Record<string, unknown> }).result;
    expect(result.event).toEqual({ hello: 'world' });
    expect(result.node).toMatch(/^v24\./);
    expect(result.requestId).toBe(requestId);
    expect(result).toMatchObject({ functionName: 'TestFunction', memory: '256', zone: 'UTC' });
    expect(result.remaining).toBeGreaterThan(4_000);
    expect(result.remaining).toBeLessThanOrEqual(5_000);
    expect(result.trace).toMatch(/^Root=1-/);
    const env = result.env as Record<string, string>;
    expect(env).toMatchObject({
      TABLE_NAME: 'meetings',
      AWS_ENDPOINT_URL_SQS: 'http://127.0.0.1:1',
      AWS_REGION: 'eu-west-1',
      AWS_LAMBDA_FUNCTION_NAME: 'TestFunction',
      AWS_LAMBDA_FUNCTION_MEMORY_SIZE: '256',
      _HANDLER: 'index.handler',
      TZ: ':UTC',
      LAMBDA_TASK_ROOT: result.cwd,
    });
    expect(env.ONLY_IN_THE_TEST).toBeUndefined();
    expect(env.HOME).toBeUndefined();
    expect(env.NODE_PATH).toBeUndefined();
    expect(lambda.initMs).toBeGreaterThan(0);
    expect(lambda.invokeMs).toHaveLength(1);
    delete process.env.ONLY_IN_THE_TEST;
  });

  it('reaches no node_modules: a package the bundle did not inline fails its init', async () => {
    await expect(start(`import { z } from 'zod'; export const handler = async () => z;`)).rejects.toThrow(
      /init failed: .*zod/,
    );
  });

  it('loads a sibling module on demand, as the functions’ rare paths do', async () => {
    const lambda = await start(
      `export const handler = async () => (await import(new URL('./rare.mjs', import.meta.url).href)).answer;`,
      {},
      { 'rare.mjs': 'export const answer = 42;' },
    );
    expect((await lambda.invoke({})).outcome).toEqual({ result: 42 });
  });

  it('answers a thrown error as the invocation’s error, and the next invocation runs', async () => {
    const lambda = await start(`
      export const handler = async (event) => { if (event.fail) throw new TypeError('bad event'); return 'ok'; };`);
    const failed = await lambda.invoke({ fail: true });
    expect(failed.outcome).toMatchObject({ error: { errorType: 'TypeError', errorMessage: 'bad event' } });
    expect((await lambda.invoke({})).outcome).toEqual({ result: 'ok' });
  });

  it('fails an invocation that logs at level ERROR, with the lines it printed', async () => {
    const lambda = await start(`
      export const handler = async () => {
        console.log('before');
        process.stdout.write(JSON.stringify({ level: 'ERROR', message: 'Powertools-style error' }) + '\\n');
        return 'answered anyway';
      };`);
    const failure = await lambda.invoke({}).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(InvocationFailed);
    expect((failure as InvocationFailed).message).toMatch(/logged an error[\s\S]*before[\s\S]*Powertools-style error/);
  });

  it('fails on console.error and on raw stderr text', async () => {
    const lambda = await start(`
      export const handler = async (event) => {
        if (event.console) console.error('oops');
        else process.stderr.write('a raw warning\\n');
        return null;
      };`);
    await expect(lambda.invoke({ console: true })).rejects.toThrow(/"level":"ERROR".*oops/);
    await expect(lambda.invoke({})).rejects.toThrow(/\[stderr\] a raw warning/);
  });

  it('fails on an unhandled rejection, and the process is gone afterwards', async () => {
    const lambda = await start(`
      export const handler = async () => {
        Promise.reject(new Error('nobody awaited me'));
        await new Promise((resolve) => setTimeout(resolve, 50));
        return 'too late';
      };`);
    await expect(lambda.invoke({})).rejects.toThrow(/unhandledRejection: Error: nobody awaited me/);
    await expect(lambda.invoke({})).rejects.toThrow(/not running/);
  });

  it('fails an invocation that outlives the template’s timeout', async () => {
    const lambda = await start(`export const handler = () => new Promise(() => setInterval(() => {}, 1000));`, {
      timeoutSeconds: 1,
    });
    await expect(lambda.invoke({})).rejects.toThrow(/Task timed out after 1 seconds/);
  });

  it('reports a rejection left behind after the last invocation when closed', async () => {
    const lambda = await start(`
      export const handler = async () => { setTimeout(() => Promise.reject(new Error('late')), 20); return 1; };`);
    await lambda.invoke({});
    await new Promise((resolve) => setTimeout(resolve, 300));
    started.pop();
    await expect(lambda.close()).rejects.toThrow(/late/);
  });

  it('ends the processes a function started when closed', async () => {
    const lambda = await start(`
      import { spawn } from 'node:child_process';
      export const handler = async () => spawn('sleep', ['60'], { stdio: 'ignore' }).pid;`);
    const { outcome } = await lambda.invoke({});
    const pid = (outcome as { result: number }).result;
    expect(running(pid)).toBe(true);
    started.pop();
    await lambda.close();
    const deadline = Date.now() + 5_000;
    while (running(pid) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(running(pid)).toBe(false);
  });
});
