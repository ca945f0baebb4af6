/**
 * What a replay of stored webhooks runs on: the event consumer's own dependencies, built from the
 * names the function is deployed with. Shared by `npm run replay` and the console's replay.
 */

import type { ProcessDependencies } from '../lambdas/core/events/process-event';
import { silentTelemetry } from '../lambdas/core/telemetry';
import { describeIssues } from '../lambdas/core/validation';
import { processEventsDependencies } from '../lambdas/process-events/adapter';
import { processEventsEnvironmentSchema } from '../lambdas/process-events/environment';
import { sqsClient } from '../lambdas/shared/aws-clients';
import { documentClient } from '../lambdas/shared/dynamo-client';
import { s3Client } from '../lambdas/shared/s3-client';

/** The consumer's dependencies for a replay, or why the names given cannot make them. */
export function replayDependencies(
  names: Record<string, string | undefined>,
): { ok: true; dependencies: ProcessDependencies } | { ok: false; issues: string[] } {
  const environment = processEventsEnvironmentSchema.safeParse({
    DEDUP_RETENTION_DAYS: '7',
    // Replay re-applies stored events; it publishes no domain events (they were published when first applied).
    EVENT_BUS_NAME: 'replay-publishes-nothing',
    ...names,
  });
  if (!environment.success) return { ok: false, issues: describeIssues(environment.error) };
  return {
    ok: true,
    dependencies: processEventsDependencies(
      environment.data,
      { db: documentClient(), sqs: sqsClient(), s3: s3Client() },
      silentTelemetry,
    ),
  };
}
