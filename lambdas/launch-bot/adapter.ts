import type { LaunchInput } from '../core/schedule/executions';
import {
  type LaunchDependencies,
  type LaunchResult,
  launchScheduledBot,
  recordLaunchFailure,
} from '../core/schedule/launch';

/** The state machine's two tasks: launch, and record a final failure (the Catch). */
export type LaunchTaskEvent =
  | { action: 'launch'; schedule: LaunchInput }
  | { action: 'fail'; schedule: LaunchInput; error: { Error?: string; Cause?: string } };

export function createLaunchTaskHandler(deps: LaunchDependencies) {
  return async (event: LaunchTaskEvent): Promise<LaunchResult | { status: 'failed' }> => {
    if (event.action === 'fail') {
      await recordLaunchFailure(event.schedule, event.error, deps);
      return { status: 'failed' };
    }
    return launchScheduledBot(event.schedule, deps);
  };
}
