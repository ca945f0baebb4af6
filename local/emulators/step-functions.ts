/**
 * Step Functions' StartExecution, StopExecution and DescribeExecution on 127.0.0.1 for the real
 * SDK client (JSON 1.0, `AWSStepFunctions.*`), for the launcher state machine: its definition runs
 * through the project's local runner (local/step-functions.ts), its Lambda tasks answered by a
 * callback the caller gives (a test hands them to the deployed launch-bot bundle).
 *
 * As Step Functions does for a standard workflow: a state machine ARN it was not given is
 * StateMachineDoesNotExist; a name already used is idempotent only while that execution runs with
 * the same input, and ExecutionAlreadyExists otherwise (another input, or it has ended); an
 * unknown execution ARN is ExecutionDoesNotExist; stopping an execution that has ended changes
 * nothing.
 */
import type { LaunchInput } from '../../lambdas/core/schedule/executions';
import { type Clock, type LocalExecution, LocalExecutions, launcherDefinition } from '../step-functions';
import { AwsJsonError } from './aws-json/errors';
import { optionalText, requiredText } from './aws-json/members';
import { type AwsJsonServer, type JsonBody, startAwsJsonServer } from './aws-json/server';

type Template = Parameters<typeof launcherDefinition>[0];

export interface StepFunctionsStandInOptions {
  /** The state machine's ARN as the functions are told it (the template's, resolved). */
  stateMachineArn: string;
  /** The synthesized template holding its definition. */
  template: Template;
  /** Answers the definition's Lambda tasks (launch, record failure). */
  task: (event: unknown) => Promise<unknown>;
  /** Wait this long instead of until launchAt (tests use 0). */
  waitMs?: (input: LaunchInput) => number;
  clock?: Clock;
  retryIntervalMs?: number;
}

export type ExecutionStatus = 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'TIMED_OUT' | 'ABORTED';

export interface StandInExecution {
  executionArn: string;
  name: string;
  input: string;
  startDate: number;
  status: ExecutionStatus;
  stopDate?: number;
  output?: string;
  error?: string;
  cause?: string;
  /** Settles when the execution ends. */
  ended: Promise<ExecutionStatus>;
}

export interface StepFunctionsStandIn extends AwsJsonServer {
  executions: Map<string, StandInExecution>;
}

const sfnError = (type: string, message: string) => new AwsJsonError(type, message, { messageKey: 'message' });
const seconds = () => Date.now() / 1000;
/** Characters Step Functions refuses in a name besides whitespace and control characters. */
const RESERVED_NAME_CHARACTERS = new Set('<>{}[]?*"#%\\^|~`$&,;:/');

/** Names Step Functions takes: 1 to 80 characters, none of whitespace, control or reserved characters. */
function validName(name: string): boolean {
  return (
    name.length >= 1 &&
    name.length <= 80 &&
    ![...name].some((character) => {
      const code = character.codePointAt(0) ?? 0;
      return (
        /\s/.test(character) || code < 0x20 || (code >= 0x7f && code <= 0x9f) || RESERVED_NAME_CHARACTERS.has(character)
      );
    })
  );
}

function settle(execution: StandInExecution, done: Awaited<LocalExecution['done']>): ExecutionStatus {
  execution.stopDate ??= seconds();
  if (done.status === 'SUCCEEDED') {
    execution.status = 'SUCCEEDED';
    execution.output = JSON.stringify(done.output ?? null);
  } else if (done.status === 'FAILED') {
    const [error = 'Error', ...cause] = done.error.split(': ');
    execution.status = error === 'States.Timeout' ? 'TIMED_OUT' : 'FAILED';
    execution.error = error;
    execution.cause = cause.join(': ');
  } else execution.status = 'ABORTED';
  return execution.status;
}

export async function startStepFunctionsStandIn(options: StepFunctionsStandInOptions): Promise<StepFunctionsStandIn> {
  const runner = new LocalExecutions(launcherDefinition(options.template), {
    task: options.task,
    ...(options.waitMs !== undefined && { waitMs: options.waitMs }),
    ...(options.clock !== undefined && { clock: options.clock }),
    ...(options.retryIntervalMs !== undefined && { retryIntervalMs: options.retryIntervalMs }),
  });
  const executions = new Map<string, StandInExecution>();
  const executionPrefix = `${options.stateMachineArn.replace(':stateMachine:', ':execution:')}:`;
  /** The runner's own ARN of each execution, by ours. */
  const runnerArns = new Map<string, string>();

  function executionNamed(body: JsonBody): StandInExecution {
    const executionArn = requiredText(body, 'executionArn');
    if (!executionArn.startsWith('arn:')) throw sfnError('InvalidArn', `Invalid Arn: '${executionArn}'`);
    const execution = executions.get(executionArn);
    if (execution === undefined) throw sfnError('ExecutionDoesNotExist', `Execution Does Not Exist: '${executionArn}'`);
    return execution;
  }

  const startExecution = async (body: JsonBody): Promise<JsonBody> => {
    const stateMachineArn = requiredText(body, 'stateMachineArn');
    if (!stateMachineArn.startsWith('arn:')) throw sfnError('InvalidArn', `Invalid Arn: '${stateMachineArn}'`);
    if (stateMachineArn !== options.stateMachineArn)
      throw sfnError('StateMachineDoesNotExist', `State Machine Does Not Exist: '${stateMachineArn}'`);
    const name = optionalText(body, 'name') ?? crypto.randomUUID();
    if (!validName(name)) throw sfnError('InvalidName', `Invalid Name: '${name}'`);
    const input = optionalText(body, 'input') ?? '{}';
    let parsed: LaunchInput;
    try {
      parsed = JSON.parse(input) as LaunchInput;
    } catch {
      throw sfnError('InvalidExecutionInput', `Invalid State Machine Execution Input: '${input}'`);
    }
    const executionArn = `${executionPrefix}${name}`;
    const existing = executions.get(executionArn);
    if (existing !== undefined) {
      if (existing.status === 'RUNNING' && existing.input === input)
        return { executionArn, startDate: existing.startDate };
      throw sfnError('ExecutionAlreadyExists', `Execution Already Exists: '${executionArn}'`);
    }
    const started = await runner.start(name, parsed);
    runnerArns.set(executionArn, started.executionArn);
    const local = runner.executions.get(name);
    if (local === undefined) throw new Error(`the runner lost the execution ${name}`);
    const execution: StandInExecution = {
      executionArn,
      name,
      input,
      startDate: seconds(),
      status: 'RUNNING',
      ended: local.done.then((done) => settle(execution, done)),
    };
    executions.set(executionArn, execution);
    return { executionArn, startDate: execution.startDate };
  };

  const stopExecution = async (body: JsonBody): Promise<JsonBody> => {
    const execution = executionNamed(body);
    if (execution.status === 'RUNNING') {
      execution.stopDate = seconds();
      execution.error = optionalText(body, 'error');
      execution.cause = optionalText(body, 'cause');
      await runner.stop(runnerArns.get(execution.executionArn) ?? '');
      await execution.ended;
    }
    return { stopDate: execution.stopDate ?? seconds() };
  };

  const describeExecution = (body: JsonBody): JsonBody => {
    const { ended: _, ...described } = executionNamed(body);
    return { ...described, stateMachineArn: options.stateMachineArn };
  };

  const server = await startAwsJsonServer({
    targetPrefix: 'AWSStepFunctions',
    jsonVersion: '1.0',
    operations: { StartExecution: startExecution, StopExecution: stopExecution, DescribeExecution: describeExecution },
  });
  return {
    ...server,
    executions,
    async close() {
      for (const execution of executions.values())
        if (execution.status === 'RUNNING') await runner.stop(runnerArns.get(execution.executionArn) ?? '');
      await Promise.allSettled([...executions.values()].map((execution) => execution.ended));
      await server.close();
    },
  };
}
