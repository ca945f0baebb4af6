/** Starting and stopping launcher executions: Step Functions in AWS, the local runner in local mode and tests. */

/**
 * What an execution is started with, and so what its history keeps (Step Functions holds a closed
 * execution's input 90 days, out of an erasure's reach): the schedule's id, version and times only.
 * The meeting's link (a Zoom link carries its passcode), the bot's name and the caller's metadata
 * the launcher reads from the schedule item, which the erasure and the caller control.
 */
export interface LaunchInput {
  scheduleId: string;
  version: number;
  /** When the Wait state ends (ISO 8601, UTC). */
  launchAt: string;
  joinAt: string;
}

export interface Executions {
  /**
   * Starts an execution under a name unique per schedule version, so a retried
   * request cannot start two. Starting a name that exists resolves with its ARN.
   */
  start(name: string, input: LaunchInput): Promise<{ executionArn: string }>;
  /** Stops an execution; one already finished or stopped is fine. */
  stop(executionArn: string): Promise<void>;
}
