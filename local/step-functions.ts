/**
 * The launcher state machine run locally: the definition `cdk synth` produces,
 * executed by aws-local-stepfunctions, with its Lambda tasks answered by the same
 * task code the deployed function runs. Implements the Executions port, so the
 * schedule core starts and stops executions here as it does on Step Functions.
 */
import { randomUUID } from 'node:crypto';
import { ExecutionAbortedError, StateMachine, type StateMachineDefinition } from 'aws-local-stepfunctions';
import type { Executions, LaunchInput } from '../lambdas/core/schedule/executions';
import { LAUNCHER_STATES } from '../lib/bot-scheduler';

type JsonValue = Parameters<StateMachine['run']>[0];

/** The state machine definition from a synthesized template, its function ARNs made concrete. */
export function launcherDefinition(template: {
  Resources?: Record<string, { Type: string; Properties: Record<string, unknown> }>;
}): StateMachineDefinition {
  const machine = Object.values(template.Resources ?? {}).find(
    (resource) => resource.Type === 'AWS::StepFunctions::StateMachine',
  );
  if (machine === undefined) throw new Error('the template has no state machine');
  const definition = machine.Properties.DefinitionString as string | { 'Fn::Join': [string, unknown[]] };
  const text =
    typeof definition === 'string'
      ? definition
      : definition['Fn::Join'][1]
          .map((part) =>
            typeof part === 'string'
              ? part
              : `arn:aws:lambda:us-east-1:000000000000:function:${JSON.stringify(part).replace(/\W/g, '')}`,
          )
          .join('');
  const parsed = JSON.parse(text) as StateMachineDefinition & { TimeoutSeconds?: number };
  // The runner arms TimeoutSeconds with setTimeout, which overflows past 24.8 days and fires at once;
  // the one-year limit only matters on Step Functions.
  delete parsed.TimeoutSeconds;
  return parsed;
}

export interface LocalExecution {
  name: string;
  executionArn: string;
  input: LaunchInput;
  stopped: boolean;
  /** Settles when the execution ends: its output, or the error it failed with. */
  done: Promise<{ status: 'SUCCEEDED'; output: unknown } | { status: 'FAILED'; error: string } | { status: 'ABORTED' }>;
}

export interface LocalExecutionsOptions {
  /** The launch task: same code as the deployed function's handler. */
  task: (event: unknown) => Promise<unknown>;
  /** Wait this long instead of until launchAt (tests use 0); default: until launchAt. */
  waitMs?: (input: LaunchInput) => number;
  /** Milliseconds between retries instead of the definition's backoff (tests use 0). */
  retryIntervalMs?: number;
}

export class LocalExecutions implements Executions {
  readonly executions = new Map<string, LocalExecution>();
  private readonly aborts = new Map<string, () => void>();
  private readonly machine: StateMachine;

  constructor(
    definition: StateMachineDefinition,
    private readonly options: LocalExecutionsOptions,
  ) {
    this.machine = new StateMachine(definition, { validationOptions: { checkArn: false } });
  }

  async start(name: string, input: LaunchInput): Promise<{ executionArn: string }> {
    const existing = this.executions.get(name);
    if (existing !== undefined) return { executionArn: existing.executionArn };
    const executionArn = `arn:aws:states:local:000000000000:execution:launcher:${name}`;
    const waitMs = this.options.waitMs?.(input) ?? Math.max(0, Date.parse(input.launchAt) - Date.now());
    const task = (event: JsonValue) => this.options.task(event) as Promise<JsonValue>;
    const run = this.machine.run(input as unknown as JsonValue, {
      overrides: {
        taskResourceLocalHandlers: { [LAUNCHER_STATES.launch]: task, [LAUNCHER_STATES.recordFailure]: task },
        waitTimeOverrides: { [LAUNCHER_STATES.wait]: waitMs },
        ...(this.options.retryIntervalMs !== undefined && {
          retryIntervalOverrides: { [LAUNCHER_STATES.launch]: this.options.retryIntervalMs },
        }),
      },
      context: {
        Execution: {
          Id: executionArn,
          Name: name,
          StartTime: new Date().toISOString(),
          Input: input as unknown as JsonValue,
          RoleArn: `arn:aws:iam::000000000000:role/${randomUUID()}`,
        },
      },
    });
    const done = run.result.then(
      (output) => ({ status: 'SUCCEEDED' as const, output }),
      (error: unknown) =>
        error instanceof ExecutionAbortedError
          ? { status: 'ABORTED' as const }
          : {
              status: 'FAILED' as const,
              error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
            },
    );
    const execution: LocalExecution = { name, executionArn, input, stopped: false, done };
    this.executions.set(name, execution);
    this.aborts.set(executionArn, run.abort);
    return { executionArn };
  }

  async stop(executionArn: string): Promise<void> {
    const execution = [...this.executions.values()].find((e) => e.executionArn === executionArn);
    if (execution === undefined || execution.stopped) return;
    execution.stopped = true;
    this.aborts.get(executionArn)?.();
  }
}
