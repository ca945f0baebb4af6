import { SFNClient, StartExecutionCommand, StopExecutionCommand } from '@aws-sdk/client-sfn';
import { required } from '../core/required';
import type { Executions, LaunchInput } from '../core/schedule/executions';

/** Launcher executions on the deployed state machine. */
export function stepFunctionsExecutions(client: SFNClient, stateMachineArn: string): Executions {
  return {
    async start(name: string, input: LaunchInput) {
      try {
        const started = await client.send(
          new StartExecutionCommand({ stateMachineArn, name, input: JSON.stringify(input) }),
        );
        return { executionArn: required(started.executionArn, 'StartExecution executionArn') };
      } catch (error) {
        // The name is per schedule version: it already runs (or ran) for this very request.
        if (error instanceof Error && error.name === 'ExecutionAlreadyExists') {
          return { executionArn: `${stateMachineArn.replace(':stateMachine:', ':execution:')}:${name}` };
        }
        throw error;
      }
    },
    async stop(executionArn: string) {
      try {
        await client.send(new StopExecutionCommand({ executionArn, cause: 'schedule moved or cancelled' }));
      } catch (error) {
        if (error instanceof Error && error.name === 'ExecutionDoesNotExist') return;
        throw error;
      }
    },
  };
}

export const sfnClient = (): SFNClient => new SFNClient({ maxAttempts: 3 });
