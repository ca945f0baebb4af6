/**
 * The launcher state machine run locally: the definition `cdk synth` produces,
 * executed by aws-local-stepfunctions, with its Lambda tasks answered by the same
 * task code the deployed function runs. Implements the Executions port, so the
 * schedule core starts and stops executions here as it does on Step Functions.
 *
 * The Wait state (the definition's first) is waited out here, not by the runner: the runner arms one
 * setTimeout for the whole wait, and Node fires a timer past 2^31-1 ms (24.8 days) at once. Here the wait
 * is a chain of timers no longer than that, read against a clock tests can drive.
 */
import { randomUUID } from 'node:crypto';
import { ExecutionAbortedError, StateMachine, type StateMachineDefinition } from 'aws-local-stepfunctions';
import type { Executions, LaunchInput } from '../lambdas/core/schedule/executions';
import { LAUNCHER_STATES } from '../lib/bot-scheduler';

type JsonValue = Parameters<StateMachine['run']>[0];

/** The longest delay Node's setTimeout honours; longer ones fire after 1 ms. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** Time as the local executions read it: the system's, or one a test moves. */
export interface Clock {
  now(): number;
  /** Calls `fire` once after `ms` (never more than MAX_TIMER_MS); the answer cancels it. */
  setTimer(fire: () => void, ms: number): () => void;
}

export const systemClock: Clock = {
  now: Date.now,
  setTimer(fire, ms) {
    const timer = setTimeout(fire, ms);
    return () => clearTimeout(timer);
  },
};

/** Resolves true once the clock reaches `dueMs`, or false when `signal` aborts first; timers of at most MAX_TIMER_MS. */
export function sleepUntil(clock: Clock, dueMs: number, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    let cancel = () => {};
    const onAbort = () => {
      cancel();
      resolve(false);
    };
    const arm = () => {
      const left = dueMs - clock.now();
      if (left <= 0) {
        signal.removeEventListener('abort', onAbort);
        resolve(true);
      } else cancel = clock.setTimer(arm, Math.min(left, MAX_TIMER_MS));
    };
    if (signal.aborted) return resolve(false);
    signal.addEventListener('abort', onAbort, { once: true });
    arm();
  });
}

/** A definition as synthesized: TimeoutSeconds is the execution's time limit (a year for the launcher). */
type DefinitionWithTimeout = StateMachineDefinition & { TimeoutSeconds?: number };

/** The state machine definition from a synthesized template, its function ARNs made concrete. */
export function launcherDefinition(template: {
  Resources?: Record<string, { Type: string; Properties?: Record<string, unknown> }>;
}): DefinitionWithTimeout {
  const machine = Object.values(template.Resources ?? {}).find(
    (resource) => resource.Type === 'AWS::StepFunctions::StateMachine',
  );
  if (machine === undefined) throw new Error('the template has no state machine');
  const definition = machine.Properties?.DefinitionString as string | { 'Fn::Join': [string, unknown[]] };
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
  return JSON.parse(text) as DefinitionWithTimeout;
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
  /** The clock the Wait state and the execution time limit are read against (default: the system's). */
  clock?: Clock;
  /** Milliseconds between retries instead of the definition's backoff (tests use 0). */
  retryIntervalMs?: number;
}

export class LocalExecutions implements Executions {
  readonly executions = new Map<string, LocalExecution>();
  private readonly aborts = new Map<string, () => void>();
  private readonly machine: StateMachine;
  private readonly clock: Clock;
  private readonly timeoutMs: number | undefined;

  constructor(
    { TimeoutSeconds, ...definition }: DefinitionWithTimeout,
    private readonly options: LocalExecutionsOptions,
  ) {
    // The runner would arm TimeoutSeconds as one setTimeout, which overflows past 24.8 days and fires at
    // once: the limit is held here against the clock instead.
    this.machine = new StateMachine(definition, { validationOptions: { checkArn: false } });
    this.clock = options.clock ?? systemClock;
    this.timeoutMs = TimeoutSeconds === undefined ? undefined : TimeoutSeconds * 1000;
  }

  async start(name: string, input: LaunchInput): Promise<{ executionArn: string }> {
    const existing = this.executions.get(name);
    if (existing !== undefined) return { executionArn: existing.executionArn };
    const executionArn = `arn:aws:states:local:000000000000:execution:launcher:${name}`;
    const startedAt = this.clock.now();
    const launchAtMs =
      startedAt + (this.options.waitMs?.(input) ?? Math.max(0, Date.parse(input.launchAt) - startedAt));
    const deadline = this.timeoutMs === undefined ? launchAtMs : Math.min(launchAtMs, startedAt + this.timeoutMs);
    const abort = new AbortController();
    const done = sleepUntil(this.clock, deadline, abort.signal).then((due): LocalExecution['done'] => {
      if (!due) return Promise.resolve({ status: 'ABORTED' });
      if (deadline < launchAtMs)
        return Promise.resolve({
          status: 'FAILED',
          error: 'States.Timeout: the execution outlived its TimeoutSeconds',
        });
      return this.run({ name, executionArn, input }, startedAt, abort.signal);
    });
    const execution: LocalExecution = { name, executionArn, input, stopped: false, done };
    this.executions.set(name, execution);
    this.aborts.set(executionArn, () => abort.abort());
    return { executionArn };
  }

  /** The definition from its Wait on: the wait is over, so the runner's Wait takes no time. */
  private run(
    execution: Pick<LocalExecution, 'name' | 'executionArn' | 'input'>,
    startedAt: number,
    signal: AbortSignal,
  ): LocalExecution['done'] {
    const task = (event: JsonValue) => this.options.task(event) as Promise<JsonValue>;
    const run = this.machine.run(execution.input as unknown as JsonValue, {
      overrides: {
        taskResourceLocalHandlers: { [LAUNCHER_STATES.launch]: task, [LAUNCHER_STATES.recordFailure]: task },
        waitTimeOverrides: { [LAUNCHER_STATES.wait]: 0 },
        ...(this.options.retryIntervalMs !== undefined && {
          retryIntervalOverrides: { [LAUNCHER_STATES.launch]: this.options.retryIntervalMs },
        }),
      },
      context: {
        Execution: {
          Id: execution.executionArn,
          Name: execution.name,
          StartTime: new Date(startedAt).toISOString(),
          Input: execution.input as unknown as JsonValue,
          RoleArn: `arn:aws:iam::000000000000:role/${randomUUID()}`,
        },
      },
    });
    signal.addEventListener('abort', () => run.abort(), { once: true });
    return run.result.then(
      (output) => ({ status: 'SUCCEEDED' as const, output }),
      (error: unknown) =>
        error instanceof ExecutionAbortedError
          ? { status: 'ABORTED' as const }
          : {
              status: 'FAILED' as const,
              error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
            },
    );
  }

  async stop(executionArn: string): Promise<void> {
    const execution = [...this.executions.values()].find((e) => e.executionArn === executionArn);
    if (execution === undefined || execution.stopped) return;
    execution.stopped = true;
    this.aborts.get(executionArn)?.();
  }
}
