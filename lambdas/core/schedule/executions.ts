/** Starting and stopping launcher executions: Step Functions in AWS, the local runner in local mode and tests. */

export interface LaunchInput {
  scheduleId: string;
  version: number;
  /** When the Wait state ends (ISO 8601, UTC). */
  launchAt: string;
  joinAt: string;
  meetingUrl: string;
  botName: string;
  metadata: Record<string, unknown>;
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
