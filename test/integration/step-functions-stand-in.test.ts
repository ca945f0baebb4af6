/**
 * The Step Functions stand-in (local/emulators/step-functions.ts) with the real SDK client: the
 * synthesized launcher run to its Lambda task, names unique as Step Functions keeps them, stops,
 * and unknown state machines and executions refused.
 */
import { DescribeExecutionCommand, SFNClient, StartExecutionCommand, StopExecutionCommand } from '@aws-sdk/client-sfn';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type StepFunctionsStandIn, startStepFunctionsStandIn } from '../../local/emulators/step-functions';
import { sharedTemplate } from '../infra/synth';

const MACHINE = 'arn:aws:states:eu-west-1:111111111111:stateMachine:Launcher';
const tasks: unknown[] = [];
let standIn: StepFunctionsStandIn;
let client: SFNClient;

beforeAll(async () => {
  standIn = await startStepFunctionsStandIn({
    stateMachineArn: MACHINE,
    template: sharedTemplate().toJSON(),
    task: async (event) => {
      tasks.push(event);
      return { botId: 'bot_1' };
    },
  });
  client = new SFNClient({
    region: 'eu-west-1',
    endpoint: standIn.endpoint,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 1,
  });
}, 180_000);
afterAll(() => standIn.close());

const launchInput = (scheduleId: string, inMs: number) =>
  JSON.stringify({
    scheduleId,
    version: 1,
    launchAt: new Date(Date.now() + inMs).toISOString(),
    joinAt: new Date(Date.now() + inMs + 60_000).toISOString(),
  });

const start = (name: string, input: string, stateMachineArn = MACHINE) =>
  client.send(new StartExecutionCommand({ stateMachineArn, name, input }));
const describeExecution = (executionArn: string) => client.send(new DescribeExecutionCommand({ executionArn }));

describe('the Step Functions stand-in', () => {
  it('runs the launcher to its Lambda task once launchAt is reached', async () => {
    const input = launchInput('s-now', -1_000);
    const { executionArn } = await start('s-now-v1', input);
    expect(executionArn).toBe('arn:aws:states:eu-west-1:111111111111:execution:Launcher:s-now-v1');
    await standIn.executions.get(executionArn!)?.ended;
    const described = await describeExecution(executionArn!);
    expect(described).toMatchObject({ status: 'SUCCEEDED', name: 's-now-v1', stateMachineArn: MACHINE, input });
    expect(tasks).toContainEqual(expect.objectContaining({ action: 'launch', schedule: JSON.parse(input) }));
  });

  it('answers a repeated start of a running execution with the same input as the first, any other with ExecutionAlreadyExists', async () => {
    const input = launchInput('s-later', 60_000);
    const first = await start('s-later-v1', input);
    const again = await start('s-later-v1', input);
    expect(again.executionArn).toBe(first.executionArn);
    expect(again.startDate).toEqual(first.startDate);
    await expect(start('s-later-v1', launchInput('s-later', 90_000))).rejects.toMatchObject({
      name: 'ExecutionAlreadyExists',
      $metadata: { httpStatusCode: 400 },
    });
    expect((await describeExecution(first.executionArn!)).status).toBe('RUNNING');

    await client.send(new StopExecutionCommand({ executionArn: first.executionArn, cause: 'schedule moved' }));
    expect(await describeExecution(first.executionArn!)).toMatchObject({ status: 'ABORTED', cause: 'schedule moved' });
    await client.send(new StopExecutionCommand({ executionArn: first.executionArn }));
    await expect(start('s-later-v1', input)).rejects.toMatchObject({ name: 'ExecutionAlreadyExists' });
  });

  it('refuses an unknown state machine, an unknown execution and a bad name', async () => {
    await expect(start('x', launchInput('x', 0), `${MACHINE}2`)).rejects.toMatchObject({
      name: 'StateMachineDoesNotExist',
      message: `State Machine Does Not Exist: '${MACHINE}2'`,
    });
    const unknown = 'arn:aws:states:eu-west-1:111111111111:execution:Launcher:never';
    await expect(describeExecution(unknown)).rejects.toMatchObject({ name: 'ExecutionDoesNotExist' });
    await expect(client.send(new StopExecutionCommand({ executionArn: unknown }))).rejects.toMatchObject({
      name: 'ExecutionDoesNotExist',
    });
    await expect(start('has space', launchInput('x', 0))).rejects.toMatchObject({ name: 'InvalidName' });
  });
});
